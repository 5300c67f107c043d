/** A real HTTP webhook receiver on 127.0.0.1 for tests: records every request; answers what `respond` says. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The status to answer the n-th request (0-based); default 200. */
  respond: (request: Received, n: number) => number;
  /** Resolves once `predicate` holds for what was received (polls every 20 ms). */
  until(predicate: (received: Received[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    respond: () => 200,
    async until(predicate, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: timed out; got ${receiver.received.length} request(s)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request = { headers: req.headers, body, json, at: Date.now() };
      const n = receiver.received.length;
      receiver.received.push(request);
      res.statusCode = receiver.respond(request, n);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A port that nothing listens on (taken, then released). */
export async function freePort(): Promise<number> {
  const r = await startReceiver();
  await r.close();
  return r.port;
}
