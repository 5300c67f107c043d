import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { operatorPayoutCommand } from '../../src/payouts/payout.commands.js';
import { sandboxPayoutRail } from '../../src/rails/sandbox-payout.adapter.js';
import { addCard, call, h, newClient, register, unique, type ApiResponse, type TestClient } from '../support/harness.js';

type Currency = 'USD' | 'VCD';
type Status = 'OPEN' | 'ESCROWED' | 'ESCROW-FAILED' | 'COMMITTED' | 'CANCELLED';
type PayWith = 'wallet' | 'card' | 'split';
/** Which of the buyer's sandbox cards pays: one that refunds, or 4000000000005126 whose refunds fail. */
type CardKind = 'good' | 'refund-fails';

/** Which of the account's paypal destinations a payout goes to: one that is paid, or payout-fails@example.com. */
type DestinationKind = 'good' | 'fails';

interface Account {
  id: string;
  cards: Record<CardKind, string>;
  /** payment method ids and wallet (ledger) ids by key USD | VCD:standard | VCD:convertible */
  pm: Record<string, string>;
  wallet: Record<string, string>;
  /** KYC accepted: the account may request payouts (the others are refused, 409 KYC_REQUIRED). */
  kyc: boolean;
  /** Its paypal payout destinations (payment method ids). */
  destinations: Record<DestinationKind, string>;
}

type PayoutStatus = 'FUNDS-IN-ESCROW' | 'SUCCESS' | 'FAILED' | 'USER-REVERSED' | 'SUPPORT-REVERSED';

/** A payout as the model holds it: from the account's USD wallet to one of its destinations. */
interface Payout {
  id: string;
  account: Account;
  amount: number;
  destination: DestinationKind;
  status: PayoutStatus;
  /** The statuses its `payout-complete` events carry, oldest first (one per state change, a retried FAILED too). */
  events: PayoutStatus[];
  /** The token conversion it pays out, if any: reversing the payout reverses it. */
  exchange?: { id: string; tokens: number; net: number };
}

/** What moves a payout: the operator's approve (or retry) and reject, the staging PATCH, the user's DELETE. */
type PayoutMove = 'approve' | 'reject' | 'patch' | 'delete';

/** Open payouts hold their money in payout holding and count against the open-payout limit. */
const openPayout = (p: Payout) => p.status === 'FUNDS-IN-ESCROW' || p.status === 'FAILED';
/** The integrator's settings in the model: payouts at or under AUTO_APPROVE_MAX execute by themselves. */
const AUTO_APPROVE_MAX = 150;
const PAYOUT_OPEN_LIMIT = 2;
/** The integrator's conversion fee: 2.5% of the fiat amount, rounded up. */
const CONVERSION_FEE_BPS = 250;

/** What one payment method paid for a purchase, and what it has had back (successful refund parts only). */
interface Charge {
  pm: string;
  /** The buyer's wallet it came from (undefined: a card). */
  wallet?: string;
  /** A sandbox card whose refunds fail: its parts move nothing and stay refundable. */
  refundFails: boolean;
  paid: number;
  back: number;
}

/** One line of a purchase: what it cost and what it has had back (successful refund parts only). */
interface Line {
  amount: number;
  back: number;
  /** Its id on the purchase invoice (read when a line-item refund first needs it). */
  id?: string;
}

/** A refund as the model expects the invoice's refund summary to list it. */
interface ExpectedRefund {
  status: 'REFUND-SUCCESS' | 'REFUND-FAILED' | 'REFUND-REJECTED';
  line_item_id: string | null;
  amount: number;
  payment_methods: Array<{ payment_method_id: string; amount: number; status: 'succeeded' | 'failed' }>;
}

interface Escrow {
  id: string;
  status: Status;
  currency: Currency;
  charges: Charge[];
  seller: Account;
  amount: number;
  share: number;
}

/** A purchase invoice the refunds (and disputes) may name: a standard invoice, an escrow's escrow invoice, a token purchase. */
interface Purchase {
  invoiceId: string;
  buyer: Account;
  currency: Currency;
  charges: Charge[];
  lines: Line[];
  /** A standard invoice's state after its pay; undefined for an escrow invoice (its escrow decides). */
  state?: 'SUCCESS' | 'FAILED';
  escrow?: Escrow;
  refunds: ExpectedRefund[];
}

type Op =
  | {
      kind: 'create';
      buyer: number;
      seller: number;
      currency: Currency;
      amount: number;
      share: number;
      pay: PayWith;
      card: CardKind;
      advance: 'none' | 'pay' | 'commit';
    }
  | { kind: 'pay' | 'commit' | 'cancel'; escrow: number; twice: boolean }
  | {
      kind: 'buy';
      buyer: number;
      seller: number;
      currency: Currency;
      lines: Array<{ amount: number; share: number }>;
      pay: PayWith;
      card: CardKind;
    }
  | { kind: 'refund'; purchase: number; twice: boolean }
  | {
      kind: 'line-refund';
      purchase: number;
      line: number;
      /** The amount: this percentage of what the line has left (at least 1)… */
      percent: number;
      /** …or, when set, that much more than the line has left (refused). */
      beyond: number | null;
      /** The purchase's payment methods named in reverse order; only the first of them named. */
      reverse: boolean;
      onlyFirst: boolean;
    }
  | { kind: 'fund-integrator'; amount: number }
  | {
      kind: 'payout';
      account: number;
      /** The amount asked for… */
      amount: number;
      /** …or, when set, that much more than the wallet holds (refused, 400 amount). */
      over: number | null;
      destination: DestinationKind;
      /** Asked for this many times in a row (up to the open-payout limit and past it). */
      repeat: number;
    }
  | { kind: 'payout-move'; payout: number; move: PayoutMove; twice: boolean }
  /**
   * A token conversion (VCD:convertible → the USD wallet, less the integrator's fee): quoted and
   * executed, `amount` tokens or, when set, that much more than the wallet holds (refused);
   * with `payOut`, its money is then paid out by a payout naming it.
   */
  | { kind: 'convert'; account: number; amount: number; over: number | null; payOut: boolean }
  /** A token purchase with one of the buyer's cards (USD cents, one token a cent): disputes may name it; refunds do not. */
  | { kind: 'token-buy'; buyer: number; amount: number; card: CardKind }
  /**
   * The sandbox processor's notice that the card charge of a purchase (an escrow's, a standard
   * invoice's or a token purchase's; a wallet-only purchase names its wallet, refused) is disputed;
   * `twice`: the notice again (it answers the same dispute, nothing moves twice).
   */
  | { kind: 'dispute'; purchase: number; card: boolean; twice: boolean }
  /** The sandbox processor decides a dispute (mostly an open one); `twice`: the decision again (the same answers as it is). */
  | { kind: 'decide'; dispute: number; open: boolean; outcome: 'won' | 'lost'; twice: boolean };

/** The integrator's dispute fee in the model (small, so that its wallet is not always below zero). */
const DISPUTE_FEE = 40;

