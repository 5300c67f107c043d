/**
 * The `holdfast` command: operator tasks against the database named by DATABASE_URL (or the
 * PostgreSQL that `npm start` finds). Every command and command group has --help; a failure
 * exits non-zero with one clear line (2 for a usage mistake). Commands that write create and
 * migrate the database as `npm start` does; commands that only read or act on existing rows
 * never do: they need a database that `holdfast migrate` (or `npm start`) has made.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ConfigError, loadConfig } from '../../config/index.js';
import { AppError } from '../errors.js';
import { parseScopeOption } from '../auth/auth.rules.js';
import { parseSettingFlags, SETTING_FLAGS, type IntegratorSettings } from '../integrators/integrator.rules.js';
import { createClient, revokeClient, rotateClientSecret, rotateSigningKey } from '../auth/auth.service.js';
import { createIntegrator, updateIntegrator } from '../integrators/integrator.service.js';
import { SECRET_ROTATION_GRACE_HOURS, TOKEN_MEMORY_SECONDS, TOKEN_STATE_RELOAD_MS, parseGraceHours } from '../auth/credential.rules.js';
import { announceTokenChange, type TokenChange } from '../auth/token-state.service.js';
import { ensureDatabase, migrate, openOrm, pendingMigrations } from '../db/orm.js';
import { describeError } from '../runtime/describe-error.js';
import { DatabaseMissingError, ServiceUnavailableError } from '../db/postgres-failures.js';
import { resolveServices } from '../runtime/services.js';
import { publishTos } from '../tos/tos.service.js';
import { decideKyc, eraseKycData } from '../kyc/kyc.service.js';
import { operatorPayoutCommand } from '../payouts/payout.commands.js';
import { DECISIONS, type Decision } from '../kyc/kyc.rules.js';
import { verifyAll } from './ledger-checks.js';
import { VERIFY_PROBLEM_CAP } from '../ledger/ledger-verify.service.js';
import { fundIntegrator, integratorWallets } from '../payment-methods/integrator-wallet.service.js';
import { createRedis } from '../queues/connection.js';
import { WebhookBus } from '../queues/webhook-bus.js';
import { endpointExists, eventExists, replayAndEnqueue, type DeliveryQueue } from '../webhooks/relay.service.js';

class UsageError extends Error {}

/** `payouts approve|reject`: runs the payout's command and prints the payout, or fails with the refusal. */
async function payoutCommandCli(action: 'approve' | 'reject', v: Record<string, string | boolean | undefined>, positionals: string[]) {
  const payoutId = positionals[0]?.trim();
  if (!payoutId || positionals.length > 1) throw new UsageError('give exactly one PAYOUT_ID');
  const result = await withOrm({ read: `payouts ${action}` }, (orm) => operatorPayoutCommand(orm.em.fork(), payoutId, action));
  const body = result.body as { payload?: unknown; message?: string[] };
  if (result.status >= 300) {
    const why =
      body.message?.join(' ') || (typeof body.payload === 'string' ? body.payload : `payouts ${action} failed (${result.status})`);
    throw new Refused(why);
  }
  const p = body.payload as { payout_status_id: string; payout_status: string; failure_code: string };
  print(v.json === true, { ...p }, `payout ${p.payout_status_id}: ${p.payout_status}${p.failure_code ? ` (${p.failure_code})` : ''}`);
}

/** The integrator settings' flags, as parseArgs options. */
const SETTING_OPTIONS = Object.fromEntries(Object.keys(SETTING_FLAGS).map((flag) => [flag, { type: 'string' as const }]));

/** An integrator's settings as the commands print them. */
function settingsJson(s: IntegratorSettings) {
  return {
    payout_auto_approve_max: s.payoutAutoApproveMax,
    payout_open_limit: s.payoutOpenLimit,
    conversion_fee_bps: s.conversionFeeBps,
  };
}
/** What the command was asked to act on does not exist. */
class NotFound extends Error {}
/** What the command may not do here (a staging-only command under APP_ENV=production). */
class Refused extends Error {}
/** `ledger verify` found a breach: the report is printed, the exit code says so. */
class LedgerBreach extends Error {}

interface Command {
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** How many positional arguments it takes (none unless said). */
  positionals?: number;
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<void>;
}

