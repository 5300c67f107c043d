import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { call, h, newClient, register, unique, type ApiResponse, type TestClient } from '../support/harness.js';

type Capability = 'login' | 'transactions' | 'payouts';
type Status = 'OPEN' | 'ESCROWED' | 'ESCROW-FAILED' | 'COMMITTED' | 'CANCELLED';

interface Account {
  id: string;
  pm: Record<'standard' | 'convertible', string>;
  wallet: Record<'standard' | 'convertible', string>;
  blocks: Set<Capability>;
  /** Merged into another account (its merge block active): its purchases cannot be refunded. */
  merged: boolean;
}

type Op =
  | { kind: 'create'; buyer: number; seller: number; amount: number; share: number }
  | { kind: 'pay' | 'commit' | 'cancel' | 'settle'; escrow: number }
  | { kind: 'block' | 'unblock'; account: number; capability: Capability }
  | { kind: 'merge'; source: number; destination: number }
  | { kind: 'refund'; escrow: number }
  | { kind: 'line-refund'; escrow: number; percent: number; beyond: number | null };

const account = fc.nat(2);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      buyer: account,
      seller: account,
      amount: fc.integer({ min: 1, max: 400 }),
      share: fc.integer({ min: 0, max: 100 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('pay' as const, 'commit' as const, 'cancel' as const), escrow: fc.nat(20) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('block' as const, 'unblock' as const),
      account,
      capability: fc.constantFrom<Capability>('login', 'transactions', 'payouts'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('merge' as const), source: account, destination: account }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), escrow: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), escrow: fc.nat(20) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('line-refund' as const),
      escrow: fc.nat(20),
      percent: fc.integer({ min: 1, max: 100 }),
      beyond: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 50 }) }),
    }),
  },
);

/** The seed can be fixed from outside (FC_SEED=n) to replay or vary a run. */
const seed = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};

/** Whether blocks stop an account buying or selling (a login block includes every capability). */
const cannotTransact = (a: Account) => a.blocks.has('login') || a.blocks.has('transactions');

