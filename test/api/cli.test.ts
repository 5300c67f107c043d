import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, h, holdfastCli, register, unique } from '../support/harness.js';

describe('holdfast CLI', function () {
  this.timeout(120_000);

  it('client create --json prints credentials that obtain a token with those scopes', async () => {
    const integrator = unique('cli-');
    const res = await holdfastCli(['client', 'create', '--integrator', integrator, '--scopes', 'search_accounts,read_accounts', '--tos-signing', '--json']);
    assert.equal(res.status, 0, res.stderr);
    const created = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(created).sort(), ['client_id', 'client_secret', 'integrator', 'scopes']);
    assert.equal(created.integrator, integrator);
    assert.deepEqual(created.scopes, ['search_accounts', 'read_accounts']);
    const token = await call('POST', '/token', { body: { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret } });
    assert.equal(token.status, 200);
    assert.equal(token.body.scope, 'search_accounts read_accounts');
    const [row] = await h().orm.em.fork().getConnection().execute<Array<{ secret_hash: string; tos_signing: boolean }>>('select secret_hash, tos_signing from client where id = ?', [created.client_id]);
    assert.notEqual(row.secret_hash, created.client_secret, 'only a hash is stored');
    assert.equal(row.secret_hash.includes(created.client_secret), false);
    assert.equal(row.tos_signing, true);
  });

  it('client create --scopes all grants every scope', async () => {
    const res = await holdfastCli(['client', 'create', '--integrator', unique('cli-'), '--scopes', 'all', '--json']);
    assert.equal(JSON.parse(res.stdout).scopes.length, 16);
  });

  it('integrator create with a token currency gives its accounts token wallets', async () => {
    const name = unique('cli-tok-');
    const res = await holdfastCli(['integrator', 'create', name, '--token-currency', 'GEM', '--tokens-per-usd', '250', '--json']);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(JSON.parse(res.stdout).token_currency, 'GEM');
    const client = JSON.parse((await holdfastCli(['client', 'create', '--integrator', name, '--json'])).stdout);
    const token = await call('POST', '/token', { body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret } });
    const account = await register({ clientId: client.client_id, clientSecret: client.client_secret, integrator: name, token: token.body.access_token });
    const wallets = await h().orm.em.fork().getConnection().execute<Array<{ processing_currency: string }>>(`select processing_currency from payment_method where account_id = ? and processing_currency = 'GEM'`, [account.account_id]);
    assert.equal(wallets.length, 2);
  });

  const failures: Array<[string, string[], RegExp]> = [
    ['an unknown scope', ['client', 'create', '--integrator', 'x', '--scopes', 'nope'], /unknown scope\(s\): nope/],
    ['a missing --integrator', ['client', 'create'], /--integrator NAME is required/],
    ['an unknown option', ['client', 'create', '--integrator', 'x', '--bogus'], /bogus/],
    ['a token currency without a rate', ['integrator', 'create', 'x', '--token-currency', 'GEM'], /go together/],
    ['a malformed token currency', ['integrator', 'create', 'x', '--token-currency', 'gems', '--tokens-per-usd', '1'], /3 capital letters/],
    ['an unknown command', ['frobnicate'], /unknown command/],
    ['a missing ToS file', ['tos', 'publish', '--file', '/nonexistent/tos.txt'], /cannot read/],
  ];
  for (const [what, args, message] of failures) {
    it(`fails with one clear line and a non-zero exit for ${what}`, async () => {
      const res = await holdfastCli(args);
      assert.notEqual(res.status, 0);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, message);
    });
  }

  it('a taken integrator name fails with one line', async () => {
    const name = unique('dup-');
    await holdfastCli(['integrator', 'create', name]);
    const res = await holdfastCli(['integrator', 'create', name]);
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /already exists/);
  });

  it('every subcommand has --help', async () => {
    for (const cmd of [['client', 'create'], ['integrator', 'create'], ['migrate'], ['tos', 'publish'], []]) {
      const res = await holdfastCli([...cmd, '--help']);
      assert.equal(res.status, 0);
      assert.match(res.stdout, /holdfast/);
    }
  });

  it('tos publish makes a new current version', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tos-'));
    const file = path.join(dir, 'tos.md');
    const text = `Terms ${unique('t')}`;
    writeFileSync(file, text);
    const res = await holdfastCli(['tos', 'publish', '--file', file, '--json']);
    assert.equal(res.status, 0, res.stderr);
    const current = await call('GET', '/v1/tos');
    assert.equal(current.body.content, text);
    assert.equal(current.body.tos_version, JSON.parse(res.stdout).tos_version);
  });

  it('migrate reports the database up to date', async () => {
    const res = await holdfastCli(['migrate']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /up to date/);
  });
});