/**
 * Opens the database for one command. `write`: created and migrated as needed, as `npm start`
 * does. `read` (the command named): it must exist and be migrated already, so a mistyped
 * DATABASE_URL is one line instead of a new empty database.
 */
async function withOrm<T>(access: 'write' | { read: string }, work: (orm: MikroORM, applied: string[]) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const services = await resolveServices({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl ?? 'redis://unused',
    databaseName: 'holdfast',
    allowPrivate: false,
  });
  if (access === 'write') {
    await ensureDatabase(services.databaseUrl);
  } else {
    const never = `holdfast ${access.read} never creates or migrates a database: run holdfast migrate first`;
    try {
      await ensureDatabase(services.databaseUrl, { create: false });
    } catch (err) {
      throw err instanceof DatabaseMissingError ? new DatabaseMissingError(`${err.message}; ${never}`) : err;
    }
    const pending = await pendingMigrations(services.databaseUrl);
    if (pending.length) {
      const name = decodeURIComponent(new URL(services.databaseUrl).pathname.slice(1));
      throw new DatabaseMissingError(
        `database "${name}" (DATABASE_URL) lacks ${pending.length} migration${pending.length === 1 ? '' : 's'}; ${never}`,
      );
    }
  }
  const orm = await openOrm(services.databaseUrl, 2);
  try {
    const applied = access === 'write' ? await migrate(orm) : [];
    return await work(orm, applied);
  } finally {
    await orm.close();
  }
}

