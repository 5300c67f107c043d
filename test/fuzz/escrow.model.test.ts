import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createIntegrator } from '../../src/auth/auth.service.js';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyLedger } from '../../src/escrow/ledger-verify.service.js';
import { addCard, call, h, newClient, register, unique, type ApiResponse, type TestClient } from '../support/harness.js';

type Currency = 'USD' | 'VCD';
type Status = 'OPEN' | 'ESCROWED' | 'ESCROW-FAILED' | 'COMMITTED' | 'CANCELLED';
type PayWith = 'wallet' | 'card' | 'split';

interface Account {
  id: string;
  card: string;
  /** payment method ids and wallet (ledger) ids by key USD | VCD:standard | VCD:convertible */
  pm: Record<string, string>;
  wallet: Record<string, string>;
}

/** What one payment method paid for a purchase, and what it has had back (successful refunds only). */
interface Charge {
  pm: string;
  /** The buyer's wallet it came from (undefined: a card). */
  wallet?: string;
  paid: number;
  back: number;
}

/** A refund as the model expects the invoice's refund summary to list it. */
interface ExpectedRefund {
  status: 'REFUND-SUCCESS' | 'REFUND-REJECTED';
  amount: number;
  payment_methods: Array<{ payment_method_id: string; amount: number }>;
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

/** A purchase invoice the refunds may name: a standard invoice, or an escrow's escrow invoice. */
interface Purchase {
  invoiceId: string;
  currency: Currency;
  charges: Charge[];
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
    }
  | { kind: 'refund'; purchase: number; twice: boolean }
  | { kind: 'fund-integrator'; amount: number };

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
      pay: fc.constantFrom<PayWith>('wallet', 'card', 'split'),
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
      pay: fc.constantFrom<PayWith>('wallet', 'card', 'split'),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('refund' as const), purchase: fc.nat(20), twice: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fund-integrator' as const), amount: fc.integer({ min: 1, max: 1500 }) }) },
);

/** The seed of a run can be fixed from outside (FC_SEED=n) to replay or vary it. */
const seed = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};

