/**
 * The double-entry ledger: accounts, postings and the verification of every invariant.
 * Money only moves through `post`, inside the caller's transaction.
 */
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executor, type Sql } from '../db/sql.js';
import { newId } from '../ids.js';
import { mergeEntries, postingProblems, walletIdOf, type EntryInput } from './ledger.rules.js';
import type { LedgerAccountKind } from './ledger.entity.js';

export type SystemAccountKind = Exclude<LedgerAccountKind, 'user_wallet'>;

/** Clearing accounts mirror money paid in from outside (debit-normal); the rest hold it (credit-normal). */
function normalSide(kind: LedgerAccountKind): 'debit' | 'credit' {
  return kind === 'card_clearing' || kind === 'pobo_clearing' ? 'debit' : 'credit';
}

/** Creates the ledger account of a wallet payment method (same transaction as the method). */
export async function openWalletAccount(em: EntityManager, wallet: { id: string; integratorId: string; currency: string }): Promise<string> {
  const id = walletIdOf(wallet.id);
  await em.execute(
    `insert into ledger_account (id, integrator_id, kind, currency, normal_side, payment_method_id) values (?, ?, 'user_wallet', ?, 'credit', ?)`,
    [id, wallet.integratorId, wallet.currency, wallet.id]);
  return id;
}

/** System account ids never change once made: each process remembers them. */
const systemAccounts = new Map<string, string>();

/**
 * The integrator's account of a system kind in a currency, created on first use. Created
 * outside the caller's transaction (on its own connection, committed at once), so a rolled-back
 * caller never leaves a remembered id without its row.
 */
export async function systemAccount(em: EntityManager, integratorId: string, kind: SystemAccountKind, currency: string): Promise<string> {
  const key = `${integratorId}:${kind}:${currency}`;
  const known = systemAccounts.get(key);
  if (known) return known;
  const conn = em.getConnection();
  await conn.execute(
    `insert into ledger_account (id, integrator_id, kind, currency, normal_side, allow_negative) values (?, ?, ?, ?, ?, ?)
     on conflict (integrator_id, kind, currency) where kind <> 'user_wallet' do nothing`,
    [newId('led'), integratorId, kind, currency, normalSide(kind), kind === 'token_issuance']);
  const [row] = await conn.execute<Array<{ id: string }>>(
    'select id from ledger_account where integrator_id = ? and kind = ? and currency = ?', [integratorId, kind, currency]);
  systemAccounts.set(key, row.id);
  return row.id;
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
 * Posts balanced sets of entries in the caller's transaction; returns how many were new (a
 * posting whose reference exists moves nothing again). Balances change, and the no-overdraft
 * rule is enforced, at the end of that statement (one update per account, in account order, so
 * transactions lock the accounts they share in the same order): callers that may charge too
 * much check the balance first, under a row lock.
 */
export async function post(target: Sql, ...postings: Posting[]): Promise<number> {
  postings.forEach((posting) => {
    const problems = postingProblems(posting.entries);
    if (problems.length) throw new Error(`unbalanced or malformed posting ${posting.reference}: ${problems.join('; ')}`);
  });
  if (postings.length === 0) return 0;
  const ids = postings.map(() => newId('pst'));
  const rows = postings.flatMap((posting, i) => mergeEntries(posting.entries).map((e) => ({ id: ids[i], ...e })));
  // One statement: the postings whose reference is new, and the entries of exactly those.
  const created = await executor(target).execute<Array<{ posting_id: string }>>(
    `with p as (
       insert into ledger_posting (id, integrator_id, reference, description) values ${postings.map(() => '(?, ?, ?, ?)').join(', ')}
       on conflict (reference) do nothing returning id
     )
     insert into ledger_entry (posting_id, ledger_account_id, currency, amount)
     select v.posting_id, v.account, v.currency, v.amount::bigint
       from (values ${rows.map(() => '(?, ?, ?, ?)').join(', ')}) as v (posting_id, account, currency, amount)
      where v.posting_id in (select id from p)
     returning posting_id`,
    [
      ...postings.flatMap((posting, i) => [ids[i], posting.integratorId, posting.reference, posting.description.slice(0, 200)]),
      ...rows.flatMap((r) => [r.id, r.account, r.currency, String(r.amount)]),
    ]);
  return new Set(created.map((r) => r.posting_id)).size;
}

/** Current balances (minor units) of ledger accounts, by id. */
export async function balances(em: EntityManager, accountIds: string[]): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await em.getConnection().execute<Array<{ id: string; balance: string }>>(
    `select id, balance from ledger_account where id in (${accountIds.map(() => '?').join(', ')})`, accountIds);
  return new Map(rows.map((r) => [r.id, Number(r.balance)]));
}

export interface VerifyReport {
  ok: boolean;
  checked: { accounts: number; postings: number; entries: number };
  problems: string[];
}

/**
 * Recomputes every balance from the entries and checks every ledger invariant: each posting
 * sums to zero per currency and has two or more entries, stored balances equal recomputed
 * ones (credits − debits, or debits − credits for clearing accounts), no account but token
 * issuance is below zero, entries are in their account's currency — and the escrow invariants.
 */
