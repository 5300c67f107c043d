/**
 * ledger_account, ledger_posting and ledger_entry. Hand-written SQL throughout: a posting and
 * its entries are one INSERT … ON CONFLICT statement (a retried reference moves nothing), the
 * balances are kept by the database's triggers, and the checks of `holdfast ledger verify` are
 * aggregates. Statements that span modules for speed (the escrow phases, payment method lists)
 * take these tables through the fragments below.
 */
import type { Db } from '../db/sql.js';

/** A posting ready to write; its entries are merged per account. */
export interface PostingRow {
  id: string;
  integratorId: string;
  reference: string;
  description: string;
}

/** One entry of a posting. */
export interface EntryRow {
  postingId: string;
  account: string;
  currency: string;
  amount: number;
}

/**
 * Fragment: two CTEs (`<name>_postings`, `<name>_entries`) writing the postings one query
 * yields (columns `id`, `integrator_id`, `reference`, `description`) and the entries another
 * yields (`posting_id`, `ledger_account_id`, `currency`, `amount`) — only those of postings whose
 * reference is new. `<name>_postings` returns the ids written.
 */
export function insertPostingsCtes(name: string, postingsQuery: string, entriesQuery: string): string {
  return `${name}_postings as (
       insert into ledger_posting (id, integrator_id, reference, description)
       select v.id, v.integrator_id, v.reference, v.description from (${postingsQuery}) v
       on conflict (reference) do nothing returning id
     ), ${name}_entries as (
       insert into ledger_entry (posting_id, ledger_account_id, currency, amount)
       select v.posting_id, v.ledger_account_id, v.currency, v.amount from (${entriesQuery}) v
        where v.posting_id in (select id from ${name}_postings)
       returning posting_id
     )`;
}

/** Writes postings and their entries in one statement; returns the ids of the postings that were new. */
export async function insertPostings(db: Db, postings: PostingRow[], entries: EntryRow[]): Promise<Set<string>> {
  const created = await db.execute<Array<{ posting_id: string }>>(
    `with ${insertPostingsCtes(
      'ledger',
      'select p.id, p.integrator_id, p.reference, p.description from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[]) as p (id, integrator_id, reference, description)',
      'select e.posting_id, e.ledger_account_id, e.currency, e.amount from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::bigint[]) as e (posting_id, ledger_account_id, currency, amount)',
    )}
     select posting_id from ledger_entries`,
    [
      postings.map((p) => p.id),
      postings.map((p) => p.integratorId),
      postings.map((p) => p.reference),
      postings.map((p) => p.description),
      entries.map((e) => e.postingId),
      entries.map((e) => e.account),
      entries.map((e) => e.currency),
      entries.map((e) => String(e.amount)),
    ],
  );
  return new Set(created.map((r) => r.posting_id));
}

/**
 * Fragment: `left join ledger_account <alias> on <alias>.payment_method_id = <expr>`: a wallet
 * method's ledger account (`<alias>.id`, `<alias>.balance`). `inner`: an inner join (methods
 * without one left out; and its rows can be locked `for update of <alias>`).
 */
export function joinWalletAccountSql(alias: string, paymentMethodIdExpression: string, join: 'left' | 'inner' = 'left'): string {
  return `${join === 'inner' ? 'join' : 'left join'} ledger_account ${alias} on ${alias}.payment_method_id = ${paymentMethodIdExpression}`;
}

/** Adds the ledger account of a wallet payment method. */
export async function insertWalletAccount(
  db: Db,
  account: { id: string; integratorId: string; currency: string; paymentMethodId: string },
): Promise<void> {
  await db.execute(
    `insert into ledger_account (id, integrator_id, kind, currency, normal_side, payment_method_id) values (?, ?, 'user_wallet', ?, 'credit', ?)`,
    [account.id, account.integratorId, account.currency, account.paymentMethodId],
  );
}