function print(json: boolean, value: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/**
 * Tells every web process of a committed key or revocation change (Redis pub/sub). When Redis
 * cannot take it, says so on stderr: the change is in PostgreSQL, and web processes read it at
 * their next reload.
 */
async function announce(change: TokenChange): Promise<void> {
  const config = loadConfig();
  const { redisUrl } = await resolveServices({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    databaseName: 'holdfast',
    allowPrivate: false,
  });
  const redis = createRedis(redisUrl, 'producer', { connectTimeout: 2000 });
  redis.on('error', () => {});
  try {
    if (!(await announceTokenChange(redis, config.queuePrefix, change))) {
      process.stderr.write(
        `holdfast: warning: Redis (REDIS_URL) did not take the announcement; web processes apply the change within ${TOKEN_STATE_RELOAD_MS / 1000} s\n`,
      );
    }
  } finally {
    redis.disconnect();
  }
}

/** The one ID a client command acts on. */
function clientIdArgument(positionals: string[]): string {
  const id = positionals[0]?.trim();
  if (!id || positionals.length > 1) throw new UsageError('give exactly one client ID');
  return id;
}

const noClient = (id: string) => new NotFound(`no client "${id}" (the client_id that holdfast client create printed)`);

const commands: Record<string, Command> = {
  'client create': {
    usage: `holdfast client create --integrator NAME [--operator] [--scopes a,b|all] [--can-unblock] [--tos-signing] [--json]

Creates an OAuth client of integrator NAME (creating the integrator, with no token currency,
when missing) and prints its credentials once: the secret is stored only as a hash.
  --scopes        comma-separated scopes, or "all" (default: all)
  --operator      the client acts as the service operator (svc)
  --can-unblock   licence to unblock the integrator's own blocks
  --tos-signing   may sign the ToS for accounts
  --json          print {"client_id","client_secret","integrator","scopes"}`,
    options: {
      integrator: { type: 'string' },
      operator: { type: 'boolean' },
      scopes: { type: 'string' },
      'can-unblock': { type: 'boolean' },
      'tos-signing': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    async run(v) {
      const integrator = typeof v.integrator === 'string' ? v.integrator.trim() : '';
      if (!integrator) throw new UsageError('--integrator NAME is required');
      const scopes = parseScopeOption(typeof v.scopes === 'string' ? v.scopes : 'all');
      if (!scopes.ok) throw new UsageError(`unknown scope(s): ${scopes.unknown.join(', ')}`);
      const created = await withOrm('write', (orm) =>
        createClient(orm.em.fork(), {
          integrator,
          scopes: scopes.scopes,
          isOperator: v.operator === true,
          canUnblock: v['can-unblock'] === true,
          tosSigning: v['tos-signing'] === true,
        }),
      );
      print(
        v.json === true,
        created,
        `client_id=${created.client_id}\nclient_secret=${created.client_secret}\nintegrator=${created.integrator}\nscopes=${created.scopes.join(',')}`,
      );
    },
  },
  'client revoke': {
    usage: `holdfast client revoke ID [--json]

Revokes client ID for good: it gets no token any more (client credentials or refresh), its
refresh tokens and session links stop working, and every access token it holds or minted —
client tokens and the user password tokens of its sessions — is refused at once by every web
process. Revoking a revoked client changes nothing. An unknown client is an error (exit 1).
  --json   print {"client_id","revoked_at","already_revoked"}`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const id = clientIdArgument(positionals);
      const revoked = await withOrm({ read: 'client revoke' }, (orm) => revokeClient(orm.em.fork(), id));
      if (!revoked) throw noClient(id);
      await announce({ clients: [id] });
      print(
        v.json === true,
        { client_id: id, revoked_at: revoked.revoked_at, already_revoked: revoked.already },
        revoked.already ? `client ${id} was already revoked (${revoked.revoked_at})` : `revoked client ${id}`,
      );
    },
  },
  'client rotate-secret': {
    usage: `holdfast client rotate-secret ID [--grace-hours N] [--json]

Gives client ID a new secret and prints it once (stored only as a hash). The old secret keeps
working for a grace period — ${SECRET_ROTATION_GRACE_HOURS} hours by default — so the integrator can deploy the new one,
then stops; rotating again within the grace forgets the first old secret. Tokens already
issued are not affected (holdfast client revoke ends them). A revoked or unknown client is an
error (exit 1).
  --grace-hours N   how long the old secret still works: 0 (stops at once) to 168 (default ${SECRET_ROTATION_GRACE_HOURS})
  --json            print {"client_id","client_secret"}`,
    options: { 'grace-hours': { type: 'string' }, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const id = clientIdArgument(positionals);
      const grace = parseGraceHours(typeof v['grace-hours'] === 'string' ? v['grace-hours'] : undefined);
      if (!grace.ok) throw new UsageError('--grace-hours must be a whole number of hours from 0 to 168');
      const rotated = await withOrm({ read: 'client rotate-secret' }, (orm) => rotateClientSecret(orm.em.fork(), id, grace.hours));
      if (!rotated) throw noClient(id);
      print(
        v.json === true,
        { client_id: rotated.client_id, client_secret: rotated.client_secret },
        `client_id=${rotated.client_id}\nclient_secret=${rotated.client_secret}\nold secret valid until ${rotated.previous_secret_expires_at}`,
      );
    },
  },
  'keys rotate': {
    usage: `holdfast keys rotate [--retire-now] [--json]

Makes a new HS256 signing key with its own kid: every web process signs new tokens with it from
now on. Older keys still verify the tokens they signed until those expire (${TOKEN_MEMORY_SECONDS / 60} minutes after
being replaced: the token lifetime and a margin); keys replaced longer ago are deleted.
  --retire-now   for a leaked key: delete every older key at once, so every token they signed is
                 refused by every web process as soon as it hears (within ${TOKEN_STATE_RELOAD_MS / 1000} s at most);
                 holders of those tokens must get new ones
  --json         print {"kid","verifying","dropped"}: the new kid, the older kids still verifying, the deleted ones`,
    options: { 'retire-now': { type: 'boolean' }, json: { type: 'boolean' } },
    async run(v) {
      const retireNow = v['retire-now'] === true;
      const rotated = await withOrm({ read: 'keys rotate' }, (orm) => rotateSigningKey(orm.em.fork(), { retireNow }));
      await announce(retireNow ? { keys: true, retiredKeys: rotated.dropped } : { keys: true });
      const dropped = rotated.dropped.length ? `; ${retireNow ? 'retired at once' : 'deleted'} ${rotated.dropped.join(', ')}` : '';
      print(
        v.json === true,
        rotated,
        `signing with new key ${rotated.kid}${rotated.verifying.length ? `; still verifying ${rotated.verifying.join(', ')}` : ''}${dropped}`,
      );
    },
  },
  'integrator create': {
    usage: `holdfast integrator create NAME [--token-currency CODE --tokens-per-usd N] [SETTINGS] [--json]

Creates an integrator. With a token currency (3 capital letters, not a fiat code such as USD)
every account of the integrator gets standard and convertible token wallets; N is how many
tokens USD 1.00 buys. SETTINGS, each optional (see integrator update):
  --payout-auto-approve-max N   payouts up to N minor units need no operator approval (default 0: all do)
  --payout-open-limit N         open payouts (FUNDS-IN-ESCROW or FAILED) an account may have (default 3)
  --conversion-fee-bps N        token conversion fee in basis points of the fiat amount (default 0)`,
    options: {
      'token-currency': { type: 'string' },
      'tokens-per-usd': { type: 'string' },
      ...SETTING_OPTIONS,
      json: { type: 'boolean' },
    },
    positionals: 1,
    async run(v, positionals) {
      const name = positionals[0]?.trim();
      if (!name || positionals.length > 1) throw new UsageError('give exactly one integrator NAME');
      if (name.length > 100) throw new UsageError('NAME must be at most 100 characters');
      const currency = v['token-currency'];
      const rate = v['tokens-per-usd'];
      if ((currency === undefined) !== (rate === undefined)) {
        throw new UsageError('--token-currency and --tokens-per-usd go together');
      }
      if (typeof currency === 'string' && (!/^[A-Z]{3}$/.test(currency) || currency === 'USD')) {
        throw new UsageError('--token-currency must be 3 capital letters other than USD');
      }
      if (typeof rate === 'string' && !/^[1-9]\d{0,8}$/.test(rate)) {
        throw new UsageError('--tokens-per-usd must be a whole number from 1 to 999999999');
      }
      const settings = parseSettingFlags(v);
      if (!settings.ok) throw new UsageError(settings.message);
      const integrator = await withOrm('write', (orm) =>
        createIntegrator(orm.em.fork(), {
          name,
          tokenCurrency: currency as string | undefined,
          tokensPerUsd: rate ? Number(rate) : undefined,
          settings: settings.settings,
        }),
      );
      const out = {
        id: integrator.id,
        name: integrator.name,
        token_currency: integrator.tokenCurrency,
        tokens_per_usd: integrator.tokensPerUsd,
        ...settingsJson(integrator),
      };
      print(
        v.json === true,
        out,
        `integrator ${out.name} (${out.id})${out.token_currency ? `, ${out.tokens_per_usd} ${out.token_currency} per USD 1.00` : ''}`,
      );
    },
  },
  'integrator update': {
    usage: `holdfast integrator update NAME [SETTINGS] [--json]

Changes the settings of integrator NAME (a name or id); the others stay as they are. Running
processes read them at each payout or conversion.
  --payout-auto-approve-max N   payouts up to N minor units need no operator approval (0: all do)
  --payout-open-limit N         open payouts (FUNDS-IN-ESCROW or FAILED) an account may have (1-1000)
  --conversion-fee-bps N        token conversion fee in basis points of the fiat amount (0-10000)
  --json   print {"id","name","payout_auto_approve_max","payout_open_limit","conversion_fee_bps"}`,
    options: { ...SETTING_OPTIONS, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const name = positionals[0]?.trim();
      if (!name || positionals.length > 1) throw new UsageError('give exactly one integrator NAME');
      const settings = parseSettingFlags(v);
      if (!settings.ok) throw new UsageError(settings.message);
      if (Object.keys(settings.settings).length === 0) throw new UsageError('name at least one setting to change');
      const updated = await withOrm({ read: 'integrator update' }, (orm) => updateIntegrator(orm.em.fork(), name, settings.settings));
      const out = { id: updated.id, name: updated.name, ...settingsJson(updated) };
      print(
        v.json === true,
        out,
        `integrator ${out.name}: payouts auto-approved up to ${out.payout_auto_approve_max}, at most ${out.payout_open_limit} open, conversion fee ${out.conversion_fee_bps} bps`,
      );
    },
  },
  'integrator fund': {
    usage: `holdfast integrator fund NAME --currency CODE --amount N [--json]

Staging only (refused when APP_ENV=production): credits the default wallet of integrator NAME
(a name or id) in currency CODE — USD or its token currency — with N minor units (USD cents,
whole tokens) from its sandbox funding account, as one ledger posting with its own reference
(fund:<ULID>), so that refunds, which that wallet pays, can be tried. Each call funds again.
An unknown integrator or a currency it cannot hold is an error (exit 1).
  --json   print {"integrator_id","integrator","currency","amount","wallet_id","balance","reference"}`,
    options: { currency: { type: 'string' }, amount: { type: 'string' }, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const name = positionals[0]?.trim();
      if (!name || positionals.length > 1) throw new UsageError('give exactly one integrator NAME');
      const currency = typeof v.currency === 'string' ? v.currency : '';
      if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--currency CODE is required: 3 capital letters, such as USD');
      const amount = typeof v.amount === 'string' && /^[1-9]\d{0,14}$/.test(v.amount) ? Number(v.amount) : 0;
      if (!Number.isSafeInteger(amount) || amount <= 0) {
        throw new UsageError('--amount N is required: a positive whole number of minor units (cents, tokens)');
      }
      if (loadConfig().appEnv === 'production') {
        throw new Refused('integrator fund is for staging only: refused when APP_ENV=production');
      }
      const funded = await withOrm({ read: 'integrator fund' }, (orm) => fundIntegrator(orm.em.fork(), name, currency, amount));
      print(
        v.json === true,
        { ...funded },
        `funded integrator ${funded.integrator}: ${funded.amount} ${funded.currency} into wallet ${funded.wallet_id}, balance ${funded.balance} (posting ${funded.reference})`,
      );
    },
  },
  'integrator show': {
    usage: `holdfast integrator show NAME [--json]

Prints the settings of integrator NAME (a name or id) and its default wallets — each currency
it can hold, the wallet's ledger account id (none until money first reaches it) and its balance
in minor units. An unknown integrator is an error (exit 1).
  --json   print {"integrator":{"id","name","token_currency","payout_auto_approve_max","payout_open_limit",
           "conversion_fee_bps"},"wallets":[{"currency","wallet_id","balance"}]}`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const name = positionals[0]?.trim();
      if (!name || positionals.length > 1) throw new UsageError('give exactly one integrator NAME');
      const shown = await withOrm({ read: 'integrator show' }, (orm) => integratorWallets(orm.em.fork(), name));
      const rows = shown.wallets.map((w) => [w.currency, w.wallet_id ?? '-', String(w.balance)]);
      const widths = [8, Math.max(9, ...rows.map((r) => r[1].length))];
      const table = [['CURRENCY', 'WALLET ID', 'BALANCE'], ...rows].map(
        ([currency, id, balance]) => `${currency.padEnd(widths[0])} ${id.padEnd(widths[1])} ${balance}`,
      );
      const i = shown.integrator;
      const settings = `payouts auto-approved up to ${i.payout_auto_approve_max}, at most ${i.payout_open_limit} open, conversion fee ${i.conversion_fee_bps} bps`;
      print(v.json === true, { ...shown }, `integrator ${i.name} (${i.id})\n${settings}\n${table.join('\n')}`);
    },
  },
  migrate: {
    usage: `holdfast migrate

Creates the database when missing and applies every pending checked-in migration.`,
    options: {},
    async run() {
      const applied = await withOrm('write', async (_orm, names) => names);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
    },
  },
  'ledger verify': {
    usage: `holdfast ledger verify [--json]

Recomputes every ledger balance from the entries and checks every invariant: each posting
sums to zero per currency, stored balances equal recomputed ones, no wallet is below zero,
entries are in their account's currency, each integrator's escrow holding equals the total of
its ESCROWED escrows, and each escrow has exactly the postings its state implies. Exits 1 with
a report when anything is breached: the first ${VERIFY_PROBLEM_CAP} problems, and how many in all.
Reads one snapshot; each check runs in PostgreSQL and returns only what is breached, so its
memory does not grow with the ledger. Only reads: a missing or unmigrated database is an error.

  --json   print {"ok","checked","problems","problemCount"}`,
    options: { json: { type: 'boolean' } },
    async run(v) {
      const report = await withOrm({ read: 'ledger verify' }, (orm) => verifyAll(orm.em.fork()));
      const summary = `${report.checked.accounts} accounts, ${report.checked.postings} postings, ${report.checked.entries} entries`;
      if (v.json === true) process.stdout.write(`${JSON.stringify(report)}\n`);
      else if (report.ok) process.stdout.write(`ledger ok: ${summary}\n`);
      else {
        const n = report.problemCount;
        const more =
          n > report.problems.length ? `  … and ${n - report.problems.length} more (the first ${report.problems.length} are shown)\n` : '';
        process.stdout.write(
          `ledger BREACHED (${n} problem${n === 1 ? '' : 's'}; ${summary}):\n${report.problems.map((p) => `  - ${p}`).join('\n')}\n${more}`,
        );
      }
      if (!report.ok) throw new LedgerBreach(`the ledger breaks ${report.problemCount} invariant${report.problemCount === 1 ? '' : 's'}`);
    },
  },
  'webhooks replay': {
    usage: `holdfast webhooks replay (--event ID | --endpoint ID --since TIME) [--json]

Sends webhooks again: every delivery of event ID, or every event of endpoint ID created at or
after TIME (ISO 8601, e.g. 2026-11-26T00:00:00Z) — dead-lettered and delivered ones alike, and
those the endpoint never got (it was added later or disabled). Each starts a fresh retry
schedule. Deliveries still being retried are left as they are. The endpoint must be enabled.
An unknown event or endpoint is an error (exit 1); so is a missing or unmigrated database (never created).`,
    options: { event: { type: 'string' }, endpoint: { type: 'string' }, since: { type: 'string' }, json: { type: 'boolean' } },
    async run(v) {
      const event = typeof v.event === 'string' ? v.event : undefined;
      const endpoint = typeof v.endpoint === 'string' ? v.endpoint : undefined;
      if (!!event === !!endpoint) throw new UsageError('give either --event ID or --endpoint ID --since TIME');
      let since: Date | undefined;
      if (endpoint) {
        since = typeof v.since === 'string' ? new Date(v.since) : undefined;
        if (!since || Number.isNaN(since.getTime())) throw new UsageError('--endpoint needs --since TIME (ISO 8601)');
      }
      const config = loadConfig();
      const sent = await withOrm({ read: 'webhooks replay' }, async (orm) => {
        if (event && !(await eventExists(orm.em.fork(), event))) {
          throw new NotFound(`no event "${event}" (the id is the "id" field of a webhook's body)`);
        }
        if (endpoint && !(await endpointExists(orm.em.fork(), endpoint))) {
          throw new NotFound(`no webhook endpoint "${endpoint}" (GET /v2/webhooks lists an integrator's)`);
        }
        // Redis is found only once the rows are written: if it refuses then, they are pending and the delivery sweeper sends them.
        const queue: DeliveryQueue = {
          async enqueue(deliveries) {
            const { redisUrl } = await resolveServices({
              databaseUrl: config.databaseUrl,
              redisUrl: config.redisUrl,
              databaseName: 'holdfast',
              allowPrivate: false,
            });
            const redis = createRedis(redisUrl, 'producer');
            const bus = new WebhookBus(redis, config.queuePrefix);
            try {
              return await bus.enqueue(deliveries);
            } finally {
              await bus.close();
              redis.disconnect();
            }
          },
        };
        const filter = event ? { eventId: event } : { endpointId: endpoint!, since: since! };
        return (await replayAndEnqueue(orm.em.fork(), queue, filter)).length;
      });
      print(v.json === true, { replayed: sent }, `re-sending ${sent} deliver${sent === 1 ? 'y' : 'ies'}`);
    },
  },
  'kyc decide': {
    usage: `holdfast kyc decide ACCOUNT_ID --state ACCEPT|DENY|CANCEL [--json]

Decides the identity (KYC) check of account ACCOUNT_ID. In production only a check in
MANUAL_REVIEW can be decided; in staging a check in any state (one is made when the account
has none), so that payouts can be tried without the hosted form. Emits kyc-webhook; DENY and
CANCEL block the account's payouts (unless a payouts block is already active), ACCEPT lifts a
payouts block that a KYC outcome set. Deciding the state the check has changes nothing.
  --json   print {"account_id","kyc_id","state","pii_level","kyc_requirements"}`,
    options: { state: { type: 'string' }, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const accountId = positionals[0]?.trim();
      if (!accountId || positionals.length > 1) throw new UsageError('give exactly one ACCOUNT_ID');
      const state = typeof v.state === 'string' ? v.state : '';
      if (!(DECISIONS as readonly string[]).includes(state)) {
        throw new UsageError(
          state ? `--state must be one of ${DECISIONS.join(', ')}` : `--state is required: one of ${DECISIONS.join(', ')}`,
        );
      }
      const production = loadConfig().appEnv === 'production';
      const decided = await withOrm({ read: 'kyc decide' }, (orm) => decideKyc(orm.em.fork(), accountId, state as Decision, production));
      print(v.json === true, { ...decided }, `account ${decided.account_id}: KYC ${decided.state} (pii_level ${decided.pii_level})`);
    },
  },
  'kyc erase': {
    usage: `holdfast kyc erase ACCOUNT_ID [--json]

Erases the personal data behind the KYC check of account ACCOUNT_ID (a person's request to be
forgotten, with the gdpr block reason): the data is deleted for good; the check keeps its state.
  --json   print {"account_id","erased"}`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const accountId = positionals[0]?.trim();
      if (!accountId || positionals.length > 1) throw new UsageError('give exactly one ACCOUNT_ID');
      const erased = await withOrm({ read: 'kyc erase' }, (orm) => eraseKycData(orm.em.fork(), accountId));
      print(
        v.json === true,
        { account_id: accountId, erased },
        erased ? `erased the KYC personal data of account ${accountId}` : `account ${accountId} has no KYC personal data`,
      );
    },
  },
  'payouts approve': {
    usage: `holdfast payouts approve PAYOUT_ID [--json]

Approves payout PAYOUT_ID (payout_status_id) in FUNDS-IN-ESCROW, or retries a FAILED one: the
sandbox provider executes it — SUCCESS, or FAILED for the documented failing destination (the
money stays held). Runs the payout's payout.execute command in this process and prints the
payout: a FAILED execution is an outcome, not an error (exit 0; read payout_status). Another
state, or a payouts or login block on the account, is refused (exit 1).
  --json   print the payout`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      await payoutCommandCli('approve', v, positionals);
    },
  },
  'payouts reject': {
    usage: `holdfast payouts reject PAYOUT_ID [--json]

Rejects payout PAYOUT_ID in FUNDS-IN-ESCROW or FAILED: the money goes back from payout holding
to the account's wallet and the payout is SUPPORT-REVERSED. Runs its payout.reverse command
in this process. Another state is refused (exit 1).
  --json   print the payout`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      await payoutCommandCli('reject', v, positionals);
    },
  },
  'tos publish': {
    usage: `holdfast tos publish --file F [--json]

Publishes the text of file F as a new ToS version. Every account then reads signed_tos: false
until it signs again.`,
    options: { file: { type: 'string' }, json: { type: 'boolean' } },
    async run(v) {
      if (typeof v.file !== 'string') throw new UsageError('--file F is required');
      let content: string;
      try {
        content = readFileSync(v.file, 'utf8');
      } catch {
        throw new UsageError(`cannot read ${v.file}`);
      }
      const tos = await withOrm('write', (orm) => publishTos(orm.em.fork(), content));
      print(v.json === true, tos, `published ToS version ${tos.tos_version}`);
    },
  },
};

