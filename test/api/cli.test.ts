import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { call, dropDatabase, h, holdfastCli, register, scratchDatabase, unique, withDatabase } from '../support/harness.js';

async function databaseExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: withDatabase(h().databaseUrl, 'postgres') });
  await admin.connect();
  try {
    return (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

describe('holdfast CLI', function () {
  this.timeout(120_000);

  it('client create --json prints credentials that obtain a token with those scopes', async () => {
    const integrator = unique('cli-');
    const res = await holdfastCli([
      'client',
      'create',
      '--integrator',
      integrator,
      '--scopes',
      'search_accounts,read_accounts',
      '--tos-signing',
      '--json',
    ]);
    assert.equal(res.status, 0, res.stderr);
    const created = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(created).sort(), ['client_id', 'client_secret', 'integrator', 'scopes']);
    assert.equal(created.integrator, integrator);
    assert.deepEqual(created.scopes, ['search_accounts', 'read_accounts']);
    const token = await call('POST', '/token', {
      body: { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret },
    });
    assert.equal(token.status, 200);
    assert.equal(token.body.scope, 'search_accounts read_accounts');
    const [row] = await h()
      .orm.em.fork()
      .getConnection()
      .execute<Array<{ secret_hash: string; tos_signing: boolean }>>('select secret_hash, tos_signing from client where id = ?', [
        created.client_id,
      ]);
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
    const token = await call('POST', '/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    });
    const account = await register({
      clientId: client.client_id,
      clientSecret: client.client_secret,
      integrator: name,
      token: token.body.access_token,
    });
    const wallets = await h()
      .orm.em.fork()
      .getConnection()
      .execute<Array<{ processing_currency: string }>>(
        `select processing_currency from payment_method where account_id = ? and processing_currency = 'GEM'`,
        [account.account_id],
      );
    assert.equal(wallets.length, 2);
  });

  const failures: Array<[string, string[], RegExp]> = [
    ['an unknown scope', ['client', 'create', '--integrator', 'x', '--scopes', 'nope'], /unknown scope\(s\): nope/],
    ['a missing --integrator', ['client', 'create'], /--integrator NAME is required/],
    [
      'an unknown option',
      ['client', 'create', '--integrator', 'x', '--bogus'],
      /^holdfast: unknown option --bogus \(see holdfast client create --help\)\n$/,
    ],
    [
      'a misspelt option',
      ['client', 'create', '--integrator', 'x', '--scope', 'all'],
      /^holdfast: unknown option --scope; did you mean --scopes\?/,
    ],
    ['a misspelt option of a read-only command', ['ledger', 'verify', '--jsn'], /unknown option --jsn; did you mean --json\?/],
    ['a misspelt command', ['ledger', 'verfy'], /unknown command "ledger verfy"; did you mean "ledger verify"\?/],
    ['an option before the command of a group', ['client', '--integrator', 'x'], /give a command first: holdfast client create/],
    [
      'replaying an event that does not exist',
      ['webhooks', 'replay', '--event', 'evt_nonexistent'],
      /^holdfast: no event "evt_nonexistent"/,
    ],
    [
      'replaying an endpoint that does not exist',
      ['webhooks', 'replay', '--endpoint', 'whk_nonexistent', '--since', '2026-01-01T00:00:00Z'],
      /^holdfast: no webhook endpoint "whk_nonexistent"/,
    ],
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

  it('every command and command group has --help (exit 0, on stdout)', async () => {
    const commands = [
      ['client', 'create'],
      ['integrator', 'create'],
      ['ledger', 'verify'],
      ['migrate'],
      ['tos', 'publish'],
      ['webhooks', 'replay'],
    ];
    const all = [...commands, ['client'], ['integrator'], ['ledger'], ['tos'], ['webhooks'], []];
    const results: Array<Awaited<ReturnType<typeof holdfastCli>>> = [];
    for (const cmd of all) results.push(await holdfastCli([...cmd, '--help']));
    for (const [i, cmd] of all.entries()) {
      const res = results[i];
      assert.equal(res.status, 0, `${cmd.join(' ')}: ${res.stderr}`);
      assert.equal(res.stderr, '');
      assert.match(res.stdout, new RegExp(`^holdfast ${cmd.join(' ')}`));
    }
    const group = results[all.findIndex((cmd) => cmd.join(' ') === 'client')];
    assert.match(group.stdout, /holdfast client create --integrator NAME/);
    assert.match(group.stdout, /--scopes/);
  });

  it('bare holdfast, or a group without its command, prints the help on stderr and exits 2', async () => {
    const bare = await holdfastCli([]);
    assert.equal(bare.status, 2);
    assert.equal(bare.stdout, '');
    assert.match(bare.stderr, /^holdfast <command> \[options\]/);
    assert.match(bare.stderr, /ledger verify/);
    const group = await holdfastCli(['webhooks']);
    assert.equal(group.status, 2);
    assert.equal((await holdfastCli(['client', 'create', '--scope', 'all'])).status, 2, 'a usage mistake exits 2');
    assert.match(group.stderr, /^holdfast webhooks <command>\n\nholdfast webhooks replay/);
  });

  it('read-only commands never create a database: a missing one is one line naming it and DATABASE_URL', async () => {
    const name = scratchDatabase('cli_missing');
    for (const args of [
      ['ledger', 'verify'],
      ['webhooks', 'replay', '--event', 'evt_x'],
    ]) {
      const res = await holdfastCli(args, { DATABASE_URL: withDatabase(h().databaseUrl, name) });
      assert.equal(res.status, 1, res.stderr);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(
        res.stderr,
        new RegExp(
          `^holdfast: database "${name}" does not exist on .* \\(DATABASE_URL\\); holdfast ${args.slice(0, 2).join(' ')} never creates or migrates a database: run holdfast migrate first\n$`,
        ),
      );
      assert.equal(await databaseExists(name), false, `${args.join(' ')} created the database`);
    }
  });

  it('read-only commands never migrate: a database without the migrations is one line, left as it was', async () => {
    const name = scratchDatabase('cli_unmigrated');
    const url = withDatabase(h().databaseUrl, name);
    const admin = new pg.Client({ connectionString: withDatabase(h().databaseUrl, 'postgres') });
    await admin.connect();
    await admin.query(`create database "${name}"`).finally(() => admin.end());
    try {
      const res = await holdfastCli(['ledger', 'verify'], { DATABASE_URL: url });
      assert.equal(res.status, 1, res.stderr);
      assert.match(
        res.stderr,
        new RegExp(
          `^holdfast: database "${name}" \\(DATABASE_URL\\) lacks \\d+ migrations; holdfast ledger verify never creates or migrates`,
        ),
      );
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      const tables = await db
        .query(`select table_name from information_schema.tables where table_schema = 'public'`)
        .finally(() => db.end());
      assert.deepEqual(tables.rows, [], 'no table was made');
    } finally {
      await dropDatabase(name);
    }
  });

  it('commands that write still create and migrate a missing database', async () => {
    const name = scratchDatabase('cli_write');
    try {
      const res = await holdfastCli(['integrator', 'create', unique('fresh-'), '--json'], {
        DATABASE_URL: withDatabase(h().databaseUrl, name),
      });
      assert.equal(res.status, 0, res.stderr);
      const verify = await holdfastCli(['ledger', 'verify'], { DATABASE_URL: withDatabase(h().databaseUrl, name) });
      assert.equal(verify.status, 0, verify.stderr);
      assert.match(verify.stdout, /^ledger ok/);
    } finally {
      await dropDatabase(name);
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