/**
 * The id of the integrator's system account of this kind and currency, made with `newAccount`
 * when missing, in the caller's transaction (safe when transactions race: the loser waits for
 * the winner's row). `created`: made by the caller's transaction — by this statement, or by an
 * earlier one of it (the row's `xmin` is a transaction id this backend holds) — so not yet
 * committed.
 */
export async function ensureSystemAccount(
  db: Db,
  newAccount: { id: string; integratorId: string; kind: string; currency: string; normalSide: 'debit' | 'credit'; allowNegative: boolean },
): Promise<{ id: string; created: boolean }> {
  const [made] = await db.execute<Array<{ id: string }>>(
    `insert into ledger_account (id, integrator_id, kind, currency, normal_side, allow_negative) values (?, ?, ?, ?, ?, ?)
     on conflict (integrator_id, kind, currency) where kind <> 'user_wallet' do nothing returning id`,
    [newAccount.id, newAccount.integratorId, newAccount.kind, newAccount.currency, newAccount.normalSide, newAccount.allowNegative],
  );
  if (made) return { id: made.id, created: true };
  const [row] = await db.execute<Array<{ id: string; mine: boolean }>>(
    `select a.id, exists (select 1 from pg_locks l
                          where l.locktype = 'transactionid' and l.pid = pg_backend_pid() and l.transactionid = a.xmin) as mine
       from ledger_account a where a.integrator_id = ? and a.kind = ? and a.currency = ?`,
    [newAccount.integratorId, newAccount.kind, newAccount.currency],
  );
  return { id: row.id, created: row.mine };
}

/** The integrator's system accounts of one kind, one per currency (`id`, `currency`, `balance`), by currency. */
export async function systemAccountsOf(
  db: Db,
  integratorId: string,
  kind: string,
): Promise<Array<{ id: string; currency: string; balance: number }>> {
  const rows = await db.execute<Array<{ id: string; currency: string; balance: string }>>(
    'select id, currency, balance from ledger_account where integrator_id = ? and kind = ? order by currency',
    [integratorId, kind],
  );
  return rows.map((r) => ({ id: r.id, currency: r.currency, balance: Number(r.balance) }));
}

/**
 * What ledger accounts can spend now: their balances less what open disputes hold of them (the
 * same as the balance where nothing is held).
 */
export async function balancesOf(db: Db, accountIds: string[]): Promise<Array<{ id: string; balance: number }>> {
  const rows = await db.execute<Array<{ id: string; balance: string }>>(
    `select id, balance - held as balance from ledger_account where id in (${accountIds.map(() => '?').join(', ')})`,
    accountIds,
  );
  return rows.map((r) => ({ id: r.id, balance: Number(r.balance) }));
}

/**
 * What ledger accounts can spend (balance less held, as `balancesOf`), locked in the caller's
 * transaction in the canonical order (wallets first, then system accounts, each by id): the
 * balance checked is the one posted against.
 */
export async function lockBalancesOf(db: Db, accountIds: string[]): Promise<Array<{ id: string; balance: number }>> {
  // FOR UPDATE locks the rows as the sort hands them up, so the order is the lock order.
  const rows = await db.execute<Array<{ id: string; balance: string }>>(
    `select id, balance - held as balance from ledger_account where id in (${accountIds.map(() => '?').join(', ')})
      order by kind <> 'user_wallet', id for update`,
    accountIds,
  );
  return rows.map((r) => ({ id: r.id, balance: Number(r.balance) }));
}

/** Fragment: the payment method of the wallet ledger account an SQL expression names (a scalar subquery). */
export function walletMethodIdSql(accountExpression: string): string {
  return `(select payment_method_id from ledger_account where id = ${accountExpression})`;
}

/**
 * Fragment: the integrator's wallet ledger accounts (user and publisher wallets) in a currency
 * among the ids an SQL array expression holds (`id`, `kind`, `payment_method_id`).
 */
export function walletAccountsAmongSql(integratorExpression: string, currencyExpression: string, idsExpression: string): string {
  return `select la.id, la.kind, la.payment_method_id from ledger_account la
           where la.integrator_id = ${integratorExpression} and la.currency = ${currencyExpression}
             and la.kind in ('user_wallet', 'publisher_wallet') and la.id = any (${idsExpression})`;
}