const overview = `holdfast <command> [options]

Commands:
  client create         create an OAuth client (prints its credentials once)
  client revoke         revoke a client and every token it holds or minted
  client rotate-secret  give a client a new secret (the old one works for a grace period)
  integrator create     create an integrator, optionally with a token currency
  integrator fund       staging: credit an integrator's default wallet from sandbox funding
  integrator show       an integrator's settings, default wallets and their balances
  integrator update     change an integrator's payout and conversion settings
  kyc decide            decide an account's identity (KYC) check
  kyc erase             erase the personal data behind an account's KYC check
  keys rotate           sign new tokens with a new key (old keys verify until their tokens expire)
  ledger verify         recompute balances and check every ledger invariant
  migrate               create the database and apply migrations
  payouts approve       approve (or retry) a payout: the sandbox provider executes it
  payouts reject        reject a payout: its money goes back to the wallet
  tos publish           publish a new terms-of-service version
  webhooks replay       send webhook deliveries again (an event, or an endpoint since a time)

Run "holdfast <command> --help" for a command's options ("holdfast client --help" for a
group's). The database is DATABASE_URL, or the PostgreSQL on 127.0.0.1:5432 (database
holdfast); only client create, integrator create, migrate and tos publish create or migrate it.`;

/** The command groups (`holdfast client`, `holdfast ledger`, …) and their commands. */
const groups: Record<string, string[]> = {};
for (const name of Object.keys(commands)) {
  const [group] = name.split(' ');
  if (group === name) continue;
  groups[group] ??= [];
  groups[group].push(name);
}

