/** `holdfast integrator …`: integrators — create and list them, change their settings, fund and show their default wallets. */
import { type IntegratorSettings, parseSettingFlags, SETTING_FLAGS } from '../integrators/integrator.rules.js';
import { createIntegrator, listIntegrators, updateIntegrator } from '../integrators/integrator.service.js';
import { fundIntegrator, integratorWallets } from '../payment-methods/integrator-wallet.service.js';
import {
  type Command,
  Refused,
  UsageError,
  auditOptions,
  auditUsage,
  cliAuditContext,
  onlyArgument,
  orNotFound,
  print,
  table,
  withOrm,
} from './cli-support.js';

/** The integrator settings' flags, as parseArgs options. */
const SETTING_OPTIONS = Object.fromEntries(Object.keys(SETTING_FLAGS).map((flag) => [flag, { type: 'string' as const }]));

/** An integrator's settings as the commands print them. */
function settingsJson(s: IntegratorSettings) {
  return {
    payout_auto_approve_max: s.payoutAutoApproveMax,
    payout_open_limit: s.payoutOpenLimit,
    conversion_fee_bps: s.conversionFeeBps,
    dispute_fee: s.disputeFee,
  };
}

export const integratorCommands: Record<string, Command> = {
  'integrator create': {
    summary: 'create an integrator, optionally with a token currency',
    usage: `holdfast integrator create NAME [--token-currency CODE --tokens-per-usd N] [SETTINGS] [--json]

Creates an integrator. With a token currency (3 capital letters, not a fiat code such as USD)
every account of the integrator gets standard and convertible token wallets; N is how many
tokens USD 1.00 buys. SETTINGS, each optional (see integrator update):
  --payout-auto-approve-max N   payouts up to N minor units need no operator approval (default 0: all do)
  --payout-open-limit N         open payouts (FUNDS-IN-ESCROW, PROCESSING or FAILED) an account may have (default 3)
  --conversion-fee-bps N        token conversion fee in basis points of the fiat amount (default 0)
  --dispute-fee N               what a dispute of a card charge costs, in minor units of its currency (default 1500)`,
    options: {
      'token-currency': { type: 'string' },
      'tokens-per-usd': { type: 'string' },
      ...SETTING_OPTIONS,
      json: { type: 'boolean' },
    },
    positionals: 1,
    async run(v, positionals) {
      const name = onlyArgument(positionals, 'integrator NAME');
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
  'integrator list': {
    summary: 'list the integrators',
    usage: `holdfast integrator list [--json]

Lists every integrator, oldest first: its id, name, token currency and how many tokens USD 1.00
buys (- when it has none), and when it was made. Only reads: a missing or unmigrated database
is an error.
  --json   print {"integrators":[{"id","name","token_currency","tokens_per_usd","created_at"}]}`,
    options: { json: { type: 'boolean' } },
    async run(v) {
      const integrators = await withOrm({ read: 'integrator list' }, (orm) => listIntegrators(orm.em.fork()));
      const rows = integrators.map((i) => [i.id, i.name, i.token_currency ?? '-', String(i.tokens_per_usd ?? '-'), i.created_at]);
      const header = ['ID', 'NAME', 'TOKEN CURRENCY', 'TOKENS PER USD', 'CREATED'];
      print(v.json === true, { integrators }, rows.length ? table(header, rows) : 'no integrators');
    },
  },
  'integrator update': {
    summary: "change an integrator's payout and conversion settings",
    usage: `holdfast integrator update NAME [SETTINGS] [--json]

Changes the settings of integrator NAME (a name or id); the others stay as they are. Running
processes read them at each payout or conversion.
  --payout-auto-approve-max N   payouts up to N minor units need no operator approval (0: all do)
  --payout-open-limit N         open payouts (FUNDS-IN-ESCROW, PROCESSING or FAILED) an account may have (1-1000)
  --conversion-fee-bps N        token conversion fee in basis points of the fiat amount (0-10000)
  --dispute-fee N               what a dispute of a card charge costs, in minor units of its currency
  --json   print {"id","name","payout_auto_approve_max","payout_open_limit","conversion_fee_bps","dispute_fee"}`,
    options: { ...SETTING_OPTIONS, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const name = onlyArgument(positionals, 'integrator NAME');
      const settings = parseSettingFlags(v);
      if (!settings.ok) throw new UsageError(settings.message);
      if (Object.keys(settings.settings).length === 0) throw new UsageError('name at least one setting to change');
      const updated = await orNotFound(
        'integrator',
        name,
        withOrm({ read: 'integrator update' }, (orm) => updateIntegrator(orm.em.fork(), name, settings.settings)),
      );
      const out = { id: updated.id, name: updated.name, ...settingsJson(updated) };
      print(
        v.json === true,
        out,
        `integrator ${out.name}: payouts auto-approved up to ${out.payout_auto_approve_max}, at most ${out.payout_open_limit} open, conversion fee ${out.conversion_fee_bps} bps, dispute fee ${out.dispute_fee}`,
      );
    },
  },
  'integrator fund': {
    summary: "staging: credit an integrator's default wallet from sandbox funding",
    usage: `holdfast integrator fund NAME --currency CODE --amount N --reason TEXT [--actor NAME] [--json]

Staging only (refused on a production database): credits the default wallet of integrator NAME
(a name or id) in currency CODE — USD or its token currency — with N minor units (USD cents,
whole tokens) from its sandbox funding account, as one ledger posting with its own reference
(fund:<ULID>), so that refunds, which that wallet pays, can be tried. Each call funds again.
An unknown integrator or a currency it cannot hold is an error (exit 1). The funding is
recorded in the audit trail with its posting.
${auditUsage(true)}
  --json          print {"integrator_id","integrator","currency","amount","wallet_id","balance","reference"}`,
    options: { currency: { type: 'string' }, amount: { type: 'string' }, ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const name = onlyArgument(positionals, 'integrator NAME');
      const currency = typeof v.currency === 'string' ? v.currency : '';
      if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--currency CODE is required: 3 capital letters, such as USD');
      const amount = typeof v.amount === 'string' && /^[1-9]\d{0,14}$/.test(v.amount) ? Number(v.amount) : 0;
      if (!Number.isSafeInteger(amount) || amount <= 0) {
        throw new UsageError('--amount N is required: a positive whole number of minor units (cents, tokens)');
      }
      const audit = cliAuditContext(v, true);
      const funded = await orNotFound(
        'integrator',
        name,
        withOrm({ read: 'integrator fund' }, (orm, _applied, environment) => {
          if (environment === 'production') throw new Refused('integrator fund is for staging only: this is a production database');
          return fundIntegrator(orm.em.fork(), name, currency, amount, audit);
        }),
      );
      print(
        v.json === true,
        { ...funded },
        `funded integrator ${funded.integrator}: ${funded.amount} ${funded.currency} into wallet ${funded.wallet_id}, balance ${funded.balance} (posting ${funded.reference})`,
      );
    },
  },
  'integrator show': {
    summary: "an integrator's settings, default wallets and their balances",
    usage: `holdfast integrator show NAME [--json]

Prints the settings of integrator NAME (a name or id) and its default wallets — each currency
it can hold, the wallet's ledger account id (none until money first reaches it) and its balance
in minor units. An unknown integrator is an error (exit 1).
  --json   print {"integrator":{"id","name","token_currency","payout_auto_approve_max","payout_open_limit",
           "conversion_fee_bps","dispute_fee"},"wallets":[{"currency","wallet_id","balance"}]}`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const name = onlyArgument(positionals, 'integrator NAME');
      const shown = await orNotFound(
        'integrator',
        name,
        withOrm({ read: 'integrator show' }, (orm) => integratorWallets(orm.em.fork(), name)),
      );
      const wallets = table(
        ['CURRENCY', 'WALLET ID', 'BALANCE'],
        shown.wallets.map((w) => [w.currency, w.wallet_id ?? '-', String(w.balance)]),
      );
      const i = shown.integrator;
      const settings = `payouts auto-approved up to ${i.payout_auto_approve_max}, at most ${i.payout_open_limit} open, conversion fee ${i.conversion_fee_bps} bps, dispute fee ${i.dispute_fee}`;
      print(v.json === true, { ...shown }, `integrator ${i.name} (${i.id})\n${settings}\n${wallets}`);
    },
  },
};