/** Fragment: postings whose reference is `<prefix>:<id>:<phase>`, as rows (`owner_id`, `phases` — sorted phase names). */
export function postingPhasesSql(prefix: 'escrow' | 'invoice' | 'payout' | 'exchange' | 'dispute'): string {
  return `select split_part(reference, ':', 2) as owner_id, array_agg(split_part(reference, ':', 3) order by reference) as phases
            from ledger_posting where reference like '${prefix}:%' and split_part(reference, ':', 4) = '' group by 1`;
}

/**
 * Fragment: what the reversing postings of card refund parts moved (the sum of their positive
 * entries), as rows (`invoice_id`, `payment_method_id`, `moved`), for references
 * `refund:<invoice id>:<payment method id>:reversed`.
 */
export function reversalPostingsMovedSql(): string {
  return `select split_part(p.reference, ':', 2) as invoice_id, split_part(p.reference, ':', 3) as payment_method_id,
                 sum(e.amount) filter (where e.amount > 0) as moved
            from ledger_posting p join ledger_entry e on e.posting_id = p.id
           where p.reference like 'refund:%:reversed' group by 1, 2`;
}

/**
 * Fragment: what the postings of one phase moved, per owner (`owner_id`, `moved`: the sum of
 * their positive entries), for references `<prefix>:<owner_id>:<phase>`.
 */
export function postingMovedSql(prefix: 'escrow' | 'invoice', phase: string): string {
  return `select split_part(p.reference, ':', 2) as owner_id, sum(e.amount) filter (where e.amount > 0) as moved
            from ledger_posting p join ledger_entry e on e.posting_id = p.id
           where p.reference like '${prefix}:%:${phase}' and split_part(p.reference, ':', 4) = '' group by 1`;
}

/** Fragment: the escrow holding balances, as rows (`integrator_id`, `currency`, `balance`). */
export const ESCROW_HOLDING_BALANCES_SQL = `select integrator_id, currency, balance from ledger_account where kind = 'escrow_holding'`;

/** Fragment: the balances of the dispute accounts, as rows (`integrator_id`, `currency`, `kind`, `balance`). */
export const DISPUTE_BALANCES_SQL = `select integrator_id, currency, kind, balance from ledger_account
  where kind in ('dispute_holding', 'dispute_fees', 'dispute_losses')`;

/**
 * The integrators' default wallets below zero (`id`, `balance`) and what dispute openings —
 * the one posting allowed to take such a wallet below zero — took from each (`opened`, the
 * sum of their debits of it): `ledger verify` accepts such a wallet down to minus that.
 */
const NEGATIVE_DEFAULT_WALLETS_SQL = `select a.id, a.balance, coalesce(o.opened, 0) as opened
  from ledger_account a
  left join lateral (select -sum(e.amount) as opened from ledger_entry e join ledger_posting p on p.id = e.posting_id
                      where e.ledger_account_id = a.id and p.reference like 'dispute:%:open') o on true
 where a.kind = 'publisher_wallet' and a.balance < 0`;

/** Fragment: the payout holding balances, as rows (`integrator_id`, `currency`, `balance`). */
export const PAYOUT_HOLDING_BALANCES_SQL = `select integrator_id, currency, balance from ledger_account where kind = 'payout_holding'`;

/**
 * Fragment: one row, `by_state`, the phases each state implies as a JSON object parameter
 * (`{"STATE": ["phase", …]}`): `ledger verify` keeps its tables of expected phases in
 * TypeScript and passes them here, so only the owners that differ from them leave the
 * database. Looked up per row (`by_state -> status`), not joined: a join by state had the
 * planner rescan the table for each of a million escrows.
 */
export function expectedPhasesSql(): string {
  return 'select ?::jsonb as by_state';
}

