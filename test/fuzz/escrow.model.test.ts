import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createIntegrator } from '../../src/auth/auth.service.js';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyLedger } from '../../src/escrow/ledger-verify.service.js';
import { addCard, call, h, newClient, register, unique, type ApiResponse, type TestClient } from '../support/harness.js';

type Currency = 'USD' | 'VCD';
type Status = 'OPEN' | 'ESCROWED' | 'ESCROW-FAILED' | 'COMMITTED' | 'CANCELLED';

interface Account {
  id: string;
  card: string;
  /** payment method ids and wallet (ledger) ids by key USD | VCD:standard | VCD:convertible */
  pm: Record<string, string>;
  wallet: Record<string, string>;
}

type Op =
  | { kind: 'create'; buyer: number; seller: number; currency: Currency; amount: number; share: number; pay: 'wallet' | 'card' | 'split' }
  | { kind: 'pay' | 'commit' | 'cancel'; escrow: number; twice: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    buyer: fc.nat(2),
    seller: fc.nat(2),
    currency: fc.constantFrom<Currency>('USD', 'VCD'),
    amount: fc.integer({ min: 1, max: 900 }),
    share: fc.integer({ min: 0, max: 100 }),
    pay: fc.constantFrom('wallet' as const, 'card' as const, 'split' as const),
  }),
  fc.record({ kind: fc.constantFrom('pay' as const, 'commit' as const, 'cancel' as const), escrow: fc.nat(20), twice: fc.boolean() }),
);

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

  it('holds for random create / pay / commit / cancel / repeated calls across accounts and currencies', async function () {
    this.timeout(240_000);
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const accounts = [await account(), await account(), await account()];
        const model = new Map<string, number>();
        const spendKey = (c: Currency) => (c === 'USD' ? 'USD' : 'VCD:standard');
        for (const a of accounts) {
          for (const key of ['USD', 'VCD:standard', 'VCD:convertible']) model.set(a.wallet[key], 0);
          await fund(a.wallet.USD, 'USD', 1000);
          await fund(a.wallet['VCD:standard'], 'VCD', 1000);
          model.set(a.wallet.USD, 1000);
          model.set(a.wallet['VCD:standard'], 1000);
        }
        const escrows: Array<{
          id: string;
          status: Status;
          currency: Currency;
          charges: Array<{ wallet?: string; amount: number }>;
          seller: Account;
          amount: number;
          share: number;
        }> = [];
        for (const op of ops) {
          if (op.kind === 'create') {
            const buyer = accounts[op.buyer];
            const seller = accounts[op.seller];
            const share = Math.floor((op.amount * op.share) / 100);
            const walletKey = spendKey(op.currency);
            const payWith = op.currency === 'VCD' ? 'wallet' : op.pay; // cards pay USD only
            const half = Math.floor(op.amount / 2);
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
                        ? [
                            {
                              amount: share,
                              currency: op.currency,
                              destination_wallet_id: seller.wallet[op.currency === 'USD' ? 'USD' : 'VCD:standard'],
                            },
                          ]
                        : [],
                  },
                ],
              },
            });
            assert.equal(res.status, 201, res.text);
            const charges = payment_methods.map((pm) => ({
              wallet: pm.payment_method_id === buyer.card ? undefined : buyer.wallet[walletKey],
              amount: pm.amount === 0 ? op.amount - payment_methods.reduce((s, x) => s + x.amount, 0) : pm.amount,
            }));
            escrows.push({ id: res.body.payload.id, status: 'OPEN', currency: op.currency, charges, seller, amount: op.amount, share });
            continue;
          }
          const e = escrows[op.escrow % Math.max(escrows.length, 1)];
          if (!e) continue;
          for (let round = 0; round < (op.twice ? 2 : 1); round++) {
            const res: ApiResponse = await call('POST', `/v2/escrow/${e.id}/${op.kind}`, { token: client.token });
            // The model's answer.
            let expected: Status = e.status;
            let http = 200;
            if (e.status === 'ESCROW-FAILED') http = 409;
            else if (op.kind === 'pay' && e.status === 'OPEN') {
              const affordable = e.charges.every((c) => !c.wallet || model.get(c.wallet)! >= c.amount);
              expected = affordable ? 'ESCROWED' : 'ESCROW-FAILED';
              if (affordable) for (const c of e.charges) if (c.wallet) model.set(c.wallet, model.get(c.wallet)! - c.amount);
            } else if (op.kind === 'commit') {
              if (e.status === 'ESCROWED') {
                expected = 'COMMITTED';
                const dest = e.seller.wallet[e.currency === 'USD' ? 'USD' : 'VCD:convertible'];
                if (e.share > 0) model.set(dest, model.get(dest)! + e.share);
              } else if (e.status !== 'COMMITTED') http = 409;
            } else if (op.kind === 'cancel') {
              if (e.status === 'ESCROWED') {
                expected = 'CANCELLED';
                for (const c of e.charges) if (c.wallet) model.set(c.wallet, model.get(c.wallet)! + c.amount);
              } else if (e.status !== 'CANCELLED') http = 409;
            }
            assert.equal(res.status, http, `${op.kind} on ${e.status}: ${res.text}`);
            if (http === 200) assert.equal(res.body.payload.status, expected);
            e.status = expected;
          }
        }
        const report = await verifyLedger(h().orm.em.fork());
        assert.deepEqual(report.problems, []);
        const actual = await balances(h().orm.em.fork(), [...model.keys()]);
        for (const [wallet, balance] of model) assert.equal(actual.get(wallet), balance, `wallet ${wallet}`);
      }),
      { numRuns: 12 },
    );
  });
});
