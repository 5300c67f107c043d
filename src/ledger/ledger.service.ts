/**
 * The double-entry ledger: accounts and postings (`ledger verify` is ledger-verify.service.ts). Money
 * moves through `post`, inside the caller's transaction — or, where a flow writes its whole
 * phase in one statement for speed (escrow/escrow-phase.flow.ts), through the posting fragment
 * `insertPostingsCtes` of the ledger repository. Either way the database holds the invariants
 * (balanced postings, no overdraft, append-only, unique references).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { db as pooled, emDb, type Db } from '../db/sql.js';
import {
  balancesOf,
  ensureSystemAccount,
  lockBalancesOf,
  systemAccountsOf,
  entriesOfAccounts,
  insertPostings,
  insertWalletAccount,
  type StatementEntryRow,
  type StatementQuery,
} from './ledger.repository.js';
import { newId } from '../ids.js';
import { mergeEntries, postingProblems, walletIdOf, type EntryInput } from './ledger.rules.js';
import type { LedgerAccountKind } from './ledger.entity.js';

export type SystemAccountKind = Exclude<LedgerAccountKind, 'user_wallet'>;

/**
 * Card and POBO clearing and sandbox funding mirror money paid in from outside (debit-normal);
 * the rest hold it (credit-normal) — payout clearing too: it holds what was paid out, and only grows.
 */
function normalSide(kind: LedgerAccountKind): 'debit' | 'credit' {
  return kind === 'card_clearing' || kind === 'pobo_clearing' || kind === 'sandbox_funding' ? 'debit' : 'credit';
}

/** Creates the ledger account of a wallet payment method (same transaction as the method). */
export async function openWalletAccount(
  em: EntityManager,
  wallet: { id: string; integratorId: string; currency: string },
): Promise<string> {
  const id = walletIdOf(wallet.id);
  await insertWalletAccount(emDb(em), { id, integratorId: wallet.integratorId, currency: wallet.currency, paymentMethodId: wallet.id });
  return id;
}

/** System account ids never change once made: each process remembers those it has seen committed. */
const systemAccounts = new Map<string, string>();

/**
 * The integrator's account of a system kind in a currency, created on first use in the caller's
 * transaction (`db`; an EntityManager runs it on its own, committed at once). A command therefore
 * holds one connection from start to end, however many accounts it makes. Only an id read as
 * committed is remembered — not one this transaction made, even when it asks again — so a
 * rolled-back caller never leaves one without its row.
 */
export async function systemAccount(
  target: Db | EntityManager,
  integratorId: string,
  kind: SystemAccountKind,
  currency: string,
): Promise<string> {
  const key = `${integratorId}:${kind}:${currency}`;
  const known = systemAccounts.get(key);
  if (known) return known;
  const { id, created } = await ensureSystemAccount('getConnection' in target ? pooled(target) : target, {
    id: newId('led'),
    integratorId,
    kind,
    currency,
    normalSide: normalSide(kind),
    allowNegative: kind === 'token_issuance',
  });
  if (!created) systemAccounts.set(key, id);
  return id;
}

/**
 * Locks the ledger accounts a posting will touch, in the one order every writer takes them
 * (wallets first, then system accounts, each by id, as a pay's charges and its posting do), so
 * no two transactions wait on each other in a cycle; answers what each can spend (balance less
 * what disputes hold), by id.
 */
export async function lockForPosting(db: Db, accounts: ReadonlyArray<string | null | undefined>): Promise<Map<string, number>> {
  const ids = [...new Set(accounts.filter((a): a is string => !!a))];
  if (ids.length === 0) return new Map();
  return new Map((await lockBalancesOf(db, ids)).map((r) => [r.id, r.balance]));
}

export interface Posting {
  integratorId: string;
  /** Unique per movement of money: posting the same reference again moves nothing. */
  reference: string;
  description: string;
  entries: EntryInput[];
}

/** True for the database refusing a balance below zero (raised by the statement that writes the entries). */
export function isOverdraft(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  return e?.code === '23514' && (e.constraint === 'ledger_account_no_overdraft' || /ledger_account_no_overdraft/.test(e.message ?? ''));
}