describe('accounts model (fast-check): blocks, merges and escrows interleaved keep every rule and every balance', () => {
  let client: TestClient;
  let operator: TestClient;
  let integratorId: string;
  before(async () => {
    const name = unique('amodel-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'VCD', tokensPerUsd: 100 })).id;
    client = await newClient({ integrator: name });
    operator = await newClient({ integrator: name, isOperator: true });
  });

  async function newAccount(): Promise<Account> {
    const reg = await register(client);
    const methods = (await call('GET', `/v1/${reg.account_id}/payment_methods`, { token: client.token })).body.payload;
    const a: Account = { id: reg.account_id, pm: {} as Account['pm'], wallet: {} as Account['wallet'], blocks: new Set(), merged: false };
    for (const m of methods.filter((x: any) => x.provider === 'wallet' && x.processing_currency === 'VCD')) {
      a.pm[m.provider_data.wallet_type as 'standard'] = m.id;
      a.wallet[m.provider_data.wallet_type as 'standard'] = m.provider_data.wallet_id;
    }
    return a;
  }

  /** Credits a wallet from token issuance (a negative amount pays it back). */
  async function fund(wallet: string, amount: number) {
    const source = await systemAccount(h().orm.em.fork(), integratorId, 'token_issuance', 'VCD');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId,
          reference: unique('amodel-fund-'),
          description: 'model funding',
          entries: [
            { account: source, currency: 'VCD', amount: -amount },
            { account: wallet, currency: 'VCD', amount },
          ],
        }),
      );
  }

  it('holds for random sequences', async function () {
    this.timeout(240_000);
    const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'VCD');
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 8, maxLength: 24, size: 'max' }), async (ops) => {
        const accounts = [await newAccount(), await newAccount(), await newAccount()];
        const model = new Map<string, number>();
        for (const a of accounts) {
          model.set(a.wallet.standard, 500);
          model.set(a.wallet.convertible, 0);
          await fund(a.wallet.standard, 500);
        }
        // The integrator's token wallet starts each run empty: a refund takes what it holds, token issuance the rest.
        const held = (await balances(h().orm.em.fork(), [publisher])).get(publisher) ?? 0;
        if (held > 0) await fund(publisher, -held);
        model.set(publisher, 0);
        const add = (wallet: string, amount: number) => model.set(wallet, model.get(wallet)! + amount);
        const escrows: Array<{
          id: string;
          invoiceId: string;
          lineId?: string;
          status: Status;
          buyer: Account;
          seller: Account;
          amount: number;
          share: number;
          /** What the buyer's wallet has had back in refunds. */
          back: number;
          refunds: number;
        }> = [];
        for (const op of ops) {
          switch (op.kind) {
            case 'create': {
              const buyer = accounts[op.buyer];
              const seller = accounts[op.seller];
              const share = Math.floor((op.amount * op.share) / 100);
              const res = await call('POST', '/v2/escrow', {
                token: client.token,
                body: {
                  account_id: buyer.id,
                  payment_methods: [{ payment_method_id: buyer.pm.standard, amount: 0 }],
                  line_items: [
                    {
                      amount: op.amount,
                      currency: 'VCD',
                      transaction_type: 'user_to_user',
                      recipients: share > 0 ? [{ amount: share, currency: 'VCD', destination_wallet_id: seller.wallet.standard }] : [],
                    },
                  ],
                },
              });
              const refused = cannotTransact(buyer) ? buyer : share > 0 && cannotTransact(seller) ? seller : undefined;
              if (refused) {
                assert.equal(res.status, 403, res.text);
                assert.equal(res.body.payload, `Account ${refused.id} is blocked.`);
              } else {
                assert.equal(res.status, 201, res.text);
                escrows.push({
                  id: res.body.payload.id,
                  invoiceId: res.body.payload.escrow_invoice_id,
                  status: 'OPEN',
                  buyer,
                  seller,
                  amount: op.amount,
                  share,
                  back: 0,
                  refunds: 0,
                });
              }
              break;
            }
            case 'pay':
            case 'commit':
            case 'cancel':
            case 'settle': {
              const e = escrows[op.escrow % Math.max(escrows.length, 1)];
              if (!e) break;
              // `settle` pays and commits one escrow, so that committed ones are there to refund.
              for (const kind of op.kind === 'settle' ? (['pay', 'commit'] as const) : [op.kind]) {
                const res = await call('POST', `/v2/escrow/${e.id}/${kind}`, { token: client.token });
                let expected = e.status;
                let http = 200;
                if (e.status === 'ESCROW-FAILED') http = 409;
                else if (kind === 'pay' && e.status === 'OPEN') {
                  const wallet = e.buyer.wallet.standard;
                  const ok = !cannotTransact(e.buyer) && model.get(wallet)! >= e.amount;
                  expected = ok ? 'ESCROWED' : 'ESCROW-FAILED';
                  if (ok) model.set(wallet, model.get(wallet)! - e.amount);
                } else if (kind === 'commit') {
                  // Blocks never stop a commit: the seller's convertible wallet is paid even when blocked.
                  if (e.status === 'ESCROWED') {
                    expected = 'COMMITTED';
                    if (e.share > 0) model.set(e.seller.wallet.convertible, model.get(e.seller.wallet.convertible)! + e.share);
                    add(publisher, e.amount - e.share);
                  } else if (e.status !== 'COMMITTED') http = 409;
                } else if (kind === 'cancel') {
                  if (e.status === 'ESCROWED') {
                    expected = 'CANCELLED';
                    model.set(e.buyer.wallet.standard, model.get(e.buyer.wallet.standard)! + e.amount);
                  } else if (e.status !== 'CANCELLED') http = 409;
                }
                assert.equal(res.status, http, `${kind} on ${e.status}: ${res.text}`);
                if (http === 200) assert.equal(res.body.payload.status, expected);
                e.status = expected;
              }
              break;
            }
            case 'block': {
              const a = accounts[op.account];
              const res = await call('POST', '/v2/block', {
                token: operator.token,
                body: { account_id: a.id, block_capability: op.capability, block_reason: 'compliance' },
              });
              assert.equal(res.status, 200, res.text);
              a.blocks.add(op.capability);
              assert.deepEqual(Object.keys(res.body.blocks).sort(), [...a.blocks].sort());
              break;
            }
            case 'unblock': {
              const a = accounts[op.account];
              const res = await call('DELETE', `/v2/block/${a.id}/capability/${op.capability}`, { token: operator.token });
              assert.equal(res.status, 200, res.text);
              a.blocks.delete(op.capability);
              // Lifting the login block lifts a merge's too: the account counts as merged no more.
              if (op.capability === 'login') a.merged = false;
              assert.deepEqual(Object.keys(res.body.blocks).sort(), [...a.blocks].sort());
              break;
            }
            case 'merge': {
              const source = accounts[op.source];
              const destination = accounts[op.destination];
              const res = await call('POST', '/v2/merge-accounts', {
                token: client.token,
                body: { source_account_id: source.id, destination_account_id: destination.id },
              });
              // An unfinished escrow (OPEN or ESCROWED) naming the source, as buyer or as payee, refuses the merge.
              const inEscrow = escrows.some(
                (e) => (e.status === 'OPEN' || e.status === 'ESCROWED') && (e.buyer === source || (e.seller === source && e.share > 0)),
              );
              if (source === destination) assert.equal(res.status, 400, res.text);
              else if (source.blocks.has('login') || destination.blocks.has('login') || inEscrow) assert.equal(res.status, 409, res.text);
              else {
                assert.equal(res.status, 200, res.text);
                for (const kind of ['standard', 'convertible'] as const) {
                  model.set(destination.wallet[kind], model.get(destination.wallet[kind])! + model.get(source.wallet[kind])!);
                  model.set(source.wallet[kind], 0);
                }
                source.blocks.add('login');
                source.merged = true;
              }
              break;
            }
            case 'refund':
            case 'line-refund': {
              const e = escrows[op.escrow % Math.max(escrows.length, 1)];
              if (!e) break;
              let amount = e.amount - e.back;
              let res: ApiResponse;
              if (op.kind === 'refund') {
                res = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: e.invoiceId, reason: 'fraud' } });
              } else {
                if (!e.lineId) {
                  const invoice = await call('GET', `/v2/invoice/${e.invoiceId}`, { token: client.token });
                  e.lineId = Object.keys(invoice.body.payload.line_items)[0];
                }
                const left = e.amount - e.back;
                amount = op.beyond !== null ? left + op.beyond : Math.max(1, Math.floor((left * op.percent) / 100));
                res = await call('POST', '/v2/line-item/refund', {
                  token: client.token,
                  body: { line_item_id: e.lineId, amount, payment_methods: [e.buyer.pm.standard], reason: 'other' },
                });
              }
              // The model's answer: only a committed escrow of a buyer not merged away can be refunded; blocks do not
              // stop it (money is returned, not spent). The buyer's standard wallet has its tokens back, the
              // integrator's token wallet pays what it holds and token issuance the rest.
              const what = `${op.kind} of ${amount} of ${e.invoiceId} (${e.status}, ${e.back}/${e.amount} back, buyer blocks [${[...e.buyer.blocks]}]${e.buyer.merged ? ', merged' : ''})`;
              if (e.status !== 'COMMITTED' || e.buyer.merged) {
                assert.equal(res.status, 409, `${what}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['REFUND_NOT_ALLOWED'], what);
              } else if (e.back === e.amount) {
                assert.equal(res.status, 409, `${what}: ${res.text}`);
                assert.deepEqual(res.body.codes, ['NOTHING_TO_REFUND'], what);
              } else if (amount > e.amount - e.back) {
                assert.equal(res.status, 400, `${what}: ${res.text}`);
                assert.deepEqual(Object.keys(res.body.payload.errors), ['amount'], what);
              } else {
                assert.equal(res.status, 200, `${what}: ${res.text}`);
                add(publisher, -Math.min(Math.max(model.get(publisher)!, 0), amount));
                add(e.buyer.wallet.standard, amount);
                e.back += amount;
                e.refunds++;
                assert.deepEqual(res.body.payload.refunded, { VCD: e.back }, what);
                assert.deepEqual(res.body.payload.refundable, { VCD: e.amount - e.back }, what);
                assert.equal(res.body.payload.refunds.length, e.refunds, what);
              }
              break;
            }
          }
        }
        assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
        const actual = await balances(h().orm.em.fork(), [...model.keys()]);
        for (const [wallet, balance] of model) assert.equal(actual.get(wallet), balance, `wallet ${wallet}`);
        for (const a of accounts) {
          const profile = (await call('GET', `/v1/user-info/${a.id}`, { token: client.token })).body.payload;
          assert.deepEqual(Object.keys(profile.blocked_capabilities).sort(), [...a.blocks].sort());
          assert.equal(profile.is_blocked, a.blocks.size > 0);
        }
      }),
      { numRuns: 40, ...seed },
    );
  });
});
