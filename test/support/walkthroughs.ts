/**
 * Runs the walk-throughs of README.md and docs/ as pasted: the `sh` block under a heading, with
 * only `BASE`, the demo client's file and the webhook receiver's port (4817) replaced, in bash in
 * the project folder (so `npx holdfast` is this checkout's). By default against the suite's
 * server and database; a test that runs Holdfast as a process of its own passes its base URL and
 * variables (the `holdfast` command in the block reads them as the process does).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { createClient } from '../../src/auth/auth.service.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { cliShim } from './cli-server.js';
import { h, PROCESS_VARIABLES, unique } from './harness.js';

export const WALKTHROUGHS = 'docs/walkthroughs.md';

/** The first `sh` block after the heading `## <title>` (or `### <title>`) of a Markdown file. */
export function shBlock(file: string, title: string): string {
  const text = readFileSync(file, 'utf8');
  const heading = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const block = new RegExp(`^###? ${heading}\\n[\\s\\S]*?\`\`\`sh\\n([\\s\\S]*?)\`\`\``, 'm').exec(text)?.[1];
  assert.ok(block, `${file} has a "${title}" block`);
  assert.match(block, /^BASE=http:\/\/localhost:3000$/m);
  return block;
}

/** Every `sh` block of the section under the heading `## <title>`, up to the next `## ` heading. */
export function shBlocks(file: string, title: string): string[] {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `${file} has a "${title}" section`);
  const rest = text.slice(start + 1);
  const next = rest.indexOf('\n## ', 3);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

export interface RunOptions {
  /** The Markdown file (default docs/walkthroughs.md). */
  file?: string;
  /** The script to run instead of the section's first block (a later block of it, say). */
  block?: string;
  /** Appends commands to the block (or changes it) before it runs. */
  extend?: (block: string) => string;
  /** The server the block talks to (default the suite's). */
  baseUrl?: string;
  /** Variables for the block's shell (default: DATABASE_URL of the suite's database). */
  env?: Record<string, string>;
  /** How long the block may take before it is killed (default 85 s). */
  limitMs?: number;
  /**
   * `npx holdfast` as a process of its own (README.md's blocks always): otherwise the suite
   * answers it in its own process through an `npx` shim (cli-server.ts), the same dispatcher.
   */
  realNpx?: boolean;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a walk-through block as pasted (README.md's, or one of docs/), against the test server
 * (or `opts.baseUrl`) and the demo client in `demoFile`; `extend` may append commands to it.
 */
export async function runBlock(title: string, demoFile: string, opts: RunOptions = {}): Promise<RunResult> {
  const block = opts.block ?? shBlock(opts.file ?? WALKTHROUGHS, title);
  const pasted = opts.extend ? opts.extend(block) : block;
  // The webhook receiver's port (4817) becomes a free one: another suite may run at the same time.
  const script = pasted
    .replace(/^BASE=.*$/m, `BASE=${opts.baseUrl ?? h().baseUrl}`)
    .replaceAll('./.data/demo-client.json', demoFile)
    .replaceAll('4817', String(await freePort()));
  const env: NodeJS.ProcessEnv = { ...process.env, ...(opts.env ?? { DATABASE_URL: h().databaseUrl }) };
  // A block given a variable only a new process reads (Node's trusted certificates, failpoints) needs the real command.
  const processOnly = PROCESS_VARIABLES.some((name) => opts.env?.[name] !== undefined);
  if (!(opts.realNpx ?? (opts.file === 'README.md' || processOnly))) {
    const shim = await cliShim();
    Object.assign(env, shim.env, { PATH: `${shim.dir}${path.delimiter}${env.PATH ?? ''}` });
  }
  // Asynchronously: the server under test may run in this process.
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      env,
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // A block that hangs (a receiver waiting for a webhook that never comes) is killed with what it started.
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${opts.limitMs ?? 85_000} ms)`;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, opts.limitMs ?? 85_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      })
      .on('error', reject);
  });
}

/** A demo client of the suite's database as `npm start` makes one, in a `.data/demo-client.json` of its own. */
export async function demoClientFile(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'walk-'));
  mkdirSync(path.join(dir, '.data'));
  // As `npm start` makes it: a token currency (GEM, 100 per USD) and the can-unblock licence.
  const integrator = unique('demo-');
  await createIntegrator(h().orm.em.fork(), { name: integrator, tokenCurrency: 'GEM', tokensPerUsd: 100 });
  const demo = await createClient(h().orm.em.fork(), { integrator, scopes: [...ALL_SCOPES], canUnblock: true, tosSigning: true });
  const file = path.join(dir, '.data', 'demo-client.json');
  writeFileSync(file, JSON.stringify(demo));
  return file;
}