/**
 * Fragment: whether an array of phase names (`actual`, text[]) lacks a phase of `required` or
 * holds one not in `allowed` (JSON arrays, jsonb; `allowed` is `required` when not given);
 * null is none. Compared as sets: a phase is there once at most (references are unique).
 */
export function phasesDifferSql(actual: string, required: string, allowed = required): string {
  const a = `to_jsonb(coalesce(${actual}, '{}'::text[]))`;
  return `not (${a} @> coalesce(${required}, '[]'::jsonb) and coalesce(${allowed}, '[]'::jsonb) @> ${a})`;
}

/**
 * Fragment: the first `?` (a limit) rows of `found` (a query of the rows in breach, with the
 * column `id`), by id, each with the count of all as `total`. `found` runs on its own
 * (materialized): with the order and limit over it, PostgreSQL read whole tables in key order
 * to skip a sort of what is, in a sound ledger, nothing.
 */
export function firstFoundSql(found: string, columns: string): string {
  return `with found as materialized (${found}) select ${columns}, ${PROBLEM_TOTAL_SQL} from found order by id limit ?`;
}

/**
 * Fragment: the columns every `ledger verify` check adds to its rows: `total`, how many rows
 * the check found in all (the rows returned are only its first `limit`).
 */
export const PROBLEM_TOTAL_SQL = 'count(*) over () as total';

/** A row of a `ledger verify` check: `total` is how many the check found in all, of which the first `limit` came back. */
export type Found<T> = T & { total: string };

/**
 * What `holdfast ledger verify` finds wrong in the ledger's own tables (the caller's snapshot):
 * each check returns its first `limit` problems and how many it found. Each is one aggregate
 * over a whole table, done by PostgreSQL (which spills a sort or hash larger than `work_mem` to
 * disk); only the rows in breach come back.
 */
export async function ledgerProblems(db: Db, limit: number) {
  const [counts] = await db.execute<Array<{ accounts: string; postings: string; entries: string }>>(
    `select (select count(*) from ledger_account) as accounts, (select count(*) from ledger_posting) as postings,
            (select count(*) from ledger_entry) as entries`,
  );
  const unbalanced = await db.execute<Array<Found<{ posting_id: string; currency: string; sum: string }>>>(
    `select posting_id, currency, sum(amount) as sum, ${PROBLEM_TOTAL_SQL} from ledger_entry
      group by posting_id, currency having sum(amount) <> 0 order by posting_id limit ?`,
    [limit],
  );
  const thin = await db.execute<Array<Found<{ id: string; n: string }>>>(
    `select p.id, count(e.id) as n, ${PROBLEM_TOTAL_SQL} from ledger_posting p left join ledger_entry e on e.posting_id = p.id
      group by p.id having count(e.id) < 2 order by p.id limit ?`,
    [limit],
  );
  const drifted = await db.execute<Array<Found<{ id: string; balance: string; recomputed: string }>>>(
    `select a.id, a.balance, r.recomputed, ${PROBLEM_TOTAL_SQL} from ledger_account a
       cross join lateral (select (case a.normal_side when 'debit' then -1 else 1 end) * coalesce(sum(e.amount), 0) as recomputed
                             from ledger_entry e where e.ledger_account_id = a.id) r
      where a.balance <> r.recomputed order by a.id limit ?`,
    [limit],
  );
  const negative = await db.execute<Array<Found<{ id: string; kind: string; balance: string }>>>(
    `select a.id, a.kind, a.balance, ${PROBLEM_TOTAL_SQL} from ledger_account a
      where a.balance < 0 and a.kind <> 'token_issuance'
        and not (a.kind = 'publisher_wallet' and -a.balance <= (select w.opened from (${NEGATIVE_DEFAULT_WALLETS_SQL}) w where w.id = a.id))
      order by a.id limit ?`,
    [limit],
  );
  const mismatched = await db.execute<Array<Found<{ id: string }>>>(
    `select e.id, ${PROBLEM_TOTAL_SQL} from ledger_entry e join ledger_account a on a.id = e.ledger_account_id
      where a.currency <> e.currency order by e.id limit ?`,
    [limit],
  );
  const lastApplied = await db.execute<Array<Found<{ id: string; balance: string; balance_after: string }>>>(
    `select a.id, a.balance, l.balance_after, ${PROBLEM_TOTAL_SQL} from ledger_account a
       cross join lateral (select e.balance_after from ledger_entry e where e.ledger_account_id = a.id and e.applied_seq is not null
                            order by e.applied_seq desc, e.id desc limit 1) l
      where l.balance_after <> a.balance order by a.id limit ?`,
    [limit],
  );
  const broken = await db.execute<Array<Found<{ id: string; balance_after: string; expected: string }>>>(
    `select id, balance_after, expected, ${PROBLEM_TOTAL_SQL} from (
       select e.id, e.balance_after,
              lag(e.balance_after) over w + case a.normal_side when 'debit' then -e.amount else e.amount end as expected
         from ledger_entry e join ledger_account a on a.id = e.ledger_account_id
        where e.applied_seq is not null
       window w as (partition by e.ledger_account_id order by e.applied_seq, e.id)) x
      where expected is not null and balance_after <> expected order by id limit ?`,
    [limit],
  );
  return {
    counts: { accounts: Number(counts.accounts), postings: Number(counts.postings), entries: Number(counts.entries) },
    unbalanced,
    thin,
    drifted,
    negative,
    mismatched,
    lastApplied,
    broken,
  };
}

