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

/** The settlement report's lines (all but `net`), as the test suite computes them. */
export type SettlementSums = Record<
  | 'gross_charges'
  | 'refunds'
  | 'disputes_opened'
  | 'disputes_won'
  | 'disputes_lost'
  | 'dispute_fees'
  | 'payouts_sent'
  | 'payouts_returned'
  | 'conversions',
  number
>;

/**
 * A day's settlement lines in one currency, summed here from the integrator's ledger postings of
 * that UTC day with a query of the test's own (classified by posting reference and ledger account
 * kind), so that the report can be compared with the ledger rather than with itself.
 */
export async function settlementFromPostings(integratorId: string, day: string, currency: string): Promise<SettlementSums> {
  const entries = await h()
    .orm.em.fork()
    .execute<Array<{ reference: string; kind: string; amount: string }>>(
      `select p.reference, a.kind, e.amount from ledger_posting p
         join ledger_entry e on e.posting_id = p.id join ledger_account a on a.id = e.ledger_account_id
        where p.integrator_id = ? and e.currency = ? and p.created_at >= ?::date and p.created_at < ?::date + 1`,
      [integratorId, currency, day, day],
    );
  const clearing = (k: string) => k === 'card_clearing' || k === 'pobo_clearing';
  const total = (match: (ref: string, kind: string) => boolean, f: (amount: number) => number = (a) => a) =>
    entries.filter((e) => match(e.reference, e.kind)).reduce((n, e) => n + f(Number(e.amount)), 0) || 0;
  return {
    gross_charges: -total((r, k) => /^(invoice|escrow):[^:]+:pay$/.test(r) && clearing(k)),
    refunds: total((r, k) => /^invoice:[^:]+:refund$|^escrow:[^:]+:cancel$|^refund:[^:]+:[^:]+:reversed$/.test(r) && clearing(k)),
    disputes_opened: total((r, k) => /^dispute:[^:]+:open$/.test(r) && k === 'dispute_holding'),
    disputes_won: 0 - total((r, k) => /^dispute:[^:]+:won$/.test(r) && k === 'dispute_holding'),
    disputes_lost: total((r, k) => /^dispute:[^:]+:lost$/.test(r) && k === 'dispute_losses'),
    dispute_fees: total((r, k) => /^dispute:[^:]+:open$/.test(r) && k === 'dispute_fees'),
    payouts_sent: total((r, k) => /^payout:[^:]+:execute$/.test(r) && k === 'payout_clearing'),
    payouts_returned: 0 - total((r, k) => /^payout:[^:]+:return$/.test(r) && k === 'payout_holding'),
    conversions:
      total((r, k) => /^exchange:[^:]+:execute$/.test(r) && k === 'user_wallet', Math.abs) -
      total((r, k) => /^exchange:[^:]+:reverse$/.test(r) && k === 'user_wallet', Math.abs),
  };
}

/** The settlement net of those lines: what came in from outside less what went back out. */
export function settlementNet(s: SettlementSums): number {
  return s.gross_charges - s.refunds - s.disputes_opened - s.dispute_fees + s.disputes_won - s.payouts_sent;
}
