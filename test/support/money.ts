/** Test helpers for money: an account with its wallets (and sandbox cards), funding a wallet, reading a balance. */
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { addCard, call, h, register, unique, type TestClient } from './harness.js';

/** An account with its wallets by `CURRENCY:kind` (`USD:fiat`, `GEM:standard`…) and, when asked, a good and a declined card. */
export interface Party {
  account_id: string;
  integrator_id: string;
  wallets: Record<string, { pm: string; wallet: string }>;
  card?: string;
  declined?: string;
}

export async function party(client: TestClient, cards = false): Promise<Party> {
  const account = await register(client);
  if (cards) {
    for (const number of ['4242424242424242', '4000000000000002']) await addCard(client, account.account_id, number);
  }
  const methods = (await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token })).body.payload;
  const wallets: Party['wallets'] = {};
  for (const m of methods.filter((x: any) => x.provider === 'wallet')) {
    wallets[`${m.processing_currency}:${m.provider_data.wallet_type}`] = { pm: m.id, wallet: m.provider_data.wallet_id };
  }
  const [row] = await h()
    .orm.em.fork()
    .execute<Array<{ integrator_id: string }>>('select integrator_id from account where id = ?', [account.account_id]);
  const cardsOf = methods.filter((x: any) => x.provider === 'card');
  return {
    account_id: account.account_id,
    integrator_id: row.integrator_id,
    wallets,
    card: cardsOf.find((c: any) => c.provider_data.last4 === '4242')?.id,
    declined: cardsOf.find((c: any) => c.provider_data.last4 === '0002')?.id,
  };
}

/** Puts money in a wallet straight through the ledger (as a card payment in would). */
export async function fund(p: Party, key: string, amount: number): Promise<void> {
  const currency = key.split(':')[0];
  const source = await systemAccount(h().orm.em.fork(), p.integrator_id, currency === 'USD' ? 'card_clearing' : 'token_issuance', currency);
  await h()
    .orm.em.fork()
    .transactional((tx) =>
      post(tx, {
        integratorId: p.integrator_id,
        reference: unique('fund-'),
        description: 'test funding',
        entries: [
          { account: source, currency, amount: -amount },
          { account: p.wallets[key].wallet, currency, amount },
        ],
      }),
    );
}

export async function balance(wallet: string): Promise<number> {
  return (await balances(h().orm.em.fork(), [wallet])).get(wallet)!;
}