/** A dispute as the model holds it. */
interface Dispute {
  id: string;
  purchase: Purchase;
  charge: Charge;
  amount: number;
  status: 'OPEN' | 'WON' | 'LOST';
  /**
   * What it holds in each wallet. Where the trace finds the value (first in, first out through the
   * wallets) is taken from the dispute's `traced` list as the API answers it; what follows from it —
   * spendable balances, refusals, clawbacks, releases — is the model's.
   */
  holds: Array<{ wallet: string; held: number }>;
  /** ESCROWED escrows it traced value into (not committed while it is open). */
  escrows: Set<string>;
  /** Payouts not yet sent it traced value into (not executed while it is open). */
  payouts: Set<string>;
}

const cardKind = fc.constantFrom<CardKind>('good', 'good', 'refund-fails');
const payWith = fc.constantFrom<PayWith>('wallet', 'card', 'split', 'split');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      buyer: fc.nat(2),
      seller: fc.nat(2),
      currency: fc.constantFrom<Currency>('USD', 'VCD'),
      amount: fc.integer({ min: 1, max: 900 }),
      share: fc.integer({ min: 0, max: 100 }),
      pay: payWith,
      card: cardKind,
      advance: fc.constantFrom('none' as const, 'pay' as const, 'commit' as const),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('pay' as const, 'commit' as const, 'cancel' as const),
      escrow: fc.nat(20),
      twice: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('buy' as const),
      buyer: fc.nat(2),
      seller: fc.nat(2),
      currency: fc.constantFrom<Currency>('USD', 'VCD'),
      lines: fc.array(fc.record({ amount: fc.integer({ min: 1, max: 400 }), share: fc.integer({ min: 0, max: 100 }) }), {
        minLength: 1,
        maxLength: 3,
      }),
      pay: payWith,
      card: cardKind,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), purchase: fc.nat(20), twice: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('line-refund' as const),
      purchase: fc.nat(20),
      line: fc.nat(2),
      percent: fc.integer({ min: 1, max: 100 }),
      beyond: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 50 }) }),
      reverse: fc.boolean(),
      onlyFirst: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fund-integrator' as const), amount: fc.integer({ min: 1, max: 1500 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      // Mostly the two sellers with KYC accepted.
      account: fc.constantFrom(0, 1, 0, 1, 2),
      amount: fc.oneof(
        { weight: 1, arbitrary: fc.integer({ min: 1, max: AUTO_APPROVE_MAX }) },
        { weight: 3, arbitrary: fc.integer({ min: 1, max: 500 }) },
      ),
      over: fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 50 }) }),
      destination: fc.constantFrom<DestinationKind>('good', 'good', 'fails'),
      repeat: fc.constantFrom(1, 1, 1, 3),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('payout-move' as const),
      payout: fc.nat(20),
      move: fc.constantFrom<PayoutMove>('approve', 'reject', 'patch', 'delete'),
      twice: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('convert' as const),
      account: fc.constantFrom(0, 1, 0, 1, 2),
      amount: fc.integer({ min: 1, max: 600 }),
      over: fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 50 }) }),
      payOut: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('token-buy' as const),
      buyer: fc.nat(2),
      amount: fc.integer({ min: 1, max: 600 }),
      card: cardKind,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('dispute' as const),
      purchase: fc.nat(30),
      // Mostly a purchase a card paid; else any (a wallet-only one is refused).
      card: fc.constantFrom(true, true, true, false),
      twice: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('decide' as const),
      dispute: fc.nat(10),
      open: fc.constantFrom(true, true, true, false),
      outcome: fc.constantFrom('won' as const, 'lost' as const),
      twice: fc.boolean(),
    }),
  },
);

/** The seed can be fixed from outside (FC_SEED=n) to replay or vary a run, and the number of runs raised (FC_RUNS=n). */
const seed = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};
const numRuns = Number(process.env.FC_RUNS) || 12;

