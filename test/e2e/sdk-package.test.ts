/**
 * The SDK as integrators get it: `npm pack` in packages/sdk (which builds it), the tarball
 * installed into an empty project outside the repository, and a walk-through against the suite's
 * Holdfast run there with `@holdfast/sdk/server`, once as an ES module and once as CommonJS.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { h, newClient, type TestClient } from '../support/harness.js';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('../../packages/sdk/', import.meta.url));

/**
 * The walk-through, the same in both module systems; `LOAD` is how the script gets the SDK. It
 * prints one JSON line per step, which the test checks.
 */
const WALK = `LOAD
const http = require_('node:http');
const t0 = Date.now();
const out = (step, value) => console.log(JSON.stringify({ step, value, ms: Date.now() - t0 }));
const fail = (err) => { console.error(err); process.exit(1); };

(async () => {
  const hf = new HoldfastServer({ baseUrl: process.env.BASE, clientId: process.env.CLIENT_ID, clientSecret: process.env.CLIENT_SECRET });
  const token = await hf.accessToken();
  out('token', { cached: token === (await hf.accessToken()), jwt: token.split('.').length === 3 });

  // a receiver for one webhook delivery
  let delivered;
  const arrived = new Promise((resolve) => (delivered = resolve));
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d)).on('end', () => {
      res.writeHead(204).end();
      delivered({ headers: req.headers, body });
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = await hf.createWebhook({
    body: { url: 'http://127.0.0.1:' + receiver.address().port + '/hooks', events: ['register-account-completed'] },
  });

  const n = Date.now() + '-' + process.pid;
  const buyer = await hf.registerAccount({ body: { username: 'sdk-buyer-' + n, email: { address: 'sdk-buyer-' + n + '@example.com' } } });
  const seller = await hf.registerAccount({ body: { username: 'sdk-seller-' + n, email: { address: 'sdk-seller-' + n + '@example.com' } } });
  const card = await hf.addPaymentMethod({
    path: { account_id: buyer.account_id },
    body: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' } },
  });
  const sellerWallet = (await hf.listPaymentMethods({ path: { account_id: seller.account_id } }))[0].provider_data.wallet_id;
  const escrow = await hf.createEscrow({
    body: {
      account_id: buyer.account_id, reference_type: 'order', reference_id: n,
      payment_methods: [{ payment_method_id: card.id, amount: 0 }],
      line_items: [{ amount: 1550, currency: 'USD', transaction_type: 'user_to_user', product_sku: 'sword-1',
        recipients: [{ amount: 1200, currency: 'USD', destination_wallet_id: sellerWallet }] }],
    },
  });
  const paid = await hf.request('payEscrow', { path: { escrow_id: escrow.id } }, { idempotencyKey: 'pay-' + escrow.id });
  const replay = await hf.request('payEscrow', { path: { escrow_id: escrow.id } }, { idempotencyKey: 'pay-' + escrow.id });
  const committed = await hf.commitEscrow({ path: { escrow_id: escrow.id } });
  out('escrow', { paid: paid.payload.status, replayed: replay.headers.get('idempotent-replayed'), committed: committed.status });
  const sellerBalance = (await hf.listPaymentMethods({ path: { account_id: seller.account_id } }))[0].wallet_balance;
  out('seller', sellerBalance);

  const offsetPaged = [];
  for await (const invoice of hf.paginate('listAccountInvoices', { path: { account_id: buyer.account_id }, query: { limit: 1 } }))
    offsetPaged.push(invoice.invoice_id);
  const cursorPaged = [];
  for await (const invoice of hf.paginate('listInvoices', { path: { account_id: buyer.account_id }, query: { limit: 1 } }))
    cursorPaged.push(invoice.invoice_id);
  out('pages', { offset: offsetPaged.length, cursor: cursorPaged.length, same: offsetPaged.join() === cursorPaged.join() });

  const file = await hf.exportRows({ path: { kind: 'invoices' }, query: { account_id: buyer.account_id } });
  const csv = await file.text();
  out('export', { type: file.contentType, header: csv.split('\\r\\n')[0].split(',').slice(0, 3), rows: csv.trim().split('\\r\\n').length - 1 });

  let timer;
  const delivery = await Promise.race([arrived, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no webhook delivery')), 15000)))]);
  clearTimeout(timer);
  receiver.close();
  receiver.closeAllConnections();
  const event = verifyWebhook({ secret: hook.secret, headers: delivery.headers, body: delivery.body });
  const tampered = isValidWebhook({ secret: hook.secret, headers: delivery.headers, body: delivery.body.replace('}', ',"x":1}') });
  const stale = isValidWebhook({ secret: hook.secret, headers: delivery.headers, body: delivery.body, now: Date.now() + 3600000 });
  out('webhook', { event: event.event_name, tampered, stale });
  await hf.deleteWebhook({ path: { webhook_id: hook.id } });

  try {
    await hf.registerAccount({ body: { username: 'sdk-bad-' + n, email: { address: 'not an address' }, colour: 'red' } });
    out('error', 'no error');
  } catch (err) {
    out('error', { typed: err instanceof HoldfastError, status: err.status, code: err.code, fields: err.fields });
  }
})().catch(fail);
`;