describe('escrow model (fast-check): random sequences keep every invariant and every balance', () => {
  let client: TestClient;
  let integratorId: string;
  before(async () => {
    const name = unique('model-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'VCD', tokensPerUsd: 100 })).id;
    client = await newClient({ integrator: name });
  });

  async function account(): Promise<Account> {
    const reg = await register(client);
    const card = await addCard(client, reg.account_id);
    const methods = (await call('GET', `/v1/${reg.account_id}/payment_methods`, { token: client.token })).body.payload;
    const a: Account = { id: reg.account_id, card, pm: {}, wallet: {} };
    for (const m of methods.filter((x: any) => x.provider === 'wallet')) {
      const key = m.processing_currency === 'USD' ? 'USD' : `VCD:${m.provider_data.wallet_type}`;
      a.pm[key] = m.id;
      a.wallet[key] = m.provider_data.wallet_id;
    }
    return a;
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

  /** Pays a wallet's whole balance out (to card clearing, or back to token issuance). */
  async function drain(wallet: string, currency: Currency) {
    const held = (await balances(h().orm.em.fork(), [wallet])).get(wallet) ?? 0;
    if (held > 0) await fund(wallet, currency, -held);
  }

  it('holds for random create / pay / commit / cancel / purchase / refund / repeated calls across accounts and currencies', async function () {
    this.timeout(240_000);
    const publisher = {
      USD: await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD'),
      VCD: await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'VCD'),
    };
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 24, size: 'max' }), async (ops) => {
        const accounts = [await account(), await account(), await account()];
        const model = new Map<string, number>();
        const get = (wallet: string) => model.get(wallet)!;
        const add = (wallet: string, amount: number) => model.set(wallet, get(wallet) + amount);
        const spendKey = (c: Currency) => (c === 'USD' ? 'USD' : 'VCD:standard');
        // A seller's share lands in its USD wallet, or in its convertible wallet for tokens.
        const payoutKey = (c: Currency) => (c === 'USD' ? 'USD' : 'VCD:convertible');
        for (const a of accounts) {
          for (const key of ['USD', 'VCD:standard', 'VCD:convertible']) model.set(a.wallet[key], 0);
          await fund(a.wallet.USD, 'USD', 1000);
          await fund(a.wallet['VCD:standard'], 'VCD', 1000);
          model.set(a.wallet.USD, 1000);
          model.set(a.wallet['VCD:standard'], 1000);
        }
        // The integrator's wallets start each run empty (what earlier runs left is paid out), so that
        // refunds it cannot cover happen.
        await drain(publisher.USD, 'USD');
        await drain(publisher.VCD, 'VCD');
        model.set(publisher.USD, 0);
        model.set(publisher.VCD, 0);

        /** The payment methods a purchase sends, and the charges the model expects from them. */
        function chargesFor(buyer: Account, currency: Currency, pay: PayWith, total: number) {
          const walletKey = spendKey(currency);
          const payWith = currency === 'VCD' ? 'wallet' : pay; // cards pay USD only
          const half = Math.floor(total / 2);
          const payment_methods =
            payWith === 'wallet'
              ? [{ payment_method_id: buyer.pm[walletKey], amount: 0 }]
              : payWith === 'card'
                ? [{ payment_method_id: buyer.card, amount: 0 }]
                : half > 0
                  ? [
                      { payment_method_id: buyer.pm[walletKey], amount: half },
                      { payment_method_id: buyer.card, amount: 0 },
                    ]
                  : [{ payment_method_id: buyer.card, amount: 0 }];
          const charges: Charge[] = payment_methods.map((pm) => ({
            pm: pm.payment_method_id,
            wallet: pm.payment_method_id === buyer.card ? undefined : buyer.wallet[walletKey],
            paid: pm.amount === 0 ? total - payment_methods.reduce((s, x) => s + x.amount, 0) : pm.amount,
            back: 0,
          }));
          return { payment_methods, charges };
        }
        const affordable = (charges: Charge[]) => charges.every((c) => !c.wallet || get(c.wallet) >= c.paid);

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
            if (e.status === 'ESCROWED') {
              expected = 'COMMITTED';
              if (e.share > 0) add(e.seller.wallet[payoutKey(e.currency)], e.share);
              add(publisher[e.currency], e.amount - e.share);
            } else if (e.status !== 'COMMITTED') http = 409;
          } else if (kind === 'cancel') {
            if (e.status === 'ESCROWED') {
              expected = 'CANCELLED';
              for (const c of e.charges) if (c.wallet) add(c.wallet, c.paid);
            } else if (e.status !== 'CANCELLED') http = 409;
          }
          assert.equal(res.status, http, `${kind} on ${e.status}: ${res.text}`);
          if (http === 200) assert.equal(res.body.payload.status, expected);
          e.status = expected;
        }

        const escrows: Escrow[] = [];
        const purchases: Purchase[] = [];
        for (const op of ops) {
          if (op.kind === 'create') {
            const buyer = accounts[op.buyer];
            const seller = accounts[op.seller];
            const share = Math.floor((op.amount * op.share) / 100);
            const { payment_methods, charges } = chargesFor(buyer, op.currency, op.pay, op.amount);
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
            purchases.push({ invoiceId: res.body.payload.escrow_invoice_id, currency: op.currency, charges, escrow, refunds: [] });
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
            const { payment_methods, charges } = chargesFor(buyer, op.currency, op.pay, total);
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
            purchases.push({ invoiceId, currency: op.currency, charges, state: ok ? 'SUCCESS' : 'FAILED', refunds: [] });
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
              const res = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: p.invoiceId, reason: 'other' } });
              // The model's answer. A full refund gives each payment method what it paid less what it has had back,
              // from the integrator's wallet in the purchase's currency: in USD only when that wallet covers all of it
              // (else rejected, recorded, nothing moved); in tokens what the wallet holds, token issuance the rest.
              const refundable = p.escrow ? p.escrow.status === 'COMMITTED' : p.state === 'SUCCESS';
              const owed = p.charges.map((c) => ({ charge: c, amount: c.paid - c.back })).filter((x) => x.amount > 0);
              const total = owed.reduce((s, x) => s + x.amount, 0);
              const what = `refund of ${p.invoiceId} (${p.escrow ? `escrow ${p.escrow.status}` : p.state}, owed ${total} ${p.currency})`;
              if (!refundable) {
                assert.equal(res.status, 409, `${what}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['REFUND_NOT_ALLOWED'], what);
                continue;
              }
              if (total === 0) {
                assert.equal(res.status, 409, `${what}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['NOTHING_TO_REFUND'], what);
                continue;
              }
              const parts = owed.map((x) => ({ payment_method_id: x.charge.pm, amount: x.amount }));
              if (p.currency === 'USD' && get(publisher.USD) < total) {
                assert.equal(res.status, 409, `${what}, integrator holds ${get(publisher.USD)}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['REFUND_REJECTED'], what);
                p.refunds.push({ status: 'REFUND-REJECTED', amount: total, payment_methods: parts });
              } else {
                assert.equal(res.status, 200, `${what}, integrator holds ${get(publisher[p.currency])}: ${res.text}`);
                const fromWallet = p.currency === 'USD' ? total : Math.min(Math.max(get(publisher.VCD), 0), total);
                add(publisher[p.currency], -fromWallet);
                for (const x of owed) {
                  x.charge.back += x.amount;
                  if (x.charge.wallet) add(x.charge.wallet, x.amount);
                }
                p.refunds.push({ status: 'REFUND-SUCCESS', amount: total, payment_methods: parts });
              }
              checkSummary(p, res.body.payload, what);
            }
            continue;
          }
          const e = escrows[op.escrow % Math.max(escrows.length, 1)];
          if (!e) continue;
          for (let round = 0; round < (op.twice ? 2 : 1); round++) await transition(e, op.kind);
        }
        /** The refund summary against the model: totals, and every refund in order with its parts. */
        function checkSummary(p: Purchase, summary: any, what: string) {
          const refundable = p.escrow ? p.escrow.status === 'COMMITTED' : p.state === 'SUCCESS';
          const refunded = p.refunds.filter((r) => r.status === 'REFUND-SUCCESS').reduce((s, r) => s + r.amount, 0);
          const left = refundable ? p.charges.reduce((s, c) => s + c.paid - c.back, 0) : 0;
          assert.deepEqual(
            {
              refunded: summary.refunded,
              refundable: summary.refundable,
              is_fully_refunded: summary.is_fully_refunded,
              refunds: summary.refunds.map((r: any) => ({ status: r.status, amount: r.amount, payment_methods: r.payment_methods })),
            },
            {
              refunded: { [p.currency]: refunded },
              refundable: { [p.currency]: left },
              is_fully_refunded: left === 0 && refunded > 0,
              refunds: p.refunds,
            },
            what,
          );
        }

        const report = await verifyLedger(h().orm.em.fork());
        assert.deepEqual(report.problems, []);
        const actual = await balances(h().orm.em.fork(), [...model.keys()]);
        for (const [wallet, balance] of model) assert.equal(actual.get(wallet) ?? 0, balance, `wallet ${wallet}`);
        for (const p of purchases) {
          const summary = await call('GET', `/v2/invoice/${p.invoiceId}/refunds`, { token: client.token });
          assert.equal(summary.status, 200, summary.text);
          checkSummary(p, summary.body.payload, `summary of ${p.invoiceId}`);
        }
      }),
      { numRuns: 20, ...seed },
    );
  });
});