const HELP = new Set(['--help', '-h', 'help']);

function groupHelp(group: string): string {
  return `holdfast ${group} <command>\n\n${groups[group].map((name) => commands[name].usage).join('\n\n')}`;
}

/** Edit distance between two words (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/** The known word a mistyped one most likely meant: a near spelling or a word it begins. */
function closest(word: string, known: string[]): string | undefined {
  const scored = known
    .map((candidate) => ({ candidate, d: candidate.startsWith(word) || word.startsWith(candidate) ? 0.5 : distance(word, candidate) }))
    .filter(({ candidate, d }) => d <= Math.max(1, Math.floor(Math.min(word.length, candidate.length) / 3)))
    .sort((x, y) => x.d - y.d);
  return scored[0]?.candidate;
}

function unknownCommand(words: string, known: string[]): UsageError {
  const guess = closest(words, known);
  return new UsageError(`unknown command "${words}"${guess ? `; did you mean "${guess}"?` : ''} (see holdfast --help)`);
}

/** The help text shown instead of running a command; `usage` = shown because the command was incomplete (exit 2). */
class Help extends Error {
  constructor(
    readonly text: string,
    readonly usage: boolean,
  ) {
    super(text);
  }
}

async function main(argv: string[]): Promise<void> {
  if (argv.length === 0) throw new Help(overview, true);
  if (HELP.has(argv[0])) {
    const topic = argv.slice(1).join(' ');
    if (!topic) throw new Help(overview, false);
    if (commands[topic]) throw new Help(commands[topic].usage, false);
    if (groups[topic]) throw new Help(groupHelp(topic), false);
    throw unknownCommand(topic, [...Object.keys(commands), ...Object.keys(groups)]);
  }
  const name = [argv.slice(0, 2).join(' '), argv[0]].find((n) => n && commands[n]);
  if (!name) {
    const group = groups[argv[0]];
    if (!group) throw unknownCommand(argv[0], [...Object.keys(commands), ...Object.keys(groups)]);
    if (argv.length === 1) throw new Help(groupHelp(argv[0]), true);
    if (HELP.has(argv[1])) throw new Help(groupHelp(argv[0]), false);
    if (argv[1].startsWith('-')) throw new UsageError(`give a command first: ${group.map((n) => `holdfast ${n}`).join(', ')}`);
    throw unknownCommand(argv.slice(0, 2).join(' '), group);
  }
  const command = commands[name];
  const rest = argv.slice(name.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) throw new Help(command.usage, false);
  // parseArgs names an unknown option but suggests nothing: look first, with the known names.
  const known = Object.keys(command.options);
  for (const token of parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: false, tokens: true }).tokens ??
    []) {
    if (token.kind !== 'option' || known.includes(token.name)) continue;
    const guess = closest(token.name, [...known, 'help']);
    throw new UsageError(`unknown option ${token.rawName}${guess ? `; did you mean --${guess}?` : ''} (see holdfast ${name} --help)`);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  if (!command.positionals && parsed.positionals.length) {
    throw new UsageError(`unexpected argument "${parsed.positionals[0]}"`);
  }
  await command.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof Help) {
      (err.usage ? process.stderr : process.stdout).write(`${err.text}\n`);
      process.exit(err.usage ? 2 : 0);
    }
    const known =
      err instanceof UsageError ||
      err instanceof ConfigError ||
      err instanceof ServiceUnavailableError ||
      err instanceof AppError ||
      err instanceof LedgerBreach ||
      err instanceof Refused ||
      err instanceof NotFound;
    const described = describeError(err);
    const unknown = described.message ?? `failed (${described.type}${described.code ? ` ${described.code}` : ''})`;
    process.stderr.write(`holdfast: ${known ? (err as Error).message : unknown}\n`);
    process.exit(err instanceof UsageError || err instanceof ConfigError ? 2 : 1);
  },
);
