/**
 * Redis servers a test file starts for itself from `redis-server` (clusters, primaries with
 * replicas, sentinels), talked to with `redis-cli`, and killed when the file is done.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The binaries this needs that are not on PATH (a file skips, saying so, when any is missing). */
export const missingRedisBinaries = ['redis-server', 'redis-cli'].filter(
  (bin) => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status !== 0,
);

/** The environment for redis-cli: REDISCLI_AUTH set to the password, or unset (an empty one is sent too). */
function withAuth(password: string | undefined): NodeJS.ProcessEnv {
  const { REDISCLI_AUTH: _ignored, ...env } = process.env;
  return password === undefined ? env : { ...env, REDISCLI_AUTH: password };
}

/** `redis-cli -p port …`, with the password (if any) given through REDISCLI_AUTH, not the command line. */
export function redisCli(port: number, args: string[], password?: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('redis-cli', ['-p', String(port), ...args], { timeout: 20_000, env: withAuth(password) }, (err, stdout, stderr) =>
      err ? reject(new Error(`redis-cli -p ${port} ${args.join(' ')}: ${err.message} ${stderr}`)) : resolve(stdout),
    ),
  );
}

/** Probes until it gives a value; the last error (if any) is in the timeout's message. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: Error | undefined;
  for (;;) {
    const value = await probe().catch((err: Error) => {
      last = err;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** No persistence, local only. */
const COMMON = ['--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'];

/** The servers of one test file, in a scratch folder of their own. */
export class RedisServers {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'holdfast-redis-'));
  private readonly children: ChildProcess[] = [];

  /** `redis-server …args`. */
  spawn(args: string[]): ChildProcess {
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    child.on('error', () => undefined);
    this.children.push(child);
    return child;
  }

  /** A data server on `port` (no persistence), with `extra` options (`--replicaof`, `--requirepass`, …). */
  server(port: number, extra: string[] = []): ChildProcess {
    return this.spawn(['--port', String(port), '--dir', this.dir, '--dbfilename', `${port}.rdb`, ...COMMON, ...extra]);
  }

  /** A sentinel on `port`, its configuration file (which it rewrites) made of `lines`. */
  sentinel(port: number, lines: string[]): ChildProcess {
    const conf = path.join(this.dir, `sentinel-${port}.conf`);
    writeFileSync(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${this.dir}`, ...lines, ''].join('\n'));
    return this.spawn([conf, '--sentinel']);
  }

  /** Waits until each port answers PING. */
  async answering(ports: number[], password?: string): Promise<void> {
    for (const port of ports)
      await until(`redis on ${port}`, async () => ((await redisCli(port, ['ping'], password)).includes('PONG') ? true : undefined));
  }

  /** A cluster of masters only, one a port (each with `extra` options), created and `cluster_state:ok`. */
  async cluster(ports: number[], extra: string[] = [], password?: string): Promise<void> {
    for (const port of ports) {
      const d = path.join(this.dir, `c${port}`);
      mkdirSync(d, { recursive: true });
      this.spawn([
        '--port',
        String(port),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        path.join(d, 'nodes.conf'),
        '--dir',
        d,
        ...COMMON,
        ...extra,
      ]);
    }
    await this.answering(ports, password);
    await redisCli(
      ports[0],
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      password,
    );
    for (const port of ports)
      await until(`cluster node ${port} to say ok`, async () =>
        (await redisCli(port, ['cluster', 'info'], password)).includes('cluster_state:ok') ? true : undefined,
      );
  }

  /** Kills every server (SIGKILL: nothing of theirs is kept) and removes the folder. */
  async stop(): Promise<void> {
    const running = this.children.filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = running.map((c) => new Promise((r) => c.once('exit', r)));
    for (const child of running) child.kill('SIGKILL');
    await Promise.all(exited);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