export async function verifyLedger(em: EntityManager): Promise<VerifyReport> {
  // One snapshot for every check, so a live service's commits cannot look like breaches.
  return em.transactional((tx) => verifySnapshot(tx), { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
}

async function verifySnapshot(em: EntityManager): Promise<VerifyReport> {
  const problems: string[] = [];
  const [counts] = await em.execute<Array<{ accounts: string; postings: string; entries: string }>>(
    `select (select count(*) from ledger_account) as accounts, (select count(*) from ledger_posting) as postings,
            (select count(*) from ledger_entry) as entries`);
  const unbalanced = await em.execute<Array<{ posting_id: string; currency: string; sum: string }>>(
    `select posting_id, currency, sum(amount) as sum from ledger_entry group by posting_id, currency having sum(amount) <> 0 order by posting_id`);
  for (const r of unbalanced) problems.push(`posting ${r.posting_id} does not balance in ${r.currency}: entries sum to ${r.sum}`);
  const thin = await em.execute<Array<{ id: string; n: string }>>(
    `select p.id, count(e.id) as n from ledger_posting p left join ledger_entry e on e.posting_id = p.id group by p.id having count(e.id) < 2`);
  for (const r of thin) problems.push(`posting ${r.id} has ${r.n} entr${r.n === '1' ? 'y' : 'ies'} (a posting needs two or more)`);
  const drifted = await em.execute<Array<{ id: string; balance: string; recomputed: string }>>(
    `select a.id, a.balance, r.recomputed from ledger_account a
       cross join lateral (select (case a.normal_side when 'debit' then -1 else 1 end) * coalesce(sum(e.amount), 0) as recomputed
                             from ledger_entry e where e.ledger_account_id = a.id) r
      where a.balance <> r.recomputed order by a.id`);
  for (const r of drifted) problems.push(`account ${r.id} stores balance ${r.balance} but its entries sum to ${r.recomputed}`);
  const negative = await em.execute<Array<{ id: string; kind: string; balance: string }>>(
    `select id, kind, balance from ledger_account where balance < 0 and kind <> 'token_issuance' order by id`);
  for (const r of negative) problems.push(`account ${r.id} (${r.kind}) is below zero: ${r.balance}`);
  const mismatched = await em.execute<Array<{ id: string }>>(
    `select e.id from ledger_entry e join ledger_account a on a.id = e.ledger_account_id where a.currency <> e.currency`);
  for (const r of mismatched) problems.push(`entry ${r.id} is not in its account's currency`);
  problems.push(...(await escrowProblems(em)));
  return {
    ok: problems.length === 0,
    checked: { accounts: Number(counts.accounts), postings: Number(counts.postings), entries: Number(counts.entries) },
    problems,
  };
}

/** The postings (by phase) an escrow must have in each state; `shares` is optional (no recipients). */
const ESCROW_PHASES: Record<string, string[]> = {
  OPEN: [],
  'ESCROW-FAILED': [],
  ESCROWED: ['pay'],
  COMMITTED: ['pay', 'commit'],
  CANCELLED: ['pay', 'cancel'],
};

/**
 * Escrow and invoice invariants: each integrator's escrow holding balance equals the total of
 * its ESCROWED escrows, and each escrow and standard invoice has exactly the postings its state
 * implies.
 */
async function escrowProblems(em: EntityManager): Promise<string[]> {
  const problems: string[] = [];
  const holding = await em.execute<Array<{ integrator_id: string; currency: string; balance: string; held: string }>>(
    `select coalesce(a.integrator_id, e.integrator_id) as integrator_id, coalesce(a.currency, e.currency) as currency,
            coalesce(a.balance, 0) as balance, coalesce(e.held, 0) as held
       from (select integrator_id, currency, balance from ledger_account where kind = 'escrow_holding') a
       full join (select integrator_id, currency, sum(total_amount) as held from escrow where status = 'ESCROWED' group by integrator_id, currency) e
         on e.integrator_id = a.integrator_id and e.currency = a.currency
      where coalesce(a.balance, 0) <> coalesce(e.held, 0)`);
  for (const r of holding) {
    problems.push(`escrow holding of integrator ${r.integrator_id} in ${r.currency} is ${r.balance} but its ESCROWED escrows total ${r.held}`);
  }
  // Postings named `escrow:<id>:<phase>` (and `invoice:<id>:<phase>`), grouped once: a hash join, not a scan per escrow.
  const phases = await em.execute<Array<{ id: string; status: string; phases: string[] | null }>>(
    `with p as (select split_part(reference, ':', 2) as escrow_id, array_agg(split_part(reference, ':', 3) order by reference) as phases
                  from ledger_posting where reference like 'escrow:%' and split_part(reference, ':', 4) = '' group by 1)
     select e.id, e.status, p.phases from escrow e left join p on p.escrow_id = e.id`);
  for (const r of phases) {
    const expected = ESCROW_PHASES[r.status] ?? [];
    const actual = (r.phases ?? []).filter(Boolean).sort();
    if (actual.join(',') !== [...expected].sort().join(',')) {
      problems.push(`escrow ${r.id} is ${r.status} but has postings [${actual.join(', ')}] (expected [${expected.join(', ')}])`);
    }
  }
  // Standard and token purchase invoices: paid ones have their postings, others none.
  const invoices = await em.execute<Array<{ id: string; state: string; invoice_type: string; phases: string[] | null }>>(
    `with p as (select split_part(reference, ':', 2) as invoice_id, array_agg(split_part(reference, ':', 3) order by reference) as phases
                  from ledger_posting where reference like 'invoice:%' and split_part(reference, ':', 4) = '' group by 1)
     select i.id, i.state, i.invoice_type, p.phases from invoice i left join p on p.invoice_id = i.id where i.escrow_id is null`);
  for (const r of invoices) {
    const expected = r.state !== 'SUCCESS' ? [] : r.invoice_type === 'token_purchase' ? ['issue', 'pay'] : ['pay'];
    const actual = (r.phases ?? []).filter(Boolean).sort();
    if (actual.join(',') !== expected.join(',')) {
      problems.push(`invoice ${r.id} is ${r.state} but has postings [${actual.join(', ')}] (expected [${expected.join(', ')}])`);
    }
  }
  return problems;
}
