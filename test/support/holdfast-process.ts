/**
 * Holdfast as a separate process, as `npm start` runs it: each in a folder of its own (its .data/
 * stays there, removed at the end of the run), SIGKILLed if it overstays.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_QUEUE_PREFIX, unique } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = import.meta.resolve('tsx');
/** The folders the servers ran in, removed by `removeFolders`. */
const folders: string[] = [];

/** Removes the folders the servers of this run ran in. */
export function removeFolders(): void {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

export interface Started {
  /** The folder it runs in (its .data/). */
  cwd: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed). */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** `npm start` with the given environment, in a folder of its own; SIGKILLed after `limitMs`. */
export function startHoldfast(env: Record<string, string>, limitMs = 90_000): Started {
  const cwd = mkdtempSync(path.join(tmpdir(), 'holdfast-start-'));
  folders.push(cwd);
  const child = spawn(
    process.execPath,
    ['--import', TSX, '--import', path.join(ROOT, 'src/runtime/tracing-register.ts'), path.join(ROOT, 'src/server.ts')],
    {
      cwd,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: path.join(ROOT, 'tsconfig.json'),
        LOG_LEVEL: 'warn',
        QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-${unique('start')}`,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return {
    cwd,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop() {
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
      if (code !== 'hung') return code;
      child.kill('SIGKILL');
      return exited;
    },
  };
}

export async function until<T>(what: string, probe: () => T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
