/**
 * How an invoice's money moves: where each charge comes from (and whether it would succeed
 * now), and where the line amounts and the recipients' shares go. Shared by escrow (pay into
 * holding, commit out of it, cancel back) and standard invoices (straight through).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { executor, type Executor, type Sql } from '../db/sql.js';
import { transactionBlockedSql } from '../blocks/block.repository.js';
import { systemAccount, type Posting } from '../ledger/ledger.service.js';
import type { EntryInput } from '../ledger/ledger.rules.js';
import type { StoredCharge, StoredLineItem } from './invoice.entity.js';

/** How one payment method fares when charged, decided before anything is posted. */
export type ChargeOutcome = { ok: true } | { ok: false; reason: string };

export interface ChargeSource {
  paymentMethodId: string;
  amount: number;
  /** Ledger account the money comes from (and a refund goes back to). */
  account: string;
  outcome: ChargeOutcome;
}

/** All-or-nothing: the first failing charge names the failure of the whole payment. */
export function paymentFailure(sources: ChargeSource[]): string | undefined {
  for (const s of sources) if (!s.outcome.ok) return s.outcome.reason;
  return undefined;
}

/** A payment method as charging sees it: provider, sandbox outcome, wallet account and balance, owner blocked. */
export interface ChargeMethod {
  id: string;
  provider: string;
  details: { sandbox_outcome?: string };
  /** Its wallet ledger account (wallet methods only). */
  wallet: string | null;
  owner_blocked: boolean;
}

/** SQL columns of a ChargeMethod, for `payment_method pm left join ledger_account la on la.payment_method_id = pm.id`. */
export const CHARGE_METHOD_COLUMNS = `pm.id, pm.provider, pm.details, la.id as wallet, ${transactionBlockedSql('pm.account_id')} as owner_blocked`;

/**
 * Where each charge comes from and whether it would succeed now: a sandbox card by its test
 * number's outcome, a wallet by its balance (locked when `lockWallets`, so the balance checked
 * is the balance posted against), POBO always. Queries run on `db` (the caller's transaction);
 * system accounts are made through `em` (outside it).
 */
