/**
 * `npx holdfast …` for the walk-throughs, answered by this process: a directory with an `npx` of
 * its own, put first on a block's PATH, sends `holdfast` command lines (words, variables) over a
 * Unix socket to the suite, which runs them with the CLI's own dispatcher (`runCli`) and sends
 * back their output and exit code; anything else goes to the real npx. It saves the 2–3 s of CPU
 * that starting the CLI under tsx costs, dozens of times per run. README.md's walk-through still
 * runs the real `npx holdfast`, as do the tests that spawn `bin/holdfast.js`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { withCliIo } from '../../src/cli/cli-support.js';
import { runCli } from '../../src/cli/main.js';

/** A stream of the command line's output, sent as JSON lines `{"o": text}` or `{"e": text}`. */
class Framed extends Writable {
  constructor(
    private readonly socket: Socket,
    private readonly key: 'o' | 'e',
  ) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.socket.write(`${JSON.stringify({ [this.key]: chunk.toString() })}\n`, done);
  }
}

function serve(socket: Socket): void {
  let request = '';
  socket.setEncoding('utf8');
  const onData = (d: string) => {
    request += d;
    const end = request.indexOf('\n');
    if (end < 0) return;
    socket.off('data', onData);
    const { args, env } = JSON.parse(request.slice(0, end)) as { args: string[]; env: NodeJS.ProcessEnv };
    const stdout = new Framed(socket, 'o');
    const stderr = new Framed(socket, 'e');
    withCliIo({ stdout, stderr, env }, () => runCli(args)).then(
      (code) => socket.end(`${JSON.stringify({ x: code })}\n`),
      () => socket.end(`${JSON.stringify({ e: 'holdfast: failed\n', x: 1 })}\n`),
    );
  };
  socket.on('data', onData).on('error', () => undefined);
}

/** The client the `npx` shim runs: one request, then the output as it comes, then the exit code. */
const CLIENT = `import { connect } from 'node:net';
const socket = connect(process.env.HOLDFAST_TEST_CLI_SOCKET);
socket.setEncoding('utf8');
socket.write(JSON.stringify({ args: process.argv.slice(2), env: process.env }) + '\\n');
let buffer = '';
socket.on('data', (d) => {
  buffer += d;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const frame = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (frame.o !== undefined) process.stdout.write(frame.o);
    if (frame.e !== undefined) process.stderr.write(frame.e);
    if (frame.x !== undefined) process.stdout.write('', () => process.exit(frame.x));
  }
});
socket.on('error', (err) => { process.stderr.write('holdfast (test shim): ' + err.message + '\\n'); process.exit(1); });
`;

let started: { dir: string; socket: string; server: Server } | undefined;

/**
 * The directory holding the `npx` shim, and the variables a block needs for it (put `dir` first
 * on PATH). Started once per run; the server lives as long as the suite's process.
 */
export async function cliShim(): Promise<{ dir: string; env: Record<string, string> }> {
  if (!started) {
    const dir = mkdtempSync(path.join(tmpdir(), 'holdfast-npx-'));
    const socket = path.join(dir, 'cli.sock');
    const realNpx = execFileSync('bash', ['-c', 'command -v npx'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(dir, 'cli-client.mjs'), CLIENT);
    writeFileSync(
      path.join(dir, 'npx'),
      `#!/bin/sh\nif [ "$1" = holdfast ]; then shift; exec "${process.execPath}" "${path.join(dir, 'cli-client.mjs')}" "$@"; fi\nexec "${realNpx}" "$@"\n`,
    );
    chmodSync(path.join(dir, 'npx'), 0o755);
    const server = createServer(serve);
    await new Promise<void>((resolve, reject) => server.listen(socket, resolve).on('error', reject));
    server.unref();
    started = { dir, socket, server };
  }
  return { dir: started.dir, env: { HOLDFAST_TEST_CLI_SOCKET: started.socket } };
}
