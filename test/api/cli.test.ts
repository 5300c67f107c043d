import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import pg from 'pg';
import {
  TEST_QUEUE_PREFIX,
  call,
  dropDatabase,
  h,
  holdfastCli,
  loadSigner,
  newClient,
  register,
  scratchDatabase,
  startExtraApp,
  unique,
  withDatabase,
} from '../support/harness.js';
import { createClient, revokeClient, TokenSigner } from '../../src/auth/auth.service.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { fundIntegrator } from '../../src/payment-methods/integrator-wallet.service.js';

async function databaseExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: withDatabase(h().databaseUrl, 'postgres') });
  await admin.connect();
  try {
    return (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

/** The CLI on the suite's Redis and queue prefix, so web processes hear what it announces. */
const withRedis = () => ({ REDIS_URL: h().redisUrl, QUEUE_PREFIX: TEST_QUEUE_PREFIX });

/** A client-credentials token request (the status and body). */
const clientToken = (clientId: string, clientSecret: string) =>
  call('POST', '/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });

/** The `kid` in a JWT's header. */
const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid as string;

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

  it('client create names on stderr the integrator it had to create, and says nothing of an existing one', async () => {
    const name = unique('cli-new-');
    const first = await holdfastCli(['client', 'create', '--integrator', name, '--json']);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stderr, `holdfast: created integrator "${name}" (no token currency)\n`);
    assert.equal(first.stdout.trim().split('\n').length, 1, 'stdout stays one JSON line');
    assert.equal(JSON.parse(first.stdout).integrator, name);
    const again = await holdfastCli(['client', 'create', '--integrator', name]);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stderr, '', 'the integrator exists now');
    assert.match(again.stdout, new RegExp(`^integrator=${name}$`, 'm'));
  });

  it('client create --scopes all grants every scope', async () => {
    const res = await holdfastCli(['client', 'create', '--integrator', unique('cli-'), '--scopes', 'all', '--json']);
    assert.deepEqual(JSON.parse(res.stdout).scopes, [...ALL_SCOPES]);
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
    ['a token currency without a rate', ['integrator', 'create', 'x', '--token-currency', 'GEM'], /go together/],
    ['a malformed token currency', ['integrator', 'create', 'x', '--token-currency', 'gems', '--tokens-per-usd', '1'], /3 capital letters/],
    ['an unknown command', ['frobnicate'], /unknown command/],
    ['a missing ToS file', ['tos', 'publish', '--file', '/nonexistent/tos.txt'], /cannot read/],
    ['revoking without a client ID', ['client', 'revoke'], /give exactly one client ID/],
    ['a grace period out of range', ['client', 'rotate-secret', 'cli_x', '--grace-hours', '169'], /--grace-hours must be/],
    ['an argument keys rotate does not take', ['keys', 'rotate', 'now'], /unexpected argument "now"/],
    ['funding without --amount', ['integrator', 'fund', 'x', '--currency', 'USD'], /--amount N is required: a positive whole number/],
    [
      'funding a zero amount',
      ['integrator', 'fund', 'x', '--currency', 'USD', '--amount', '0'],
      /--amount N is required: a positive whole number/,
    ],
    ['funding a fractional amount', ['integrator', 'fund', 'x', '--currency', 'USD', '--amount', '12.50'], /--amount N is required/],
    ['funding a negative amount', ['integrator', 'fund', 'x', '--currency', 'USD', '--amount=-5'], /--amount N is required/],
    ['funding without --currency', ['integrator', 'fund', 'x', '--amount', '5'], /--currency CODE is required/],
  ];
  for (const [what, args, message] of failures) {
    it(`fails with one clear line and a non-zero exit for ${what}`, async () => {
      const res = await holdfastCli(args);
      assert.notEqual(res.status, 0);
      assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, message);
    });
  }

  // Each kind of thing a command looks up, its missing id, where to find a right one, and every command that looks one up.
  const missing: Array<[kind: string, id: string, hint: string, commands: string[][]]> = [
    [
      'client',
      'cli_nonexistent',
      'holdfast client list shows every client_id',
      [
        ['client', 'revoke', 'cli_nonexistent'],
        ['client', 'rotate-secret', 'cli_nonexistent'],
      ],
    ],
    [
      'integrator',
      'int_nonexistent',
      'a name or id; holdfast integrator list shows them',
      [
        ['integrator', 'update', 'int_nonexistent', '--payout-open-limit', '3'],
        ['integrator', 'fund', 'int_nonexistent', '--currency', 'USD', '--amount', '1', '--reason', 'test'],
        ['integrator', 'show', 'int_nonexistent'],
        ['client', 'list', '--integrator', 'int_nonexistent'],
      ],
    ],
    [
      'account',
      'acc_nonexistent',
      'an account_id',
      [
        ['kyc', 'decide', 'acc_nonexistent', '--state', 'ACCEPT', '--reason', 'test'],
        ['kyc', 'reopen', 'acc_nonexistent', '--reason', 'checked again'],
      ],
    ],
    [
      'payout',
      'pay_nonexistent',
      'a payout_status_id',
      [
        ['payouts', 'approve', 'pay_nonexistent', '--reason', 'test'],
        ['payouts', 'reject', 'pay_nonexistent', '--reason', 'test'],
      ],
    ],
    ['event', 'evt_nonexistent', `the "id" field of a webhook's body`, [['webhooks', 'replay', '--event', 'evt_nonexistent']]],
    [
      'webhook endpoint',
      'whk_nonexistent',
      "GET /v2/webhooks lists an integrator's",
      [['webhooks', 'replay', '--endpoint', 'whk_nonexistent', '--since', '2026-01-01T00:00:00Z']],
    ],
  ];
  for (const [kind, id, hint, commands] of missing) {
    it(`says a missing ${kind} the one way: holdfast: no ${kind} "ID" (where to find one), exit 1`, async () => {
      for (const args of commands) {
        const res = await holdfastCli(args);
        assert.equal(res.status, 1, `${args.join(' ')}: ${res.stderr}`);
        assert.equal(res.stdout, '');
        assert.equal(res.stderr, `holdfast: no ${kind} "${id}" (${hint})\n`, args.join(' '));
      }
    });
  }

  it('a taken integrator name fails with one line', async () => {
    const name = unique('dup-');
    await holdfastCli(['integrator', 'create', name]);
    const res = await holdfastCli(['integrator', 'create', name]);
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /already exists/);
  });

  it('every command and command group has --help (exit 0, on stdout)', async function () {
    this.timeout(120_000);
    const commands = [
      ['audit', 'list'],
      ['audit', 'verify'],
      ['client', 'create'],
      ['client', 'list'],
      ['client', 'revoke'],
      ['client', 'rotate-secret'],
      ['keys', 'rotate'],
      ['integrator', 'create'],
      ['integrator', 'fund'],
      ['integrator', 'list'],
      ['integrator', 'show'],
      ['integrator', 'update'],
      ['kyc', 'decide'],
      ['kyc', 'erase'],
      ['kyc', 'reopen'],
      ['ledger', 'verify'],
      ['migrate'],
      ['payouts', 'approve'],
      ['payouts', 'reject'],
      ['provider-events', 'list'],
      ['provider-events', 'replay'],
      ['tos', 'publish'],
      ['webhooks', 'replay'],
    ];
    // Each group's help, a command of a group's and a lone command's, and the overview: a group's
    // help is every usage of its commands, so each command's usage is checked there too. (Each
    // run is a Node process starting tsx: one per command would take half a minute.)
    const groupsOf = [...new Set(commands.filter((cmd) => cmd.length === 2).map((cmd) => cmd[0]))];
    const all = [...groupsOf.map((g) => [g]), ['client', 'create'], ['migrate'], []];
    const results: Array<Awaited<ReturnType<typeof holdfastCli>>> = [];
    for (let i = 0; i < all.length; i += 4) {
      results.push(...(await Promise.all(all.slice(i, i + 4).map((cmd) => holdfastCli([...cmd, '--help'])))));
    }
    for (const [i, cmd] of all.entries()) {
      const res = results[i];
      assert.equal(res.status, 0, `${cmd.join(' ')}: ${res.stderr}`);
      assert.equal(res.stderr, '');
      assert.match(res.stdout, new RegExp(`^holdfast ${cmd.join(' ')}`));
    }
    const helpOf = (words: string[]) => results[all.findIndex((cmd) => cmd.join(' ') === words.join(' '))].stdout;
    for (const cmd of commands.filter((c) => c.length === 2)) {
      assert.match(helpOf([cmd[0]]), new RegExp(`^holdfast ${cmd.join(' ')}`, 'm'), `${cmd.join(' ')}'s usage in its group's help`);
    }
    assert.match(helpOf(['client']), /--scopes/);
    assert.match(helpOf(['client', 'create']), /holdfast client create --integrator NAME/);
    // The overview lists every command.
    const overview = helpOf([]);
    for (const cmd of commands) assert.match(overview, new RegExp(`^  ${cmd.join(' ')} +\\S`, 'm'), cmd.join(' '));
  });

  it('bare holdfast, or a group without its command, prints the help on stderr and exits 2 (as a process too)', async () => {
    // As a process: bin/holdfast.js exits with the command line's code, its output on the right stream.
    const bare = await holdfastCli([], {}, { process: true });
    assert.equal(bare.status, 2);
    assert.equal(bare.stdout, '');
    assert.match(bare.stderr, /^holdfast <command> \[options\]/);
    assert.match(bare.stderr, /ledger verify/);
    const group = await holdfastCli(['webhooks']);
    assert.equal(group.status, 2);
    assert.equal((await holdfastCli(['client', 'create', '--scope', 'all'])).status, 2, 'a usage mistake exits 2');
    const help = await holdfastCli(['--help'], {}, { process: true });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^holdfast <command> \[options\]/);
    const missing = await holdfastCli(['payouts', 'approve', 'po_00000000000000000000000000', '--reason', 'x'], {}, { process: true });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^holdfast: no payout "po_0+" /);
    assert.match(group.stderr, /^holdfast webhooks <command>\n\nholdfast webhooks replay/);
  });

  it('read-only commands never create a database: a missing one is one line naming it and DATABASE_URL', async () => {
    const name = scratchDatabase('cli_missing');
    for (const args of [
      ['ledger', 'verify'],
      ['webhooks', 'replay', '--event', 'evt_x'],
      ['integrator', 'list'],
      ['client', 'list', '--json'],
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

  describe('credential lifecycle', () => {
    /** A second web process: its own signer, hearing changes over Redis. */
    let other: { signer: TokenSigner; app: Awaited<ReturnType<typeof startExtraApp>> };
    before(async () => {
      const signer = await loadSigner(h().orm, h().redisUrl, h().redis);
      await signer.heardOthers();
      other = { signer, app: await startExtraApp({ signer }) };
    });
    after(async () => {
      await other.app.close();
      await other.signer.close();
    });

    it('client revoke: no new token, and its client tokens and the user tokens it minted stop working on every web process', async () => {
      const client = await newClient();
      const account = (await register(client)).account_id;
      const opened = await call('POST', '/authorize/user', { token: client.token, body: { account_id: account, return_token: true } });
      const user = opened.body.payload.token as { access_token: string; refresh_token: string };
      const reads = [
        { path: `/v1/user-info/${account}`, token: client.token },
        { path: `/v1/${account}/payment_methods`, token: user.access_token },
      ];
      for (const baseUrl of [h().baseUrl, other.app.baseUrl])
        for (const { path, token } of reads) assert.equal((await call('GET', path, { token, baseUrl })).status, 200);

      const res = await holdfastCli(['client', 'revoke', client.clientId, '--json'], withRedis());
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stderr, '');
      const out = JSON.parse(res.stdout);
      assert.equal(out.client_id, client.clientId);
      assert.equal(out.already_revoked, false);

      for (const baseUrl of [h().baseUrl, other.app.baseUrl]) {
        for (const { path, token } of reads) {
          const refused = await call('GET', path, { token, baseUrl });
          assert.equal(refused.status, 401, `${baseUrl}${path}: ${refused.text}`);
          assert.match(refused.body.message[0], /revoked/);
        }
      }
      const token = await clientToken(client.clientId, client.clientSecret);
      assert.equal(token.status, 401);
      assert.equal(token.body.error, 'invalid_client');
      const refreshed = await call('POST', '/token', { body: { grant_type: 'refresh_token', refresh_token: user.refresh_token } });
      assert.equal(refreshed.body.error, 'invalid_grant');

      const again = await holdfastCli(['client', 'revoke', client.clientId], withRedis());
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stdout, /already revoked/);
      const rotate = await holdfastCli(['client', 'rotate-secret', client.clientId], withRedis());
      assert.equal(rotate.status, 1);
      assert.equal(rotate.stderr, `holdfast: client ${client.clientId} is revoked\n`);
    });

    it('client rotate-secret: the new secret works, the old one only within its grace', async () => {
      const client = await newClient();
      const res = await holdfastCli(['client', 'rotate-secret', client.clientId, '--json']);
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout.trim().split('\n').length, 1, 'one JSON line');
      const rotated = JSON.parse(res.stdout);
      assert.deepEqual(Object.keys(rotated).sort(), ['client_id', 'client_secret']);
      assert.equal(rotated.client_id, client.clientId);
      assert.notEqual(rotated.client_secret, client.clientSecret);
      assert.equal((await clientToken(client.clientId, rotated.client_secret)).status, 200);
      assert.equal((await clientToken(client.clientId, client.clientSecret)).status, 200, 'the old secret works within the grace');
      const [row] = await h()
        .orm.em.fork()
        .execute<Array<{ hours: number }>>(
          'select extract(epoch from previous_secret_expires_at - now()) / 3600 as hours from client where id = ?',
          [client.clientId],
        );
      assert.ok(Number(row.hours) > 23.9 && Number(row.hours) <= 24, `grace of ${row.hours} h`);

      // The grace ends.
      await h()
        .orm.em.fork()
        .execute(`update client set previous_secret_expires_at = now() - interval '1 second' where id = ?`, [client.clientId]);
      const late = await clientToken(client.clientId, client.clientSecret);
      assert.equal(late.status, 401);
      assert.equal(late.body.error, 'invalid_client');
      assert.equal((await clientToken(client.clientId, rotated.client_secret)).status, 200);

      // Without a grace, and in text: the secret it replaces stops at once.
      const text = await holdfastCli(['client', 'rotate-secret', client.clientId, '--grace-hours', '0']);
      assert.equal(text.status, 0, text.stderr);
      const secret = /^client_secret=(hfs_\S+)$/m.exec(text.stdout)?.[1];
      assert.ok(secret, text.stdout);
      assert.match(text.stdout, new RegExp(`^client_id=${client.clientId}$`, 'm'));
      assert.equal((await clientToken(client.clientId, rotated.client_secret)).status, 401);
      assert.equal((await clientToken(client.clientId, secret)).status, 200);
    });

    it('keys rotate: new tokens carry the new kid, older ones still verify, and every web process accepts both', async () => {
      const client = await newClient();
      const account = (await register(client)).account_id;
      const before = client.token;
      // A process that hears nothing: it learns the new key from the first token that names it.
      const deaf = await TokenSigner.load(h().orm.em.fork());
      const lone = await startExtraApp({ signer: deaf });
      try {
        const res = await holdfastCli(['keys', 'rotate', '--json'], withRedis());
        assert.equal(res.status, 0, res.stderr);
        const rotated = JSON.parse(res.stdout);
        assert.match(rotated.kid, /^key_[0-9A-Z]{26}$/);
        assert.ok(rotated.verifying.includes(kidOf(before)), 'the key before still verifies');

        const after = await clientToken(client.clientId, client.clientSecret);
        assert.equal(after.status, 200);
        assert.equal(kidOf(after.body.access_token), rotated.kid, 'new tokens are signed with the new key');
        const user = await call('POST', '/authorize/user', {
          token: after.body.access_token,
          body: { account_id: account, return_token: true },
        });
        assert.equal(kidOf(user.body.payload.token.access_token), rotated.kid);
        for (const baseUrl of [h().baseUrl, other.app.baseUrl, lone.baseUrl]) {
          for (const token of [before, after.body.access_token]) {
            const read = await call('GET', `/v1/user-info/${account}`, { token, baseUrl });
            assert.equal(read.status, 200, `${baseUrl} ${kidOf(token)}: ${read.text}`);
          }
        }
        // Another process signs with the new key too, once it has heard of it.
        const fromOther = await call('POST', '/token', {
          baseUrl: other.app.baseUrl,
          body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
        });
        assert.equal(kidOf(fromOther.body.access_token), rotated.kid);
      } finally {
        await lone.close();
        await deaf.close();
      }
    });

    it('keys rotate deletes keys replaced longer ago than a token lives: a process loading keys then refuses their tokens', async () => {
      const client = await newClient();
      const account = (await register(client)).account_id;
      const db = h().orm.em.fork();
      assert.equal((await holdfastCli(['keys', 'rotate'], withRedis())).status, 0);
      const keys = await db.execute<Array<{ id: string; secret: string }>>('select id, secret from signing_key order by created_at, id');
      // A client token signed with the oldest key, as a web process would have signed it.
      const oldest = await new SignJWT({
        int: (await db.execute('select integrator_id from client where id = ?', [client.clientId]))[0].integrator_id,
        scope: 'search_accounts read_accounts',
        op: false,
        unb: false,
      })
        .setProtectedHeader({ alg: 'HS256', kid: keys[0].id, typ: 'JWT' })
        .setIssuer('holdfast')
        .setAudience('holdfast-api')
        .setSubject(client.clientId)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(Buffer.from(keys[0].secret, 'base64url'));
      const read = async () => {
        const signer = await TokenSigner.load(h().orm.em.fork());
        const app = await startExtraApp({ signer });
        try {
          const res = await call('GET', `/v1/user-info/${account}`, { token: oldest, baseUrl: app.baseUrl });
          return res.status;
        } finally {
          await app.close();
          await signer.close();
        }
      };
      assert.equal(await read(), 200, 'the oldest key verifies while a token it signed may live');
      // Web processes that stay up verify (and cache) it now, before its key is deleted.
      for (const baseUrl of [h().baseUrl, other.app.baseUrl]) {
        assert.equal((await call('GET', `/v1/user-info/${account}`, { token: oldest, baseUrl })).status, 200);
      }

      // Age every key by two hours: the one the next rotation replaces stays, the older ones are dead.
      await db.execute(`update signing_key set created_at = created_at - interval '2 hours'`);
      const res = await holdfastCli(['keys', 'rotate', '--json'], withRedis());
      assert.equal(res.status, 0, res.stderr);
      const rotated = JSON.parse(res.stdout);
      assert.deepEqual(
        rotated.dropped,
        keys.slice(0, -1).map((k) => k.id),
      );
      assert.deepEqual(rotated.verifying, [keys[keys.length - 1].id]);
      const left = await db.execute<Array<{ id: string }>>('select id from signing_key order by created_at, id');
      assert.deepEqual(
        left.map((k) => k.id),
        [keys[keys.length - 1].id, rotated.kid],
      );
      assert.equal(await read(), 401);
      // Once they have reloaded the keys, the processes that cached the token refuse it too.
      for (const signer of [h().signer, other.signer]) await signer.announce({ keys: true });
      for (const baseUrl of [h().baseUrl, other.app.baseUrl]) {
        const cached = await call('GET', `/v1/user-info/${account}`, { token: oldest, baseUrl });
        assert.equal(cached.status, 401, `${baseUrl}: ${cached.text}`);
      }
      const text = await holdfastCli(['keys', 'rotate'], withRedis());
      assert.match(text.stdout, /^signing with new key key_[0-9A-Z]{26}; still verifying /);
    });

    it('keys rotate --retire-now: tokens of the older keys are refused at once on every web process, new ones work', async () => {
      const client = await newClient();
      const account = (await register(client)).account_id;
      const before = client.token;
      const read = (token: string, baseUrl: string) => call('GET', `/v1/user-info/${account}`, { token, baseUrl });
      // Both processes have verified (and cached) the token signed with the key about to leak.
      for (const baseUrl of [h().baseUrl, other.app.baseUrl]) assert.equal((await read(before, baseUrl)).status, 200);

      const res = await holdfastCli(['keys', 'rotate', '--retire-now', '--json'], withRedis());
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stderr, '');
      const rotated = JSON.parse(res.stdout);
      assert.match(rotated.kid, /^key_[0-9A-Z]{26}$/);
      assert.deepEqual(rotated.verifying, []);
      assert.ok(rotated.dropped.includes(kidOf(before)), res.stdout);
      const left = await h().orm.em.fork().execute<Array<{ id: string }>>('select id from signing_key');
      assert.deepEqual(
        left.map((k) => k.id),
        [rotated.kid],
        'the retired keys are deleted: a process that missed the announcement drops them at its next reload',
      );

      for (const baseUrl of [h().baseUrl, other.app.baseUrl]) {
        const refused = await read(before, baseUrl);
        assert.equal(refused.status, 401, `${baseUrl}: ${refused.text}`);
        assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);
      }
      // A process started now never loads them.
      const fresh = await TokenSigner.load(h().orm.em.fork());
      const lone = await startExtraApp({ signer: fresh });
      try {
        assert.equal((await read(before, lone.baseUrl)).status, 401);
      } finally {
        await lone.close();
        await fresh.close();
      }

      // New tokens carry the new key and work everywhere, whichever process issued them.
      for (const issuer of [h().baseUrl, other.app.baseUrl]) {
        const after = await call('POST', '/token', {
          baseUrl: issuer,
          body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
        });
        assert.equal(after.status, 200, after.text);
        assert.equal(kidOf(after.body.access_token), rotated.kid);
        for (const baseUrl of [h().baseUrl, other.app.baseUrl]) assert.equal((await read(after.body.access_token, baseUrl)).status, 200);
      }

      const text = await holdfastCli(['keys', 'rotate', '--retire-now'], withRedis());
      assert.equal(text.status, 0, text.stderr);
      assert.equal(text.stdout, `signing with new key ${/key_[0-9A-Z]{26}/.exec(text.stdout)?.[0]}; retired at once ${rotated.kid}\n`);
    });
  });

  describe('integrator fund and show', () => {
    /** The integrator's default wallets as `integrator show --json` prints them, by currency. */
    async function shown(name: string): Promise<Record<string, { wallet_id: string | null; balance: number }>> {
      const res = await holdfastCli(['integrator', 'show', name, '--json']);
      assert.equal(res.status, 0, res.stderr);
      const out = JSON.parse(res.stdout) as {
        integrator: { name: string };
        wallets: Array<{ currency: string; wallet_id: string | null; balance: number }>;
      };
      assert.equal(out.integrator.name, name);
      return Object.fromEntries(out.wallets.map((w) => [w.currency, { wallet_id: w.wallet_id, balance: w.balance }]));
    }

    it('fund credits the default wallet by one posting each time; show reflects it; ledger verify stays clean', async () => {
      const name = unique('cli-fund-');
      assert.equal((await holdfastCli(['integrator', 'create', name, '--token-currency', 'GEM', '--tokens-per-usd', '100'])).status, 0);
      assert.deepEqual(await shown(name), { USD: { wallet_id: null, balance: 0 }, GEM: { wallet_id: null, balance: 0 } });

      const first = await holdfastCli(['integrator', 'fund', name, '--currency', 'USD', '--amount', '5000', '--reason', 'test', '--json']);
      assert.equal(first.status, 0, first.stderr);
      const funded = JSON.parse(first.stdout);
      assert.equal(funded.integrator, name);
      assert.equal(funded.currency, 'USD');
      assert.equal(funded.amount, 5000);
      assert.equal(funded.balance, 5000);
      assert.match(funded.reference, /^fund:[0-9A-Z]{26}$/);
      const text = await holdfastCli(['integrator', 'fund', name, '--currency', 'USD', '--amount', '250', '--reason', 'test']);
      assert.equal(text.status, 0, text.stderr);
      assert.match(
        text.stdout,
        new RegExp(`^funded integrator ${name}: 250 USD into wallet ${funded.wallet_id}, balance 5250 \\(posting fund:[0-9A-Z]{26}\\)\n$`),
      );
      // The exported service, by id, in the token currency.
      const tokens = await fundIntegrator(h().orm.em.fork(), funded.integrator_id, 'GEM', 40);
      assert.equal(tokens.balance, 40);

      assert.deepEqual(await shown(name), {
        USD: { wallet_id: funded.wallet_id, balance: 5250 },
        GEM: { wallet_id: tokens.wallet_id, balance: 40 },
      });
      const table = await holdfastCli(['integrator', 'show', name]);
      assert.equal(table.status, 0, table.stderr);
      assert.match(table.stdout, new RegExp(`^USD +${funded.wallet_id} +5250$`, 'm'));
      assert.match(table.stdout, new RegExp(`^GEM +${tokens.wallet_id} +40$`, 'm'));

      const postings = await h()
        .orm.em.fork()
        .getConnection()
        .execute<Array<{ reference: string; entries: string; kinds: string[] }>>(
          `select p.reference, count(e.id) as entries, array_agg(a.kind order by a.kind) as kinds
             from ledger_posting p join ledger_entry e on e.posting_id = p.id join ledger_account a on a.id = e.ledger_account_id
            where p.integrator_id = ? group by p.reference order by p.reference`,
          [funded.integrator_id],
        );
      assert.equal(postings.length, 3, 'one posting per funding');
      assert.equal(new Set(postings.map((p) => p.reference)).size, 3);
      for (const p of postings) assert.deepEqual(p.kinds, ['publisher_wallet', 'sandbox_funding']);

      const verify = await holdfastCli(['ledger', 'verify']);
      assert.equal(verify.status, 0, verify.stdout);
      assert.match(verify.stdout, /^ledger ok/);
    });

    it('fund refuses a currency the integrator cannot hold, with one line', async () => {
      const name = unique('cli-fund-');
      await holdfastCli(['integrator', 'create', name]);
      for (const currency of ['EUR', 'GEM']) {
        const res = await holdfastCli(['integrator', 'fund', name, '--currency', currency, '--amount', '100', '--reason', 'test']);
        assert.equal(res.status, 1);
        assert.equal(res.stderr, `holdfast: integrator "${name}" cannot hold ${currency} (it holds USD)\n`);
      }
      assert.deepEqual(await shown(name), { USD: { wallet_id: null, balance: 0 } });
    });

    it('fund is refused under APP_ENV=production (one line), and moves nothing', async () => {
      const name = unique('cli-fund-');
      await holdfastCli(['integrator', 'create', name]);
      // Production refuses the sandbox money rails before it opens the database (exit 2), and
      // with real rails the staging database refuses it (test/api/environment.test.ts).
      const res = await holdfastCli(['integrator', 'fund', name, '--currency', 'USD', '--amount', '100', '--reason', 'test'], {
        APP_ENV: 'production',
      });
      assert.equal(res.status, 2);
      assert.match(res.stderr, /^holdfast: production \(APP_ENV=production\) refuses the sandbox money rails: /);
      assert.equal(res.stdout, '');
      assert.deepEqual(await shown(name), { USD: { wallet_id: null, balance: 0 } });
    });
  });

  describe('integrator list and client list', () => {
    it('integrator list shows each integrator with its token currency and rate, as a table and as JSON', async () => {
      const em = h().orm.em.fork();
      const tokens = await createIntegrator(em, { name: unique('cli-list-'), tokenCurrency: 'GEM', tokensPerUsd: 250 });
      const plain = await createIntegrator(em, { name: unique('cli-list-') });
      const json = await holdfastCli(['integrator', 'list', '--json']);
      assert.equal(json.status, 0, json.stderr);
      const listed = JSON.parse(json.stdout).integrators as Array<Record<string, unknown>>;
      for (const i of listed) assert.deepEqual(Object.keys(i).sort(), ['created_at', 'id', 'name', 'token_currency', 'tokens_per_usd']);
      const [withTokens] = listed.filter((i) => i.id === tokens.id);
      assert.deepEqual(
        { ...withTokens, created_at: undefined },
        {
          id: tokens.id,
          name: tokens.name,
          token_currency: 'GEM',
          tokens_per_usd: 250,
          created_at: undefined,
        },
      );
      assert.match(String(withTokens.created_at), /^\d{4}-\d\d-\d\dT/);
      assert.equal(listed.find((i) => i.id === plain.id)?.token_currency, null);

      const text = await holdfastCli(['integrator', 'list']);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /^ID +NAME +TOKEN CURRENCY +TOKENS PER USD +CREATED\n/);
      assert.match(text.stdout, new RegExp(`^${tokens.id} +${tokens.name} +GEM +250 +\\d{4}-`, 'm'));
      assert.match(text.stdout, new RegExp(`^${plain.id} +${plain.name} +- +- +\\d{4}-`, 'm'));
    });

    it('client list shows every client of an integrator, revoked ones with revoked_at, and never a secret or its hash', async () => {
      const em = h().orm.em.fork();
      const integrator = unique('cli-list-');
      const operator = await createClient(em, { integrator, scopes: ['read_accounts'], isOperator: true, tosSigning: true });
      const revoked = await createClient(em, { integrator, scopes: [...ALL_SCOPES], canUnblock: true });
      await revokeClient(em, revoked.client_id);
      const other = await createClient(em, { integrator: unique('cli-list-'), scopes: ['read_accounts'] });
      const hashes = await em
        .getConnection()
        .execute<Array<{ secret_hash: string }>>('select secret_hash from client where id in (?, ?, ?)', [
          operator.client_id,
          revoked.client_id,
          other.client_id,
        ]);
      const secrets = [operator.client_secret, revoked.client_secret, other.client_secret, ...hashes.map((row) => row.secret_hash)];

      const json = await holdfastCli(['client', 'list', '--integrator', integrator, '--json']);
      assert.equal(json.status, 0, json.stderr);
      assert.equal(json.stderr, '');
      const { clients } = JSON.parse(json.stdout) as { clients: Array<Record<string, unknown>> };
      assert.deepEqual(
        clients.map((c) => c.client_id),
        [operator.client_id, revoked.client_id],
        'only the named integrator, oldest first',
      );
      for (const c of clients) {
        assert.deepEqual(Object.keys(c).sort(), [
          'can_unblock',
          'client_id',
          'created_at',
          'integrator',
          'integrator_id',
          'operator',
          'revoked_at',
          'scopes',
          'tos_signing',
        ]);
      }
      assert.deepEqual(
        { ...clients[0], integrator_id: undefined, created_at: undefined },
        {
          client_id: operator.client_id,
          integrator_id: undefined,
          integrator,
          scopes: ['read_accounts'],
          operator: true,
          can_unblock: false,
          tos_signing: true,
          created_at: undefined,
          revoked_at: null,
        },
      );
      assert.equal(clients[1].can_unblock, true);
      assert.match(String(clients[1].revoked_at), /^\d{4}-\d\d-\d\dT/);

      const all = await holdfastCli(['client', 'list']);
      assert.equal(all.status, 0, all.stderr);
      assert.match(all.stdout, /^CLIENT ID +INTEGRATOR +SCOPES +OPERATOR +CAN-UNBLOCK +TOS-SIGNING +CREATED +REVOKED\n/);
      assert.match(all.stdout, new RegExp(`^${operator.client_id} +${integrator} +read_accounts +yes +no +yes +\\S+ +-$`, 'm'));
      assert.match(all.stdout, new RegExp(`^${revoked.client_id} +${integrator} +all +no +yes +no +\\S+ +\\d{4}-\\S+$`, 'm'));
      assert.match(all.stdout, new RegExp(`^${other.client_id} `, 'm'), 'every integrator without --integrator');
      for (const out of [json.stdout, all.stdout]) {
        for (const secret of secrets) assert.equal(out.includes(secret), false, 'a secret or secret hash was printed');
      }
    });
  });

  it('migrate reports the database up to date', async () => {
    const res = await holdfastCli(['migrate']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /up to date/);
  });
});