/** One entry of a ledger account as an account statement shows it (`amount`: signed by the account's normal side, + raises its balance). */
export interface StatementEntryRow {
  id: string;
  ledger_account_id: string;
  currency: string;
  amount: string;
  balance_after: string | null;
  reference: string;
  description: string;
  posted_at: Date;
}

/** What a statement page asks for: a time range on the posting's time (from inclusive, to exclusive), an order, a page. */
export interface StatementQuery {
  from?: string;
  to?: string;
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/**
 * The entries of these ledger accounts, in the order they were applied (entries from before
 * that order was recorded first, by id), with their postings; and how many match in all.
 * Index `ledger_entry_account_applied_idx`.
 */
export async function entriesOfAccounts(
  db: Db,
  accountIds: string[],
  q: StatementQuery,
): Promise<{ total: number; rows: StatementEntryRow[] }> {
  const sql = statementSql(accountIds, q);
  const [count] = await db.execute<Array<{ total: string }>>(sql.count, sql.countParams);
  const rows = await db.execute<StatementEntryRow[]>(sql.page, sql.pageParams);
  return { total: Number(count.total), rows };
}

/**
 * The statement's two statements (exported for the plan test). Without dates the entries alone
 * decide: they are counted, and a page is taken by the (ledger_account_id, applied_seq, id)
 * index before any posting is read, so a wallet with a year of entries reads only its page's
 * postings. Dates are the postings': then each entry's posting is checked.
 */
export function statementSql(accountIds: string[], q: StatementQuery) {
  const dated = q.from !== undefined || q.to !== undefined;
  const where = dated
    ? `e.ledger_account_id = any (?::varchar[]) and exists (select 1 from ledger_posting dp where dp.id = e.posting_id
         and (?::timestamptz is null or dp.created_at >= ?::timestamptz) and (?::timestamptz is null or dp.created_at < ?::timestamptz))`
    : 'e.ledger_account_id = any (?::varchar[])';
  const params: unknown[] = dated ? [accountIds, q.from ?? null, q.from ?? null, q.to ?? null, q.to ?? null] : [accountIds];
  const direction = q.sort === 'asc' ? 'asc nulls first' : 'desc nulls last';
  const order = (alias: string) => `${alias}.applied_seq ${direction}, ${alias}.id ${q.sort}`;
  return {
    count: `select count(*) as total from ledger_entry e where ${where}`,
    countParams: params,
    page: `with page as (
             select e.id, e.ledger_account_id, e.currency, e.amount, e.balance_after, e.posting_id, e.applied_seq
               from ledger_entry e where ${where} order by ${order('e')} limit ? offset ?)
           select page.id::text as id, page.ledger_account_id, page.currency,
                  (case a.normal_side when 'debit' then -page.amount else page.amount end)::text as amount,
                  page.balance_after::text as balance_after, p.reference, p.description, p.created_at as posted_at
             from page join ledger_posting p on p.id = page.posting_id join ledger_account a on a.id = page.ledger_account_id
            order by ${order('page')}`,
    pageParams: [...params, q.limit, q.offset],
  };
}

/** An entry of a posting, with its account (`kind`, the wallet's payment method) and where it left the account's balance. */
export interface PostingEntryRow {
  reference: string;
  account_id: string;
  kind: string;
  payment_method_id: string | null;
  currency: string;
  amount: number;
  applied_seq: number | null;
  balance_after: number | null;
}

/** The entries of the postings with these references, in the order they were applied. */
export async function entriesOfPostings(db: Db, references: string[]): Promise<PostingEntryRow[]> {
  if (references.length === 0) return [];
  const rows = await db.execute<PostingEntryRow[]>(
    `select p.reference, a.id as account_id, a.kind, a.payment_method_id, e.currency, e.amount, e.applied_seq, e.balance_after
       from ledger_posting p join ledger_entry e on e.posting_id = p.id join ledger_account a on a.id = e.ledger_account_id
      where p.reference = any (?::varchar[]) order by e.applied_seq nulls first, e.id`,
    [references],
  );
  return rows.map((r) => ({
    ...r,
    amount: Number(r.amount),
    applied_seq: r.applied_seq === null ? null : Number(r.applied_seq),
    balance_after: r.balance_after === null ? null : Number(r.balance_after),
  }));
}

/** The entries of a (credit-normal) ledger account applied after `afterSeq`, in that order, with their postings' references. */
export async function entriesAfter(
  db: Db,
  accountId: string,
  afterSeq: number,
  limit: number,
): Promise<Array<{ seq: number; amount: number; reference: string }>> {
  const rows = await db.execute<Array<{ seq: string; amount: string; reference: string }>>(
    `select e.applied_seq as seq, e.amount, p.reference from ledger_entry e join ledger_posting p on p.id = e.posting_id
      where e.ledger_account_id = ? and e.applied_seq > ? order by e.applied_seq, e.id limit ?`,
    [accountId, afterSeq, limit],
  );
  return rows.map((r) => ({ seq: Number(r.seq), amount: Number(r.amount), reference: r.reference }));
}

/** Accounts' balances and what is held on them, by id, locked (`for update`) in the one lock order. */
export async function lockHeldOf(db: Db, accountIds: string[]): Promise<Map<string, { balance: number; held: number }>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db.execute<Array<{ id: string; balance: string; held: string }>>(
    `select id, balance, held from ledger_account where id = any (?::varchar[]) order by kind <> 'user_wallet', id for update`,
    [accountIds],
  );
  return new Map(rows.map((r) => [r.id, { balance: Number(r.balance), held: Number(r.held) }]));
}