describe('escrow model (fast-check): random sequences keep every invariant and every balance', () => {
  let client: TestClient;
  let integratorId: string;
  before(async () => {
    const name = unique('model-');
    integratorId = (
      await createIntegrator(h().orm.em.fork(), {
        name,
        tokenCurrency: 'VCD',
        tokensPerUsd: 100,
        settings: {
          payoutAutoApproveMax: AUTO_APPROVE_MAX,
          payoutOpenLimit: PAYOUT_OPEN_LIMIT,
          conversionFeeBps: CONVERSION_FEE_BPS,
          disputeFee: DISPUTE_FEE,
        },
      })
    ).id;
    client = await newClient({ integrator: name });
  });

  /** A paypal payout destination of the account's. */
  async function paypal(accountId: string, email: string): Promise<string> {
    const res = await call('POST', `/v1/${accountId}/payment_methods`, {
      token: client.token,
      body: { type: 'paypal', paypal: { email } },
    });
    assert.ok(res.status === 200 || res.status === 201, res.text);
    return res.body.payload.id;
  }

  /** An account with its cards, wallets and paypal destinations; KYC accepted when asked. */
  async function account(kyc: boolean): Promise<Account> {
    const reg = await register(client);
    const cards = {
      good: await addCard(client, reg.account_id),
      'refund-fails': await addCard(client, reg.account_id, '4000000000005126'),
    };
    const methods = (await call('GET', `/v1/${reg.account_id}/payment_methods`, { token: client.token })).body.payload;
    const destinations = {
      good: await paypal(reg.account_id, `${reg.account_id.toLowerCase()}@example.com`),
      fails: await paypal(reg.account_id, 'payout-fails@example.com'),
    };
    if (kyc) await decideKyc(h().orm.em.fork(), reg.account_id, 'ACCEPT', false);
    const a: Account = { id: reg.account_id, cards, pm: {}, wallet: {}, kyc, destinations };
    for (const m of methods.filter((x: any) => x.provider === 'wallet')) {
      const key = m.processing_currency === 'USD' ? 'USD' : `VCD:${m.provider_data.wallet_type}`;
      a.pm[key] = m.id;
      a.wallet[key] = m.provider_data.wallet_id;
    }
    return a;
  }

  /** The statuses a payout's `payout-complete` events carry, oldest first. */
  async function payoutEvents(payoutId: string): Promise<string[]> {
    const rows = await h()
      .orm.em.fork()
      .execute<Array<{ message: { payout_status: string } }>>(
        `select message from outbox where event_name = 'payout-complete' and message->>'payout_status_id' = ? order by id`,
        [payoutId],
      );
    return rows.map((r) => r.message.payout_status);
  }

  /** Credits a wallet from outside: a card payment in (USD) or token issuance (VCD). */
  async function fund(wallet: string, currency: Currency, amount: number) {
    const source = await systemAccount(h().orm.em.fork(), integratorId, currency === 'USD' ? 'card_clearing' : 'token_issuance', currency);
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId,
          reference: unique('model-fund-'),
          description: 'model funding',
          entries: [
            { account: source, currency, amount: -amount },
            { account: wallet, currency, amount },
          ],
        }),
      );
  }

  /** Pays a wallet's whole balance out (to card clearing, or back to token issuance); one below zero (a dispute took it there) is filled up. */
  async function drain(wallet: string, currency: Currency) {
    const held = (await balances(h().orm.em.fork(), [wallet])).get(wallet) ?? 0;
    if (held !== 0) await fund(wallet, currency, -held);
  }

  /** Ledger accounts' stored balances and what is held on them. */
  async function stored(ids: string[]): Promise<Map<string, { balance: number; held: number }>> {
    const rows = await h()
      .orm.em.fork()
      .execute<Array<{ id: string; balance: string; held: string }>>('select id, balance, held from ledger_account where id in (?)', [ids]);
    return new Map(rows.map((r) => [r.id, { balance: Number(r.balance), held: Number(r.held) }]));
  }

  it('holds for random escrows, purchases, full and line-item refunds, payouts and their reversals, token conversions (paid out or not), token purchases, disputes won and lost, repeated calls across accounts and currencies', async function () {
    this.timeout(240_000);
    const publisher = {
      USD: await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD'),
      VCD: await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'VCD'),
    };
    const payoutHolding = await systemAccount(h().orm.em.fork(), integratorId, 'payout_holding', 'USD');
    const payoutClearing = await systemAccount(h().orm.em.fork(), integratorId, 'payout_clearing', 'USD');
    const disputeHolding = await systemAccount(h().orm.em.fork(), integratorId, 'dispute_holding', 'USD');
    const disputeFees = await systemAccount(h().orm.em.fork(), integratorId, 'dispute_fees', 'USD');
    const disputeLosses = await systemAccount(h().orm.em.fork(), integratorId, 'dispute_losses', 'USD');
    const opsArb = fc.array(opArb, { minLength: 1, maxLength: 24, size: 'max' });
    // Some runs start the wallets low, so that what a token purchase or a sale brought in is spent
    // soon (first in, first out) and disputes find it in escrows, conversions and payouts.
    const startArb = fc.constantFrom(1000, 1000, 150);
    await fc.assert(
      fc.asyncProperty(opsArb, startArb, async (ops, start) => {
        // Two sellers may request payouts; the third has no KYC decision.
        const accounts = [await account(true), await account(true), await account(false)];
        /** Each ledger account's stored balance, and what open disputes hold on it (not spendable). */
        const model = new Map<string, number>();
        const heldModel = new Map<string, number>();
        const get = (wallet: string) => model.get(wallet)!;
        const add = (wallet: string, amount: number) => model.set(wallet, get(wallet) + amount);
        const heldOf = (wallet: string) => heldModel.get(wallet) ?? 0;
        const spendable = (wallet: string) => get(wallet) - heldOf(wallet);
        const usdWallets = new Set(accounts.map((a) => a.wallet.USD));
        const spendKey = (c: Currency) => (c === 'USD' ? 'USD' : 'VCD:standard');
        // A seller's share lands in its USD wallet, or in its convertible wallet for tokens.
        const payoutKey = (c: Currency) => (c === 'USD' ? 'USD' : 'VCD:convertible');
        for (const a of accounts) {
          for (const key of ['USD', 'VCD:standard', 'VCD:convertible']) model.set(a.wallet[key], 0);
          await fund(a.wallet.USD, 'USD', start);
          await fund(a.wallet['VCD:standard'], 'VCD', start);
          model.set(a.wallet.USD, start);
          model.set(a.wallet['VCD:standard'], start);
          // Convertible tokens to convert (commits of token lines add more).
          await fund(a.wallet['VCD:convertible'], 'VCD', 500);
          model.set(a.wallet['VCD:convertible'], 500);
        }
        // The integrator's wallets start each run empty (what earlier runs left is paid out), so that
        // refunds it cannot cover happen.
        await drain(publisher.USD, 'USD');
        await drain(publisher.VCD, 'VCD');
        model.set(publisher.USD, 0);
        model.set(publisher.VCD, 0);
        // Payout holding holds what open payouts hold (earlier runs' open ones too); clearing what was
        // paid out; the dispute accounts what earlier runs' disputes left there.
        for (const account of [payoutHolding, payoutClearing, disputeHolding, disputeFees, disputeLosses]) {
          model.set(account, (await balances(h().orm.em.fork(), [account])).get(account) ?? 0);
        }

        /** The payment methods a purchase sends, and the charges the model expects from them. */
        function chargesFor(buyer: Account, currency: Currency, pay: PayWith, cardKind: CardKind, total: number) {
          const walletKey = spendKey(currency);
          const card = buyer.cards[cardKind];
          const payWith = currency === 'VCD' ? 'wallet' : pay; // cards pay USD only
          const half = Math.floor(total / 2);
          const payment_methods =
            payWith === 'wallet'
              ? [{ payment_method_id: buyer.pm[walletKey], amount: 0 }]
              : payWith === 'card'
                ? [{ payment_method_id: card, amount: 0 }]
                : half > 0
                  ? [
                      { payment_method_id: buyer.pm[walletKey], amount: half },
                      { payment_method_id: card, amount: 0 },
                    ]
                  : [{ payment_method_id: card, amount: 0 }];
          const charges: Charge[] = payment_methods.map((pm) => ({
            pm: pm.payment_method_id,
            wallet: pm.payment_method_id === card ? undefined : buyer.wallet[walletKey],
            refundFails: pm.payment_method_id === buyer.cards['refund-fails'],
            paid: pm.amount === 0 ? total - payment_methods.reduce((s, x) => s + x.amount, 0) : pm.amount,
            back: 0,
          }));
          return { payment_methods, charges };
        }
        // Held money is not spendable: a pay needs what each wallet has free.
        const affordable = (charges: Charge[]) => charges.every((c) => !c.wallet || spendable(c.wallet) >= c.paid);

        const disputes: Dispute[] = [];
        const openDisputes = () => disputes.filter((d) => d.status === 'OPEN');
        /** What open and lost disputes took of a charge: not the integrator's to refund (a won one gave it back). */
        const disputedOf = (c: Charge) => disputes.filter((d) => d.charge === c && d.status !== 'WON').reduce((s, d) => s + d.amount, 0);
        /** What a charge may still have back: what it paid, less what it had back and what its disputes took. */
        const chargeLeft = (c: Charge) => Math.max(c.paid - c.back - disputedOf(c), 0);
        /** The buyer of an open dispute: its payout and conversion requests wait (409 DISPUTE_OPEN). */
        const disputing = (a: Account) => openDisputes().some((d) => d.purchase.buyer === a);
        const frozen = (e: Escrow) => openDisputes().some((d) => d.escrows.has(e.id));
        const waitsForDispute = (p: Payout) => openDisputes().some((d) => d.payouts.has(p.id));
        const canRefund = (p: Purchase) => (p.escrow ? p.escrow.status === 'COMMITTED' : p.state === 'SUCCESS');
        const described = (p: Purchase) =>
          `${p.invoiceId} (${p.escrow ? `escrow ${p.escrow.status}` : p.state}, ${p.currency}, charges ${JSON.stringify(
            p.charges.map((c) => [c.wallet ? 'wallet' : c.refundFails ? 'card-5126' : 'card', c.paid, c.back]),
          )}, lines ${JSON.stringify(p.lines.map((l) => [l.amount, l.back]))})`;

        /** One escrow call, answered by the model first. */
        async function transition(e: Escrow, kind: 'pay' | 'commit' | 'cancel') {
          const res: ApiResponse = await call('POST', `/v2/escrow/${e.id}/${kind}`, { token: client.token });
          // The model's answer.
          let expected: Status = e.status;
          let http = 200;
          if (e.status === 'ESCROW-FAILED') http = 409;
          else if (kind === 'pay' && e.status === 'OPEN') {
            const ok = affordable(e.charges);
            expected = ok ? 'ESCROWED' : 'ESCROW-FAILED';
            if (ok) for (const c of e.charges) if (c.wallet) add(c.wallet, -c.paid);
          } else if (kind === 'commit') {
            if (e.status === 'ESCROWED' && frozen(e)) {
              // An open dispute traced value into it: not committed until the dispute is decided.
              assert.equal(res.status, 409, `commit of an escrow an open dispute holds: ${res.text}`);
              assert.deepEqual(res.body.codes, ['DISPUTE_OPEN']);
              assert.equal(res.body.payload.status, 'ESCROWED');
              return;
            }
            if (e.status === 'ESCROWED') {
              expected = 'COMMITTED';
              if (e.share > 0) add(e.seller.wallet[payoutKey(e.currency)], e.share);
              add(publisher[e.currency], e.amount - e.share);
            } else if (e.status !== 'COMMITTED') http = 409;
          } else if (kind === 'cancel') {
            // A cancel refunds every method in full, the refund-failing card too (its refunds fail on the refund endpoints only).
            if (e.status === 'ESCROWED') {
              expected = 'CANCELLED';
              // A card part an open or lost dispute took is not refunded to the card: it goes to the integrator.
              for (const c of e.charges) add(c.wallet ?? publisher.USD, c.wallet ? c.paid : Math.min(disputedOf(c), c.paid));
            } else if (e.status !== 'CANCELLED') http = 409;
          }
          assert.equal(res.status, http, `${kind} on ${e.status}: ${res.text}`);
          if (http === 200) assert.equal(res.body.payload.status, expected);
          e.status = expected;
        }

        /**
         * A refund's cells (line × method × amount) as the model runs them. The money comes from the
         * integrator's wallet in the purchase's currency; a part to the refund-failing card moves nothing.
         * In USD the wallet must cover every part that moves, else the refund is rejected (recorded,
         * 409 REFUND_REJECTED, nothing moved); in tokens the wallet pays what it holds, issuance the rest.
         */
        function runRefund(
          p: Purchase,
          lineItemId: string | null,
          cells: Array<{ line: Line; charge: Charge; amount: number }>,
          res: ApiResponse,
          what: string,
        ) {
          const parts: Array<{ charge: Charge; amount: number }> = [];
          for (const cell of cells) {
            const part = parts.find((x) => x.charge === cell.charge);
            if (part) part.amount += cell.amount;
            else parts.push({ charge: cell.charge, amount: cell.amount });
          }
          const amount = cells.reduce((s, c) => s + c.amount, 0);
          const moving = parts.filter((x) => !x.charge.refundFails).reduce((s, x) => s + x.amount, 0);
          const rejected = p.currency === 'USD' && get(publisher.USD) < moving;
          const holds = `integrator holds ${get(publisher[p.currency])}, ${moving} to move`;
          if (rejected) {
            assert.equal(res.status, 409, `${what}, ${holds}: ${res.text}`);
            assert.deepEqual(res.body.codes, ['REFUND_REJECTED'], what);
          } else {
            assert.equal(res.status, 200, `${what}, ${holds}: ${res.text}`);
            const fromWallet = p.currency === 'USD' ? moving : Math.min(Math.max(get(publisher.VCD), 0), moving);
            add(publisher[p.currency], -fromWallet);
            for (const cell of cells) {
              if (cell.charge.refundFails) continue;
              cell.charge.back += cell.amount;
              cell.line.back += cell.amount;
              if (cell.charge.wallet) add(cell.charge.wallet, cell.amount);
            }
          }
          const failed = (c: Charge) => rejected || c.refundFails;
          p.refunds.push({
            status: rejected ? 'REFUND-REJECTED' : parts.some((x) => x.charge.refundFails) ? 'REFUND-FAILED' : 'REFUND-SUCCESS',
            line_item_id: lineItemId,
            amount,
            payment_methods: parts.map((x) => ({
              payment_method_id: x.charge.pm,
              amount: x.amount,
              status: failed(x.charge) ? ('failed' as const) : ('succeeded' as const),
            })),
          });
          checkSummary(p, res.body.payload, what);
        }

        /** The refund summary against the model: totals, and every refund in order with its parts. */
        function checkSummary(p: Purchase, summary: any, what: string) {
          const refunded = p.charges.reduce((s, c) => s + c.back, 0);
          // What disputes took is left out of what may be refunded (only on a purchase that may be refunded).
          const left = canRefund(p) ? p.charges.reduce((s, c) => s + chargeLeft(c), 0) : 0;
          const unrefunded = (c: Charge) => (canRefund(p) ? chargeLeft(c) : c.paid - c.back);
          assert.deepEqual(
            {
              refunded: summary.refunded,
              refundable: summary.refundable,
              is_fully_refunded: summary.is_fully_refunded,
              refunds: summary.refunds.map((r: any) => ({
                status: r.status,
                line_item_id: r.line_item_id,
                amount: r.amount,
                payment_methods: r.payment_methods,
              })),
            },
            {
              refunded: { [p.currency]: refunded },
              refundable: { [p.currency]: left },
              // Everything paid came back (whether or not the purchase may still be refunded).
              is_fully_refunded: refunded > 0 && p.charges.every((c) => unrefunded(c) === 0),
              refunds: p.refunds,
            },
            what,
          );
        }

        /** The line ids of a purchase, read once from its invoice (in the invoice's line order). */
        async function lineIds(p: Purchase) {
          if (p.lines.every((l) => l.id)) return;
          const invoice = await call('GET', `/v2/invoice/${p.invoiceId}`, { token: client.token });
          assert.equal(invoice.status, 200, invoice.text);
          const lines = Object.values(invoice.body.payload.line_items) as Array<{ line_item_id: string; amount: number }>;
          assert.deepEqual(
            lines.map((l) => l.amount),
            p.lines.map((l) => l.amount),
          );
          lines.forEach((l, i) => {
            p.lines[i].id = l.line_item_id;
          });
        }

        const payouts: Payout[] = [];
        const describedPayout = (p: Payout) =>
          `payout ${p.id} (${p.status}, ${p.amount} to the ${p.destination} destination, wallet holds ${get(p.account.wallet.USD)})`;

        /**
         * An execution as the model runs it: approval executes a FUNDS-IN-ESCROW payout and retries a
         * FAILED one, the staging PATCH and automatic approval only the first. The good destination is
         * paid (holding → clearing, SUCCESS), the failing one refuses (FAILED, the money stays held).
         */
        function executePayout(p: Payout, mode: 'auto' | 'approve' | 'patch', res: { status: number; body: any }, what: string) {
          const allowed = p.status === 'FUNDS-IN-ESCROW' || (mode === 'approve' && p.status === 'FAILED');
          if (!allowed) {
            if (mode === 'auto') return; // nothing to do: the automatic approval answers the payout as it is
            assert.equal(res.status, 409, `${what}: ${JSON.stringify(res.body)}`);
            assert.deepEqual(res.body.codes, ['PAYOUT_STATE_ERROR'], what);
            return;
          }
          if (mode !== 'auto' && waitsForDispute(p)) {
            // It holds value an open dispute traced: it waits for the dispute.
            assert.equal(res.status, 409, `${what}: ${JSON.stringify(res.body)}`);
            assert.deepEqual(res.body.codes, ['DISPUTE_OPEN'], what);
            return;
          }
          assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
          if (p.destination === 'good') {
            p.status = 'SUCCESS';
            add(payoutHolding, -p.amount);
            add(payoutClearing, p.amount);
          } else p.status = 'FAILED';
          p.events.push(p.status);
          assert.equal(res.body.payload.payout_status, p.status, what);
          assert.equal(res.body.payload.failure_code, p.status === 'FAILED' ? 'destination_rejected' : '', what);
        }

        /** A reversal as the model runs it: an open payout's money goes back to the wallet. */
        function reversePayout(p: Payout, by: 'user' | 'support', res: { status: number; body: any }, what: string) {
          if (!openPayout(p)) {
            assert.equal(res.status, 409, `${what}: ${JSON.stringify(res.body)}`);
            assert.deepEqual(res.body.codes, ['PAYOUT_STATE_ERROR'], what);
            return;
          }
          assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
          p.status = by === 'user' ? 'USER-REVERSED' : 'SUPPORT-REVERSED';
          p.events.push(p.status);
          add(payoutHolding, -p.amount);
          add(p.account.wallet.USD, p.amount);
          if (p.exchange) {
            // The conversion is undone too: its money back to the integrator, its tokens to the wallet.
            add(p.account.wallet.USD, -p.exchange.net);
            add(publisher.USD, p.exchange.net);
            add(p.account.wallet['VCD:convertible'], p.exchange.tokens);
          }
          assert.equal(res.body.payload.payout_status, p.status, what);
        }

        /** A payout request, answered by the model first (the checks in the order their answers take precedence). */
        async function requestPayout(op: Extract<Op, { kind: 'payout' }>) {
          const a = accounts[op.account];
          const wallet = a.wallet.USD;
          const amount = op.over !== null ? spendable(wallet) + op.over : op.amount;
          const open = payouts.filter((p) => p.account === a && openPayout(p)).length;
          const what = `payout request of ${amount} to the ${op.destination} destination (kyc ${a.kyc}, wallet holds ${get(wallet)}, ${heldOf(wallet)} held, ${open} open)`;
          const res = await call('POST', `/v2/${a.id}/payout`, {
            token: client.token,
            body: {
              source_payment_method_id: a.pm.USD,
              destination_payment_method_id: a.destinations[op.destination],
              amount,
              currency: 'USD',
            },
          });
          if (disputing(a)) {
            assert.equal(res.status, 409, `${what}: ${res.text}`);
            assert.deepEqual(res.body.codes, ['DISPUTE_OPEN'], what);
            return;
          }
          if (!a.kyc) {
            assert.equal(res.status, 409, `${what}: ${res.text}`);
            assert.deepEqual(res.body.codes, ['KYC_REQUIRED'], what);
            return;
          }
          if (open >= PAYOUT_OPEN_LIMIT) {
            assert.equal(res.status, 409, `${what}: ${res.text}`);
            assert.deepEqual(res.body.codes, ['PAYOUT_LIMIT'], what);
            return;
          }
          if (amount > spendable(wallet)) {
            assert.equal(res.status, 400, `${what}: ${res.text}`);
            assert.deepEqual(res.body.payload.errors, { amount: ['INSUFFICIENT_BALANCE'] }, what);
            return;
          }
          assert.equal(res.status, 201, `${what}: ${res.text}`);
          assert.equal(res.body.payload.payout_status, 'FUNDS-IN-ESCROW', what);
          assert.equal(res.body.payload.amount, amount, what);
          const p: Payout = {
            id: res.body.payload.payout_status_id,
            account: a,
            amount,
            destination: op.destination,
            status: 'FUNDS-IN-ESCROW',
            events: ['FUNDS-IN-ESCROW'],
          };
          payouts.push(p);
          add(wallet, -amount);
          add(payoutHolding, amount);
          if (amount > AUTO_APPROVE_MAX) return;
          // At or under the limit it executes by itself, after the request: wait for it to land.
          const deadline = Date.now() + 15_000;
          for (;;) {
            const got = await call('GET', `/v2/${a.id}/payout/${p.id}`, { token: client.token });
            assert.equal(got.status, 200, got.text);
            // PROCESSING: the execution has its attempt and is on the rail, not finished yet.
            if (!['FUNDS-IN-ESCROW', 'PROCESSING'].includes(got.body.payload.payout_status)) {
              executePayout(p, 'auto', { status: 200, body: got.body }, `automatic execution of ${what}`);
              return;
            }
            assert.ok(Date.now() < deadline, `the automatic execution of ${what} never came`);
            await new Promise((r) => setTimeout(r, 50));
          }
        }

        /**
         * A conversion as the model runs it: the quote (KYC, the convertible balance), then its
         * execution (the integrator's USD wallet must cover the net amount, else 409
         * CONVERSION_REJECTED and it stays OPEN); 100 VCD are USD 1.00, so each token is a cent.
         */
        async function convert(op: Extract<Op, { kind: 'convert' }>) {
          const a = accounts[op.account];
          const convertible = a.wallet['VCD:convertible'];
          const tokens = op.over !== null ? spendable(convertible) + op.over : op.amount;
          const what = `conversion of ${tokens} VCD (kyc ${a.kyc}, convertible holds ${get(convertible)}, ${heldOf(convertible)} held, integrator USD ${get(publisher.USD)})`;
          const quote = await call('POST', '/v2/token/convert', {
            token: client.token,
            body: { account_id: a.id, amount: tokens, currency: 'VCD' },
          });
          if (!a.kyc) {
            assert.equal(quote.status, 409, `${what}: ${quote.text}`);
            assert.deepEqual(quote.body.codes, ['KYC_REQUIRED'], what);
            return;
          }
          if (disputing(a)) {
            assert.equal(quote.status, 409, `${what}: ${quote.text}`);
            assert.deepEqual(quote.body.codes, ['DISPUTE_OPEN'], what);
            return;
          }
          if (tokens > spendable(convertible)) {
            assert.equal(quote.status, 400, `${what}: ${quote.text}`);
            assert.deepEqual(quote.body.payload.errors, { amount: ['INSUFFICIENT_BALANCE'] }, what);
            return;
          }
          assert.equal(quote.status, 201, `${what}: ${quote.text}`);
          const fee = Math.ceil((tokens * CONVERSION_FEE_BPS) / 10_000);
          assert.deepEqual([quote.body.payload.fiat_amount, quote.body.payload.fee_amount], [tokens, fee], what);
          const id = quote.body.payload.token_exchange_id;
          const net = tokens - fee;
          const executed = await call('POST', `/v2/token/convert/${id}`, { token: client.token });
          if (get(publisher.USD) < net) {
            assert.equal(executed.status, 409, `${what}: ${executed.text}`);
            assert.deepEqual(executed.body.codes, ['CONVERSION_REJECTED'], what);
            return;
          }
          assert.equal(executed.status, 200, `${what}: ${executed.text}`);
          assert.equal(executed.body.payload.status, 'EXECUTED', what);
          add(convertible, -tokens);
          add(a.wallet.USD, net);
          add(publisher.USD, -net);
          if (!op.payOut || net === 0) return;
          const open = payouts.filter((p) => p.account === a && openPayout(p)).length;
          const res = await call('POST', `/v2/${a.id}/payout`, {
            token: client.token,
            body: {
              source_payment_method_id: a.pm.USD,
              destination_payment_method_id: a.destinations.good,
              amount: net,
              currency: 'USD',
              token_exchange_id: id,
            },
          });
          if (open >= PAYOUT_OPEN_LIMIT) {
            assert.deepEqual(res.body.codes, ['PAYOUT_LIMIT'], `payout of ${what}: ${res.text}`);
            return;
          }
          assert.equal(res.status, 201, `payout of ${what}: ${res.text}`);
          const p: Payout = {
            id: res.body.payload.payout_status_id,
            account: a,
            amount: net,
            destination: 'good',
            status: 'FUNDS-IN-ESCROW',
            events: ['FUNDS-IN-ESCROW'],
            exchange: { id, tokens, net },
          };
          payouts.push(p);
          add(a.wallet.USD, -net);
          add(payoutHolding, net);
          // Under the automatic-approval limit it pays out by itself: wait for it, as requests do.
          if (net > AUTO_APPROVE_MAX) return;
          const deadline = Date.now() + 15_000;
          for (;;) {
            const got = await call('GET', `/v2/${a.id}/payout/${p.id}`, { token: client.token });
            if (!['FUNDS-IN-ESCROW', 'PROCESSING'].includes(got.body.payload.payout_status)) {
              executePayout(p, 'auto', { status: 200, body: got.body }, `automatic execution of the payout of ${what}`);
              return;
            }
            assert.ok(Date.now() < deadline, `the automatic execution of the payout of ${what} never came`);
            await new Promise((r) => setTimeout(r, 50));
          }
        }

        /** One move on a payout: approve or reject as the operator's CLI does, the staging PATCH, the user's DELETE. */
        async function movePayout(p: Payout, move: PayoutMove) {
          const what = `${move} of ${describedPayout(p)}`;
          if (move === 'approve' || move === 'reject') {
            const res = await operatorPayoutCommand(h().orm.em.fork(), sandboxPayoutRail, p.id, move);
            if (move === 'approve') executePayout(p, 'approve', res, what);
            else reversePayout(p, 'support', res, what);
            return;
          }
          const res = await call(move === 'patch' ? 'PATCH' : 'DELETE', `/v2/${p.account.id}/payout/${p.id}`, { token: client.token });
          if (move === 'patch') executePayout(p, 'patch', res, what);
          else reversePayout(p, 'user', res, what);
        }

        /** A token purchase with a card: its USD to the integrator, its tokens (a cent each) to the buyer's standard wallet. */
        async function buyTokens(op: Extract<Op, { kind: 'token-buy' }>) {
          const buyer = accounts[op.buyer];
          const card = buyer.cards[op.card];
          const res = await call('POST', '/v2/token/purchase', {
            token: client.token,
            body: { payment_method_id: card, amount: op.amount, currency: 'USD' },
          });
          assert.equal(res.status, 201, `token purchase of ${op.amount}: ${res.text}`);
          assert.equal(res.body.payload.state, 'SUCCESS', res.text);
          add(publisher.USD, op.amount);
          add(buyer.wallet['VCD:standard'], op.amount);
          tokenBuys.push({
            invoiceId: res.body.payload.invoice_id,
            buyer,
            currency: 'USD',
            charges: [{ pm: card, refundFails: op.card === 'refund-fails', paid: op.amount, back: 0 }],
            lines: [{ amount: op.amount, back: 0 }],
            state: 'SUCCESS',
            refunds: [],
          });
        }

        /**
         * The sandbox processor's notice on a purchase's card charge, answered by the model first: a
         * charge of a paid purchase opens a dispute of what it still has (nothing after an escrow
         * cancel), taking that and the fee from the integrator's wallet (below zero if need be); the
         * same charge again answers its dispute; anything else is 400 naming `payment_method_id`.
         */
        async function openDispute(p: Purchase) {
          const charge = p.charges.find((c) => !c.wallet) ?? p.charges[0];
          const what = `dispute of ${described(p)}`;
          const res = await call('POST', '/v2/sandbox/disputes', {
            token: client.token,
            body: { invoice_id: p.invoiceId, payment_method_id: charge.pm },
          });
          const paid = p.escrow ? ['ESCROWED', 'COMMITTED', 'CANCELLED'].includes(p.escrow.status) : p.state === 'SUCCESS';
          if (charge.wallet || !paid) {
            assert.equal(res.status, 400, `${what}: ${res.text}`);
            assert.deepEqual(Object.keys(res.body.payload.errors), ['payment_method_id'], what);
            return;
          }
          assert.equal(res.status, 200, `${what}: ${res.text}`);
          const existing = disputes.find((d) => d.charge === charge);
          if (existing) {
            assert.equal(res.body.payload.dispute_id, existing.id, what);
            assert.equal(res.body.payload.status, existing.status === 'OPEN' ? 'NEEDS_RESPONSE' : existing.status, what);
            return;
          }
          const amount = p.escrow?.status === 'CANCELLED' ? 0 : charge.paid - charge.back;
          const got = res.body.payload;
          assert.deepEqual([got.status, got.amount, got.fee, got.account_id], ['NEEDS_RESPONSE', amount, DISPUTE_FEE, p.buyer.id], what);
          add(publisher.USD, -(amount + DISPUTE_FEE));
          add(disputeHolding, amount);
          add(disputeFees, DISPUTE_FEE);
          const d: Dispute = {
            id: got.dispute_id,
            purchase: p,
            charge,
            amount,
            status: 'OPEN',
            holds: [],
            escrows: new Set(),
            payouts: new Set(),
          };
          // Where the value is, as the trace found it: what is in a wallet is held there, within what the wallet had free.
          const free = new Map<string, number>();
          for (const t of got.traced as Array<{ wallet_id: string; amount: number; held: number; state: string; reference_id: string }>) {
            assert.ok(t.held <= t.amount, `${what}: hold over its finding ${JSON.stringify(t)}`);
            if (t.state === 'escrowed') {
              assert.ok(
                escrows.some((e) => e.id === t.reference_id && e.status === 'ESCROWED'),
                `${what}: traced into an escrow that is not ESCROWED ${JSON.stringify(t)}`,
              );
              d.escrows.add(t.reference_id);
            } else if (t.state === 'payout_waiting') {
              assert.ok(
                payouts.some((x) => x.id === t.reference_id && openPayout(x)),
                `${what}: traced into a payout that is not open ${JSON.stringify(t)}`,
              );
              d.payouts.add(t.reference_id);
            } else if (t.held > 0) {
              assert.ok(model.has(t.wallet_id), `${what}: held in a wallet the model does not know ${JSON.stringify(t)}`);
              if (!free.has(t.wallet_id)) free.set(t.wallet_id, spendable(t.wallet_id));
              free.set(t.wallet_id, free.get(t.wallet_id)! - t.held);
              assert.ok(free.get(t.wallet_id)! >= 0, `${what}: more held than the wallet had free ${JSON.stringify(got.traced)}`);
              d.holds.push({ wallet: t.wallet_id, held: t.held });
              heldModel.set(t.wallet_id, heldOf(t.wallet_id) + t.held);
            }
          }
          disputes.push(d);
        }

        /** The sandbox processor decides a dispute: WON gives the amount back and releases its holds, LOST claws them back. */
        async function decide(d: Dispute, outcome: 'won' | 'lost') {
          const status = outcome === 'won' ? 'WON' : 'LOST';
          const what = `${outcome} on dispute ${d.id} (${d.status}, ${d.amount}, holds ${JSON.stringify(d.holds)})`;
          const res = await call('POST', `/v2/sandbox/disputes/${d.id}/close`, { token: client.token, body: { outcome } });
          if (d.status !== 'OPEN') {
            if (d.status === status) {
              assert.equal(res.status, 200, `${what}: ${res.text}`);
              assert.equal(res.body.payload.status, status, what);
            } else {
              assert.equal(res.status, 409, `${what}: ${res.text}`);
              assert.deepEqual(res.body.codes, ['DISPUTE_STATE_ERROR'], what);
            }
            return;
          }
          assert.equal(res.status, 200, `${what}: ${res.text}`);
          assert.equal(res.body.payload.status, status, what);
          d.status = status;
          add(disputeHolding, -d.amount);
          add(status === 'WON' ? publisher.USD : disputeLosses, d.amount);
          for (const hold of d.holds) {
            heldModel.set(hold.wallet, heldOf(hold.wallet) - hold.held);
            if (status === 'WON') continue;
            // Clawed back: tokens to issuance (outside the model), fiat to the integrator's wallet.
            add(hold.wallet, -hold.held);
            if (usdWallets.has(hold.wallet)) add(publisher.USD, hold.held);
          }
          const traced = res.body.payload.traced as Array<{ held: number; released: number; clawed_back: number }>;
          const total = d.holds.reduce((s, x) => s + x.held, 0);
          assert.deepEqual(
            [traced.reduce((s, t) => s + t.held, 0), traced.reduce((s, t) => s + (status === 'WON' ? t.released : t.clawed_back), 0)],
            [0, total],
            what,
          );
        }

        const tokenBuys: Purchase[] = [];
        const escrows: Escrow[] = [];
        const purchases: Purchase[] = [];
        for (const op of ops) {
          if (op.kind === 'create') {
            const buyer = accounts[op.buyer];
            const seller = accounts[op.seller];
            const share = Math.floor((op.amount * op.share) / 100);
            const { payment_methods, charges } = chargesFor(buyer, op.currency, op.pay, op.card, op.amount);
            const res = await call('POST', '/v2/escrow', {
              token: client.token,
              body: {
                account_id: buyer.id,
                payment_methods,
                line_items: [
                  {
                    amount: op.amount,
                    currency: op.currency,
                    transaction_type: 'user_to_user',
                    recipients:
                      share > 0
                        ? [{ amount: share, currency: op.currency, destination_wallet_id: seller.wallet[spendKey(op.currency)] }]
                        : [],
                  },
                ],
              },
            });
            assert.equal(res.status, 201, res.text);
            const escrow: Escrow = {
              id: res.body.payload.id,
              status: 'OPEN',
              currency: op.currency,
              charges,
              seller,
              amount: op.amount,
              share,
            };
            escrows.push(escrow);
            purchases.push({
              invoiceId: res.body.payload.escrow_invoice_id,
              buyer,
              currency: op.currency,
              charges,
              lines: [{ amount: op.amount, back: 0 }],
              escrow,
              refunds: [],
            });
            // Some escrows go on at once, so that committed ones are there to refund.
            if (op.advance !== 'none') await transition(escrow, 'pay');
            if (op.advance === 'commit') await transition(escrow, 'commit');
            continue;
          }
          if (op.kind === 'buy') {
            const buyer = accounts[op.buyer];
            const seller = accounts[op.seller];
            const lines = op.lines.map((l) => ({ amount: l.amount, share: Math.floor((l.amount * l.share) / 100) }));
            const total = lines.reduce((s, l) => s + l.amount, 0);
            const { payment_methods, charges } = chargesFor(buyer, op.currency, op.pay, op.card, total);
            const created = await call('POST', '/v2/invoice', {
              token: client.token,
              body: {
                account_id: buyer.id,
                payment_methods,
                line_items: lines.map((l) =>
                  l.share > 0
                    ? {
                        amount: l.amount,
                        currency: op.currency,
                        transaction_type: 'user_to_user',
                        recipients: [
                          { amount: l.share, currency: op.currency, destination_wallet_id: seller.wallet[spendKey(op.currency)] },
                        ],
                      }
                    : { amount: l.amount, currency: op.currency, transaction_type: 'user_to_integrator' },
                ),
              },
            });
            assert.equal(created.status, 201, created.text);
            const invoiceId = created.body.payload.invoice_id;
            const paid = await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token });
            // All or nothing: a wallet that cannot cover its charge fails the whole payment.
            const ok = affordable(charges);
            assert.equal(paid.status, 200, paid.text);
            assert.equal(paid.body.payload.state, ok ? 'SUCCESS' : 'FAILED', paid.text);
            if (ok) {
              for (const c of charges) if (c.wallet) add(c.wallet, -c.paid);
              for (const l of lines) {
                if (l.share > 0) add(seller.wallet[payoutKey(op.currency)], l.share);
                add(publisher[op.currency], l.amount - l.share);
              }
            }
            purchases.push({
              invoiceId,
              buyer,
              currency: op.currency,
              charges,
              lines: lines.map((l) => ({ amount: l.amount, back: 0 })),
              state: ok ? 'SUCCESS' : 'FAILED',
              refunds: [],
            });
            continue;
          }
          if (op.kind === 'fund-integrator') {
            // Money paid in to the integrator from outside (as `holdfast integrator fund` does on staging).
            await fund(publisher.USD, 'USD', op.amount);
            add(publisher.USD, op.amount);
            continue;
          }
          if (op.kind === 'refund') {
            const p = purchases[op.purchase % Math.max(purchases.length, 1)];
            if (!p) continue;
            for (let round = 0; round < (op.twice ? 2 : 1); round++) {
              const what = `full refund of ${described(p)}`;
              const res = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: p.invoiceId, reason: 'other' } });
              // The model's answer. A full refund gives each payment method what it paid less what it has had
              // back; its cells fill the lines in order from the methods in the purchase's order.
              if (!canRefund(p)) {
                assert.equal(res.status, 409, `${what}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['REFUND_NOT_ALLOWED'], what);
                continue;
              }
              // A disputed card part went back to the cardholder through the processor: not refunded again.
              const methodLeft = new Map(p.charges.map((c) => [c, chargeLeft(c)]));
              if (p.charges.some((c) => c.paid > c.back) && [...methodLeft.values()].every((v) => v === 0)) {
                assert.equal(res.status, 409, `${what}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['DISPUTED'], what);
                continue;
              }
              if ([...methodLeft.values()].every((v) => v === 0)) {
                assert.equal(res.status, 409, `${what}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['NOTHING_TO_REFUND'], what);
                continue;
              }
              const cells: Array<{ line: Line; charge: Charge; amount: number }> = [];
              for (const line of p.lines) {
                let lineLeft = line.amount - line.back;
                for (const charge of p.charges) {
                  const amount = Math.min(lineLeft, methodLeft.get(charge)!);
                  if (amount === 0) continue;
                  cells.push({ line, charge, amount });
                  methodLeft.set(charge, methodLeft.get(charge)! - amount);
                  lineLeft -= amount;
                }
              }
              // What the lines have left is what the methods have left: the fill gives every method all of it.
              assert.ok(
                [...methodLeft.values()].every((v) => v === 0),
                `model: lines and methods disagree on ${what}`,
              );
              runRefund(p, null, cells, res, what);
            }
            continue;
          }
          if (op.kind === 'line-refund') {
            const p = purchases[op.purchase % Math.max(purchases.length, 1)];
            if (!p) continue;
            await lineIds(p);
            const line = p.lines[op.line % p.lines.length];
            const lineLeft = line.amount - line.back;
            const amount = op.beyond !== null ? lineLeft + op.beyond : Math.max(1, Math.floor((lineLeft * op.percent) / 100));
            const ordered = op.reverse ? [...p.charges].reverse() : [...p.charges];
            const named = op.onlyFirst ? ordered.slice(0, 1) : ordered;
            const what = `refund of ${amount} of line ${line.id} [${line.amount}, ${line.back}] from ${named.length} method(s) of ${described(p)}`;
            const res = await call('POST', '/v2/line-item/refund', {
              token: client.token,
              body: { line_item_id: line.id, amount, payment_methods: named.map((c) => c.pm), reason: 'product_related' },
            });
            // The model's answer. A line-item refund takes from the named methods in order, each at most what it
            // paid and has not had back, and never more than the line has left.
            if (!canRefund(p)) {
              assert.equal(res.status, 409, `${what}: ${res.text}`);
              assert.deepEqual(res.body.codes, ['REFUND_NOT_ALLOWED'], what);
              continue;
            }
            if (named.some((c) => c.paid > c.back) && named.every((c) => chargeLeft(c) === 0)) {
              assert.equal(res.status, 409, `${what}: ${res.text}`);
              assert.deepEqual(res.body.codes, ['DISPUTED'], what);
              continue;
            }
            if (lineLeft === 0) {
              assert.equal(res.status, 409, `${what}: ${res.text}`);
              assert.deepEqual(res.body.codes, ['NOTHING_TO_REFUND'], what);
              continue;
            }
            if (amount > lineLeft) {
              assert.equal(res.status, 400, `${what}: ${res.text}`);
              assert.deepEqual(Object.keys(res.body.payload.errors), ['amount'], what);
              continue;
            }
            const cells: Array<{ line: Line; charge: Charge; amount: number }> = [];
            let rest = amount;
            for (const charge of named) {
              const take = Math.min(chargeLeft(charge), rest);
              if (take > 0) cells.push({ line, charge, amount: take });
              rest -= take;
            }
            if (rest > 0) {
              assert.equal(res.status, 400, `${what}: ${res.text}`);
              assert.deepEqual(Object.keys(res.body.payload.errors), ['payment_methods'], what);
              continue;
            }
            runRefund(p, line.id!, cells, res, what);
            continue;
          }
          if (op.kind === 'payout') {
            for (let round = 0; round < op.repeat; round++) await requestPayout(op);
            continue;
          }
          if (op.kind === 'convert') {
            await convert(op);
            continue;
          }
          if (op.kind === 'token-buy') {
            await buyTokens(op);
            continue;
          }
          if (op.kind === 'dispute') {
            const all = [...purchases, ...tokenBuys].filter((x) => !op.card || x.charges.some((c) => !c.wallet));
            // Nothing a card paid yet: a token purchase first, to dispute.
            if (all.length === 0)
              await buyTokens({ kind: 'token-buy', buyer: op.purchase % 3, amount: 10 + op.purchase * 10, card: 'good' });
            const p = all[op.purchase % Math.max(all.length, 1)] ?? tokenBuys[0];
            for (let round = 0; round < (op.twice ? 2 : 1); round++) await openDispute(p);
            continue;
          }
          if (op.kind === 'decide') {
            const among = op.open && openDisputes().length ? openDisputes() : disputes;
            const d = among[op.dispute % Math.max(among.length, 1)];
            if (!d) continue;
            for (let round = 0; round < (op.twice ? 2 : 1); round++) await decide(d, op.outcome);
            continue;
          }
          if (op.kind === 'payout-move') {
            const p = payouts[op.payout % Math.max(payouts.length, 1)];
            if (!p) continue;
            for (let round = 0; round < (op.twice ? 2 : 1); round++) await movePayout(p, op.move);
            continue;
          }
          const e = escrows[op.escrow % Math.max(escrows.length, 1)];
          if (!e) continue;
          for (let round = 0; round < (op.twice ? 2 : 1); round++) await transition(e, op.kind);
        }

        const report = await verifyAll(h().orm.em.fork());
        assert.deepEqual(report.problems, []);
        const actual = await balances(h().orm.em.fork(), [...model.keys()]);
        const rows = await stored([...model.keys()]);
        for (const [wallet, balance] of model) {
          assert.equal(rows.get(wallet)?.balance ?? 0, balance, `wallet ${wallet}`);
          assert.equal(rows.get(wallet)?.held ?? 0, heldOf(wallet), `held on wallet ${wallet}`);
          assert.equal(actual.get(wallet) ?? 0, spendable(wallet), `spendable in wallet ${wallet}`);
        }
        for (const d of disputes) {
          const got = await call('GET', `/v2/disputes/${d.id}`, { token: client.token });
          assert.equal(got.status, 200, got.text);
          assert.deepEqual(
            [got.body.payload.status, got.body.payload.amount],
            [d.status === 'OPEN' ? 'NEEDS_RESPONSE' : d.status, d.amount],
          );
        }
        for (const p of purchases) {
          const summary = await call('GET', `/v2/invoice/${p.invoiceId}/refunds`, { token: client.token });
          assert.equal(summary.status, 200, summary.text);
          checkSummary(p, summary.body.payload, `summary of ${described(p)}`);
        }
        // Every payout as the model has it, and one payout-complete event per state change.
        for (const p of payouts) {
          const got = await call('GET', `/v2/${p.account.id}/payout/${p.id}`, { token: client.token });
          assert.equal(got.status, 200, got.text);
          assert.equal(got.body.payload.payout_status, p.status, describedPayout(p));
          assert.deepEqual(await payoutEvents(p.id), p.events, `events of ${describedPayout(p)}`);
        }
        for (const a of accounts) {
          const listed = await call('GET', `/v2/${a.id}/payouts?limit=100`, { token: client.token });
          assert.equal(listed.status, 200, listed.text);
          const mine = payouts.filter((p) => p.account === a).reverse();
          assert.equal(listed.body.payload.total, mine.length);
          assert.deepEqual(
            listed.body.payload.payouts.map((x: { payout_status_id: string; payout_status: string }) => [
              x.payout_status_id,
              x.payout_status,
            ]),
            mine.map((p) => [p.id, p.status]),
          );
        }
      }),
      { numRuns, ...seed },
    );
  });
});
