/**
 * token_exchange: the exchanges of convertible tokens for USD (plain SQL). Times follow the
 * integrator's test clock (`tenantNowSql`): an exchange made or executed while the clock is
 * advanced expires on that clock. (`tenantNowSql` takes a qualified column: a bare `integrator_id`
 * would name the clock's own.)
 */
import type { Db } from '../db/sql.js';
import { expectedPhasesSql, type Found, firstFoundSql, phasesDifferSql, postingPhasesSql } from '../ledger/ledger.repository.js';
import { tenantNowSql } from '../sandbox/sandbox.repository.js';
import type { ExchangeRecord, ExchangeStatus } from './conversion.rules.js';

const COLUMNS = `id, integrator_id as "integratorId", account_id as "accountId", status, token_amount as "tokenAmount",
  token_currency as "tokenCurrency", fiat_amount as "fiatAmount", fiat_currency as "fiatCurrency", fee_amount as "feeAmount",
  expires_at as "expiresAt", payout_id as "payoutId", created_at as "createdAt", updated_at as "updatedAt"`;

type Row = Omit<ExchangeRecord, 'tokenAmount' | 'fiatAmount' | 'feeAmount'> & {
  tokenAmount: string | number;
  fiatAmount: string | number;
  feeAmount: string | number;
};

function record(row: Row): ExchangeRecord {
  return { ...row, tokenAmount: Number(row.tokenAmount), fiatAmount: Number(row.fiatAmount), feeAmount: Number(row.feeAmount) };
}

/** Writes an OPEN exchange made now (on the integrator's clock), expiring `ttlSeconds` later; the exchange as stored. */
export async function insertExchange(
  db: Db,
  e: Pick<
    ExchangeRecord,
    'id' | 'integratorId' | 'accountId' | 'tokenAmount' | 'tokenCurrency' | 'fiatAmount' | 'fiatCurrency' | 'feeAmount'
  >,
  ttlSeconds: number,
): Promise<ExchangeRecord> {
  const [row] = await db.execute<Row[]>(
    `with clock as (select ${tenantNowSql('?')} as at)
     insert into token_exchange (id, integrator_id, account_id, status, token_amount, token_currency, fiat_amount, fiat_currency,
                                 fee_amount, expires_at, created_at, updated_at)
     select ?, ?, ?, 'OPEN', ?, ?, ?, ?, ?, clock.at + ?::int * interval '1 second', clock.at, clock.at from clock
     returning ${COLUMNS}`,
    [
      e.integratorId,
      e.id,
      e.integratorId,
      e.accountId,
      e.tokenAmount,
      e.tokenCurrency,
      e.fiatAmount,
      e.fiatCurrency,
      e.feeAmount,
      ttlSeconds,
    ],
  );
  return record(row);
}

/** The integrator's exchange with this id, if any. */
export async function findExchange(db: Db, integratorId: string, id: string): Promise<ExchangeRecord | undefined> {
  const [row] = await db.execute<Row[]>(`select ${COLUMNS} from token_exchange where id = ? and integrator_id = ?`, [id, integratorId]);
  return row && record(row);
}

/** The exchange, locked (`for update`), with whether its `expires_at` has passed on its integrator's clock. */
export async function lockExchangeRow(db: Db, id: string): Promise<(ExchangeRecord & { expired: boolean }) | undefined> {
  const [row] = await db.execute<Array<Row & { expired: boolean }>>(
    `select ${COLUMNS}, x.expires_at <= ${tenantNowSql('x.integrator_id')} as expired from token_exchange x where x.id = ? for update`,
    [id],
  );
  return row && { ...record(row), expired: row.expired === true };
}

/** Sets an exchange's status (its `updated_at` on its integrator's clock); the exchange as stored. */
export async function setExchangeStatus(db: Db, id: string, status: ExchangeStatus): Promise<ExchangeRecord> {
  const [row] = await db.execute<Row[]>(
    `update token_exchange x set status = ?, updated_at = ${tenantNowSql('x.integrator_id')} where x.id = ? returning ${COLUMNS}`,
    [status, id],
  );
  return record(row);
}

/** Names the payout that took an exchange's money. */
export async function setExchangePayout(db: Db, id: string, payoutId: string): Promise<void> {
  await db.execute(`update token_exchange x set payout_id = ?, updated_at = ${tenantNowSql('x.integrator_id')} where x.id = ?`, [
    payoutId,
    id,
  ]);
}

/**
 * `ledger verify`: the exchanges whose postings (`exchange:<id>:<phase>`) are not the phases
 * `expected` gives for their status, and postings of that form naming no exchange (`status`
 * null) — only those, the first `limit` by id, each with the count of all as `total`.
 */
export function exchangePhaseMismatches(
  db: Db,
  expected: Record<string, string[]>,
  limit: number,
): Promise<Array<Found<{ id: string; status: ExchangeStatus | null; phases: string[] | null }>>> {
  return db.execute(
    firstFoundSql(
      `with p as (${postingPhasesSql('exchange')}), xp as (${expectedPhasesSql()})
       select coalesce(x.id, p.owner_id) as id, x.status, p.phases
         from xp cross join (token_exchange x full join p on p.owner_id = x.id)
        where x.id is null or ${phasesDifferSql(`array_remove(p.phases, '')`, 'xp.by_state -> x.status')}`,
      'id, status, phases',
    ),
    [JSON.stringify(expected), limit],
  );
}