/** Changes what is held on an account by `delta` (the database keeps it within its balance and at least zero). */
export async function addHeld(db: Db, accountId: string, delta: number): Promise<void> {
  await db.execute('update ledger_account set held = held + ? where id = ?', [delta, accountId]);
}

/** Fragment: what is held on each account (`id`, `held`), for `ledger verify` against the holds that make it. */
export const HELD_ACCOUNTS_SQL = 'select id, held from ledger_account where held > 0';

/** Fragment: what the clawback posting of one hold (`dispute:<dispute>:clawback:<hold>`) moved (`moved`: its positive entries). */
export function clawbackMovedSql(disputeExpression: string, holdExpression: string): string {
  return `select sum(e.amount) filter (where e.amount > 0) as moved from ledger_posting p join ledger_entry e on e.posting_id = p.id
           where p.reference = 'dispute:' || ${disputeExpression} || ':clawback:' || ${holdExpression}`;
}

/** The payment method (a wallet) of a user wallet's ledger account. */
export async function paymentMethodOfAccount(db: Db, accountId: string): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ payment_method_id: string | null }>>('select payment_method_id from ledger_account where id = ?', [
    accountId,
  ]);
  return row?.payment_method_id ?? undefined;
}

/**
 * Fragment for an export of a statement: the entries of these ledger accounts whose postings
 * were made in [from, to) (either end open when null), in the order balances changed (entries
 * from before that order was recorded first, by id), as rows (`entry_id`, `wallet_id`,
 * `currency`, `amount` — signed by the account's normal side —, `balance_after`, `reference`,
 * `description`, `posted_at`). For a cursor: no limit.
 */
