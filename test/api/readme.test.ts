import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { createClient, createIntegrator } from '../../src/auth/auth.service.js';
import { h, unique } from '../support/harness.js';

/** Runs a README block as pasted, but against the test server and a demo client of its own. */
async function runBlock(title: string, demoFile: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const readme = readFileSync('README.md', 'utf8');
  const block = new RegExp(`## ${title}[\\s\\S]*?\`\`\`sh\n([\\s\\S]*?)\`\`\``).exec(readme)?.[1];
  assert.ok(block, `the README has a "${title}" block`);
  assert.match(block, /^BASE=http:\/\/localhost:3000$/m);
  // The webhook receiver's port (4817) becomes a free one: another suite may run at the same time.
  const script = block.replace(/^BASE=.*$/m, `BASE=${h().baseUrl}`).replaceAll('./.data/demo-client.json', demoFile)
    .replaceAll('4817', String(await freePort()));
  // Asynchronously: the server under test runs in this process.
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env: { ...process.env, DATABASE_URL: h().databaseUrl } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

async function demoClientFile(): Promise<string> {
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

describe('README walk-through', () => {
  it('works as pasted (token → register → lookup → search → update → sign ToS), twice in a row', async function () {
    this.timeout(60_000);
    const demo = await demoClientFile();
    for (const round of [1, 2]) {
      const run = await runBlock('Walk-through', demo);
      assert.equal(run.status, 0, run.stderr);
      const outputs = run.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
      assert.equal(outputs.length, 6, `round ${round}: ${run.stdout}`);
      const [registered, lookedUp, found, updated, signed, status] = outputs;
      for (const envelope of [registered, lookedUp, found, updated, signed]) assert.equal(envelope.status, 'Success', JSON.stringify(envelope));
      assert.equal(lookedUp.payload.account_id, registered.payload.account_id);
      assert.equal(found.payload.account_id, registered.payload.account_id);
      assert.ok(updated.payload.external_platforms.steam);
      assert.deepEqual(status, { signed_tos: true });
      await new Promise((r) => setTimeout(r, 1100)); // the walk-through makes names unique by the second
    }
  });

  it('the escrow walk-through works as pasted (pay, commit; pay, cancel; ledger verify)', async function () {
    this.timeout(90_000);
    const run = await runBlock('Escrow walk-through', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n').slice(0, 7), ['ESCROWED', 'COMMITTED', '1200', 'ESCROWED', 'CANCELLED', 'ESCROW_STATE_ERROR', 'USD 15.50']);
    assert.match(run.stdout, /ledger ok/);
  });

  it('the authorized-invoice checkout walk-through works as pasted (authorize, the buyer pays with its password token, commit)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Checkout with an authorized invoice', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['OPEN', 'SUCCESS', 'ESCROWED', 'COMMITTED', '401']);
  });

  it('the client SDK walk-through works as pasted (checkout, history, receipt, payment methods)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Client SDK', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['SUCCESS USD 2.50', '1', 'user_purchase', 'true']);
  });

  it('the blocks, merge and sessions walk-through works as pasted', async function () {
    this.timeout(60_000);
    const run = await runBlock('Blocks, merge and user sessions', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 3), ['SUCCESS', 'publisher', 'true']);
    assert.match(lines[3], /^Account acct_\S+ is blocked\.$/);
    assert.deepEqual(lines.slice(4), ['{}', 'true', 'false', '500', 'merge_account', 'merged-from', 'BLOCK_PERMISSION_ERROR', 'Bearer', 'Bearer']);
  });

  it('the webhooks walk-through works as pasted (register, receive, verify the signature)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Webhooks', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['verified register-account-completed', '204', 'deleted']);
  });
});