const SCRIPTS = {
  'walk.mjs': WALK.replace(
    'LOAD',
    "import { createRequire } from 'node:module';\nimport { HoldfastServer, HoldfastError, verifyWebhook, isValidWebhook } from '@holdfast/sdk/server';\nimport { HoldfastSdk } from '@holdfast/sdk';\nconst require_ = createRequire(import.meta.url);\nif (typeof HoldfastSdk !== 'function') throw new Error('no client entry');",
  ),
  'walk.cjs': WALK.replace(
    'LOAD',
    "const { HoldfastServer, HoldfastError, verifyWebhook, isValidWebhook } = require('@holdfast/sdk/server');\nconst { HoldfastSdk } = require('@holdfast/sdk');\nconst require_ = require;\nif (typeof HoldfastSdk !== 'function') throw new Error('no client entry');",
  ),
};

/** Runs a script asynchronously (the server under test runs in this process). */
function node(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('@holdfast/sdk packed, installed in an empty project, run in ESM and CommonJS', function () {
  this.timeout(120_000);
  let project: string;
  let tarball: string;
  let client: TestClient;

  before(async () => {
    project = mkdtempSync(path.join(tmpdir(), 'holdfast-sdk-'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: PACKAGE_DIR, maxBuffer: 16 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    tarball = path.join(project, info.filename);
    const files = info.files.map((f) => f.path);
    assert.ok(files.includes('dist/esm/server.js') && files.includes('dist/cjs/server.js') && files.includes('README.md'), files.join(' '));
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('scripts/')), 'only the build, the README and the CHANGELOG');
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-walk', version: '1.0.0', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: project });
    for (const [name, text] of Object.entries(SCRIPTS)) writeFileSync(path.join(project, name), text);
    client = await newClient();
  });
  after(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('installs with no dependency of its own, outside the repository', () => {
    assert.ok(
      path.relative(fileURLToPath(new URL('../..', import.meta.url)), project).startsWith('..'),
      'the project is outside the repository',
    );
    assert.ok(statSync(tarball).size < 512 * 1024, `the tarball is ${statSync(tarball).size} bytes`);
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/@holdfast/sdk/package.json'), 'utf8'));
    assert.equal(installed.name, '@holdfast/sdk');
    assert.equal(installed.dependencies, undefined);
    const lock = JSON.parse(readFileSync(path.join(project, 'package-lock.json'), 'utf8'));
    assert.deepEqual(Object.keys(lock.packages).sort(), ['', 'node_modules/@holdfast/sdk']);
  });

  for (const script of Object.keys(SCRIPTS)) {
    it(`${script}: token, accounts, escrow paid and committed, pages, export, webhook verified, a typed error`, async () => {
      const result = await node(script, project, { BASE: h().baseUrl, CLIENT_ID: client.clientId, CLIENT_SECRET: client.clientSecret });
      assert.equal(result.status, 0, `${result.stderr}\n${result.stdout}`);
      const steps = Object.fromEntries(
        result.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { step: string; value: any })
          .map(({ step, value }) => [step, value]),
      );
      assert.deepEqual(steps.token, { cached: true, jwt: true });
      assert.deepEqual(steps.escrow, { paid: 'ESCROWED', replayed: 'true', committed: 'COMMITTED' });
      assert.equal(String(steps.seller), '1200');
      assert.equal(steps.pages.offset, steps.pages.cursor);
      assert.ok(steps.pages.offset >= 2, `one invoice a page, several pages: ${JSON.stringify(steps.pages)}`);
      assert.equal(steps.pages.same, true);
      assert.match(steps.export.type, /^text\/csv/);
      assert.deepEqual(steps.export.header, ['invoice_id', 'created_at', 'updated_at']);
      assert.equal(steps.export.rows, steps.pages.offset);
      assert.deepEqual(steps.webhook, { event: 'register-account-completed', tampered: false, stale: false });
      assert.deepEqual(steps.error, {
        typed: true,
        status: 400,
        code: 'INPUT_ERROR',
        fields: { colour: ['UNKNOWN_FIELD'], 'email.address': ['INVALID_FORMAT'] },
      });
    });
  }
});
