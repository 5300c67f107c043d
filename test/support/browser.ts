/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser), and a
 * stand-in integrator site on its own origin that embeds the widget.
 */
import { existsSync, readFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import ts from 'typescript';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];

export async function launchChromium(): Promise<Browser> {
  const executablePath = CANDIDATES.find((p) => existsSync(p));
  if (!executablePath) throw new Error("The browser tests need Debian's Chromium: apt-get install chromium (or set CHROMIUM_PATH).");
  // Without the background-networking flags Chromium keeps dialling out, which this closed network refuses.
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The SDK as a browser loads it: its TypeScript with the types stripped (it imports nothing else). */
function sdkModule(): string {
  const source = readFileSync(new URL('../../packages/sdk/src/index.ts', import.meta.url), 'utf8');
  return ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
}

/**
 * An integrator's shop page on another origin: `/shop?redirect=…&flow=…&config=…&theme=…` loads
 * the widget from `holdfast` and runs `execute`, recording every callback in `window.events`;
 * `/sdk-checkout?invoice=…&token=…` runs the SDK's hosted checkout the same way; `/back` is
 * where a top-level flow may send the user.
 */
export async function startShop(holdfast: string): Promise<{ url: string; close: () => Promise<void> }> {
  const page = `<!doctype html><html><body><h1>Shop</h1><div id="pay"></div>
<script src="${holdfast}/widget.js"></script>
<script>
  window.events = [];
  const q = new URLSearchParams(location.search);
  const json = (name) => q.get(name) ? JSON.parse(q.get(name)) : undefined;
  HoldfastWidget.execute({
    rootId: 'pay', flow: q.get('flow') || undefined, redirect: q.get('redirect'), flowConfig: json('config'), theme: json('theme'),
    invoiceId: q.get('invoice_id') || undefined,
    onComplete: (e) => window.events.push(['complete', e]), onError: (e) => window.events.push(['error', e]),
  });
</script></body></html>`;
  const sdkPage = `<!doctype html><html><body><h1>App</h1><div id="pay"></div>
<script type="module">
  import { HoldfastSdk } from '/sdk.js';
  window.events = [];
  const q = new URLSearchParams(location.search);
  new HoldfastSdk({ baseUrl: '${holdfast}' }).checkout(
    { authorizedInvoiceId: q.get('invoice'), passwordToken: q.get('token'), container: document.getElementById('pay') },
    { completed: (id, invoice) => window.events.push(['completed', id, invoice.state]), canceled: () => window.events.push(['canceled']),
      error: (code, messages) => window.events.push(['error', code, messages]) });
</script></body></html>`;
  const sdk = sdkModule();
  const server: Server = http.createServer((req, res) => {
    if (req.url?.startsWith('/sdk-checkout')) res.writeHead(200, { 'content-type': 'text/html' }).end(sdkPage);
    else if (req.url === '/sdk.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk);
    else if (req.url?.startsWith('/shop')) res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    else if (req.url?.startsWith('/back')) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>back in the app</p>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