export async function prepareCharges(
  target: Sql,
  em: EntityManager,
  integratorId: string,
  currency: string,
  charges: StoredCharge[],
  lockWallets: boolean,
): Promise<ChargeSource[]> {
  const db = executor(target);
  const ids = charges.map((c) => c.payment_method_id);
  const methods = await db.execute<ChargeMethod[]>(
    `select ${CHARGE_METHOD_COLUMNS}
       from payment_method pm
       left join ledger_account la on la.payment_method_id = pm.id
      where pm.id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  const wallets = methods
    .filter((m) => m.wallet)
    .map((m) => m.wallet!)
    .sort();
  const balances = new Map<string, number>();
  if (wallets.length) {
    const rows = await db.execute<Array<{ id: string; balance: string }>>(
      `select id, balance from ledger_account where id in (${wallets.map(() => '?').join(', ')}) order by id${lockWallets ? ' for update' : ''}`,
      wallets,
    );
    for (const r of rows) balances.set(r.id, Number(r.balance));
  }
  return evaluateCharges(em, integratorId, currency, charges, methods, balances);
}

/**
 * Decides each charge from its method (see `prepareCharges`). `balances` holds the wallets'
 * balances; a wallet charge that would succeed is taken off it, so charges decided together
 * (one batch) never spend the same money twice.
 */
export async function evaluateCharges(
  em: EntityManager,
  integratorId: string,
  currency: string,
  charges: StoredCharge[],
  methods: ChargeMethod[],
  balances: Map<string, number>,
): Promise<ChargeSource[]> {
  const sources: ChargeSource[] = [];
  for (const charge of charges) {
    const m = methods.find((x) => x.id === charge.payment_method_id);
    if (!m) {
      sources.push({
        paymentMethodId: charge.payment_method_id,
        amount: charge.amount,
        account: '',
        outcome: { ok: false, reason: 'payment_method_unavailable' },
      });
    } else if (m.owner_blocked) {
      // Spec §3.2: a blocked buyer cannot pay (blocked after the purchase was created). A refund still finds its account.
      const account =
        m.wallet ?? (await systemAccount(em, integratorId, m.provider === 'card' ? 'card_clearing' : 'pobo_clearing', currency));
      sources.push({ paymentMethodId: m.id, amount: charge.amount, account, outcome: { ok: false, reason: 'account_blocked' } });
    } else if (m.wallet) {
      const balance = balances.get(m.wallet) ?? 0;
      const ok = balance >= charge.amount;
      if (ok) balances.set(m.wallet, balance - charge.amount);
      sources.push({
        paymentMethodId: m.id,
        amount: charge.amount,
        account: m.wallet,
        outcome: ok ? { ok: true } : { ok: false, reason: 'insufficient_funds' },
      });
    } else {
      const kind = m.provider === 'card' ? 'card_clearing' : 'pobo_clearing';
      const outcome: ChargeOutcome =
        m.provider === 'card' && m.details.sandbox_outcome !== 'succeeds'
          ? { ok: false, reason: m.details.sandbox_outcome ?? 'card_declined' }
          : { ok: true };
      sources.push({
        paymentMethodId: m.id,
        amount: charge.amount,
        account: await systemAccount(em, integratorId, kind, currency),
        outcome,
      });
    }
  }
  return sources;
}

/** For a token currency, a seller's share lands in the seller's convertible wallet. */
async function payoutWallet(db: Executor, currency: string, destination: string): Promise<string> {
  if (currency === 'USD') return destination;
  const [row] = await db.execute<Array<{ id: string }>>(
    `select conv.id from ledger_account dest
       join payment_method dpm on dpm.id = dest.payment_method_id
       join payment_method cpm on cpm.account_id = dpm.account_id and cpm.provider = 'wallet'
                              and cpm.processing_currency = dest.currency and cpm.wallet_kind = 'convertible'
       join ledger_account conv on conv.payment_method_id = cpm.id
      where dest.id = ?`,
    [destination],
  );
  return row?.id ?? destination;
}

/**
 * The postings that settle line items: `from` entries (the money leaving, negative) plus each
 * line's amount landing in its recipients' source wallets (the integrator's default wallet when
 * blank) and the rest of the line in the default wallet; then each share moving on to its
 * destination. References are `<reference>` and `<reference>:shares`.
 */
export async function settle(
  target: Sql,
  em: EntityManager,
  input: {
    integratorId: string;
    currency: string;
    reference: string;
    description: string;
    from: EntryInput[];
    lineItems: StoredLineItem[];
  },
): Promise<Posting[]> {
  const db = executor(target);
  const { integratorId, currency } = input;
  const publisher = await systemAccount(em, integratorId, 'publisher_wallet', currency);
  const toSources: EntryInput[] = [...input.from];
  const toDestinations: EntryInput[] = [];
  for (const line of input.lineItems) {
    let rest = line.amount;
    for (const r of line.recipients) {
      const source = r.source_wallet_id || publisher;
      toSources.push({ account: source, currency, amount: r.amount });
      toDestinations.push(
        { account: source, currency, amount: -r.amount },
        { account: await payoutWallet(db, currency, r.destination_wallet_id), currency, amount: r.amount },
      );
      rest -= r.amount;
    }
    if (rest > 0) toSources.push({ account: publisher, currency, amount: rest });
  }
  const postings: Posting[] = [{ integratorId, reference: input.reference, description: input.description, entries: toSources }];
  if (toDestinations.length) {
    postings.push({
      integratorId,
      reference: `${input.reference}:shares`,
      description: `${input.description} shares`,
      entries: toDestinations,
    });
  }
  return postings;
}