export function statementExportSql(accountIds: string[], from: string | null, to: string | null): { sql: string; params: unknown[] } {
  return {
    sql: `select e.id::text as entry_id, e.ledger_account_id as wallet_id, e.currency,
                 (case a.normal_side when 'debit' then -e.amount else e.amount end)::text as amount,
                 e.balance_after::text as balance_after, p.reference, p.description, p.created_at as posted_at
            from ledger_entry e join ledger_posting p on p.id = e.posting_id join ledger_account a on a.id = e.ledger_account_id
           where e.ledger_account_id = any (?::varchar[])
             and (?::timestamptz is null or p.created_at >= ?::timestamptz) and (?::timestamptz is null or p.created_at < ?::timestamptz)
           order by e.applied_seq asc nulls first, e.id asc`,
    params: [accountIds, from, from, to, to],
  };
}

/** A settlement line's sum: what the entries of postings matching `referencePattern` (SQL `like`) on accounts of `kinds` add up to. */
export interface PostingSumSpec {
  line: string;
  referencePattern: string;
  /** The number of `:`-separated parts the reference has (excludes longer references sharing the prefix). */
  parts: number;
  kinds: readonly string[];
  /** +1 or −1: how the sum counts toward the line. */
  sign: 1 | -1;
  /** Each entry by its size (`abs`), not its sign: for lines whose entries are credits in one currency and debits in another. */
  magnitude: boolean;
}

/**
 * Per integrator, currency and line, the sum of the entries (+ credit, − debit; by size where a
 * spec says `magnitude`), times each spec's sign, of postings made in [from, to) whose reference
 * matches a spec of the line, on that spec's account kinds, and how many postings; rows (`integrator_id`, `currency`, `line`, `amount`, `postings`). `integratorId`
 * null: every integrator.
 */
export async function postingSums(
  db: Db,
  specs: readonly PostingSumSpec[],
  from: string,
  to: string,
  integratorId: string | null,
): Promise<Array<{ integrator_id: string; currency: string; line: string; amount: string; postings: string }>> {
  return db.execute(
    `select p.integrator_id, e.currency, s.line,
            sum(s.sign * case when s.magnitude then abs(e.amount) else e.amount end)::text as amount,
            count(distinct p.id)::text as postings
       from jsonb_to_recordset(?::jsonb) as s (line text, pattern text, parts int, kinds text[], sign int, magnitude boolean)
       join ledger_posting p on p.reference like s.pattern
                            and array_length(string_to_array(p.reference, ':'), 1) = s.parts
       join ledger_entry e on e.posting_id = p.id
       join ledger_account a on a.id = e.ledger_account_id and a.kind = any (s.kinds)
      where p.created_at >= ?::timestamptz and p.created_at < ?::timestamptz
        and (?::varchar is null or p.integrator_id = ?::varchar)
      group by p.integrator_id, e.currency, s.line
      order by p.integrator_id, e.currency, s.line`,
    [
      JSON.stringify(
        specs.map((s) => ({
          line: s.line,
          pattern: s.referencePattern,
          parts: s.parts,
          kinds: s.kinds,
          sign: s.sign,
          magnitude: s.magnitude,
        })),
      ),
      from,
      to,
      integratorId,
      integratorId,
    ],
  );
}