/**
 * Posts balanced sets of entries in the caller's transaction; returns how many are done by this
 * call: those that were new (a posting whose reference exists moves nothing again), and those
 * whose entries cancel out (nothing to write). Balances change, and the no-overdraft
 * rule is enforced, at the end of that statement (one update per account, in account order, so
 * transactions lock the accounts they share in the same order): callers that may charge too
 * much check the balance first, under a row lock.
 */
export async function post(target: Db | EntityManager, ...postings: Posting[]): Promise<number> {
  postings.forEach((posting) => {
    const problems = postingProblems(posting.entries);
    if (problems.length) throw new Error(`unbalanced or malformed posting ${posting.reference}: ${problems.join('; ')}`);
  });
  // A posting whose entries cancel out moves nothing: it is not written (a posting has two
  // entries or more), and counts as done.
  const moving = postings.map((posting) => ({ posting, entries: mergeEntries(posting.entries) })).filter((m) => m.entries.length > 0);
  if (moving.length === 0) return postings.length;
  const rows = moving.map(({ posting }) => ({
    id: newId('pst'),
    integratorId: posting.integratorId,
    reference: posting.reference,
    description: posting.description.slice(0, 200),
  }));
  const entries = moving.flatMap((m, i) => m.entries.map((e) => ({ postingId: rows[i].id, ...e })));
  const db = 'getConnection' in target ? emDb(target) : target;
  return (await insertPostings(db, rows, entries)).size + (postings.length - moving.length);
}

/** What ledger accounts can spend (minor units: balance less what disputes hold), by id. */
export async function balances(em: EntityManager, accountIds: string[]): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  return new Map((await balancesOf(pooled(em), accountIds)).map((r) => [r.id, r.balance]));
}

/** The integrator's default (publisher) wallets that exist, by currency: ledger account id and balance. */
export async function publisherWallets(em: EntityManager, integratorId: string): Promise<Map<string, { id: string; balance: number }>> {
  const rows = await systemAccountsOf(pooled(em), integratorId, 'publisher_wallet');
  return new Map(rows.map((r) => [r.currency, { id: r.id, balance: r.balance }]));
}

/**
 * Credits the integrator's default wallet in a currency from its sandbox funding account (a
 * debit-normal account standing for money paid in from outside, made on first use): one posting
 * with its own reference `fund:<ULID>`. Staging only: the caller checks. Returns the posting's
 * reference and the wallet's id and balance after it.
 */
export async function fundPublisherWallet(
  em: EntityManager,
  input: { integratorId: string; currency: string; amount: number },
  /** More to write in the posting's transaction (its audit record), given the posting's reference and the wallet. */
  alsoWrite?: (db: Db, posted: { reference: string; walletId: string }) => Promise<void>,
): Promise<{ reference: string; walletId: string; balance: number }> {
  const { integratorId, currency, amount } = input;
  const wallet = await systemAccount(em, integratorId, 'publisher_wallet', currency);
  const funding = await systemAccount(em, integratorId, 'sandbox_funding', currency);
  const reference = `fund:${newId('pst').slice('pst_'.length)}`;
  await em.transactional(async (tx) => {
    await post(tx, {
      integratorId,
      reference,
      description: `sandbox funding of the default ${currency} wallet`,
      entries: [
        { account: funding, currency, amount: -amount },
        { account: wallet, currency, amount },
      ],
    });
    await alsoWrite?.(emDb(tx), { reference, walletId: wallet });
  });
  const balance = (await balances(em, [wallet])).get(wallet) ?? 0;
  return { reference, walletId: wallet, balance };
}

export type { StatementEntryRow, StatementQuery } from './ledger.repository.js';

/** A page of the entries of these ledger accounts (wallets), in the order they were applied, each with the balance right after it. */
export function accountEntries(em: EntityManager, accountIds: string[], query: StatementQuery) {
  if (accountIds.length === 0) return Promise.resolve({ total: 0, rows: [] as StatementEntryRow[] });
  return entriesOfAccounts(pooled(em), accountIds, query);
}
