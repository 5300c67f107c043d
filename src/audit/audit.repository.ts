/**
 * The audit tables (`audit_record`, `audit_chain`): the only code naming them. Records are
 * inserted in the caller's transaction; sealing takes an integrator's chain head row as its
 * lock; reads render `at` as the API's ISO text, which is also what the hash covers.
 */
import { isoTimestampSql, type Db } from '../db/sql.js';
import type { AuditView } from './audit.rules.js';

/** A record to insert. */
export interface NewAuditRecord {
  id: string;
  integratorId: string;
  actorKind: string;
  actorId: string;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  reason: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  requestId: string | null;
}

export async function insertAuditRecord(db: Db, r: NewAuditRecord): Promise<void> {
  await db.execute(
    `insert into audit_record (id, integrator_id, actor_kind, actor_id, actor_name, action, target_type, target_id, reason, before, after, request_id)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)`,
    [
      r.id,
      r.integratorId,
      r.actorKind,
      r.actorId,
      r.actorName,
      r.action,
      r.targetType,
      r.targetId,
      r.reason,
      r.before === null ? null : JSON.stringify(r.before),
      r.after === null ? null : JSON.stringify(r.after),
      r.requestId,
    ],
  );
}

/** The columns of a record as `AuditView` (plus its sealing). */
const VIEW = `a.id as audit_id, ${isoTimestampSql('a.at')} as at, a.integrator_id, a.actor_kind, a.actor_id, a.actor_name, a.action,
  a.target_type, a.target_id, a.reason, a.before, a.after, a.request_id, a.seq, a.prev_hash, a.hash,
  case when a.sealed_at is null then null else ${isoTimestampSql('a.sealed_at')} end as sealed_at`;

interface Row {
  audit_id: string;
  at: string;
  integrator_id: string;
  actor_kind: AuditView['actor']['kind'];
  actor_id: string;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string;
  reason: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
  seq: string | null;
  prev_hash: string | null;
  hash: string | null;
  sealed_at: string | null;
}

export type StoredAuditRecord = AuditView & { prev_hash: string | null; hash: string | null };

function toView(r: Row): StoredAuditRecord {
  return {
    audit_id: r.audit_id,
    at: r.at,
    integrator_id: r.integrator_id,
    actor: { kind: r.actor_kind, id: r.actor_id, name: r.actor_name },
    action: r.action,
    target: { type: r.target_type, id: r.target_id },
    reason: r.reason,
    before: r.before,
    after: r.after,
    request_id: r.request_id,
    seq: r.seq === null ? null : Number(r.seq),
    sealed_at: r.sealed_at,
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}

/** The integrators with records to seal. */
export async function integratorsWithUnsealed(db: Db, limit: number): Promise<string[]> {
  const rows = await db.execute<Array<{ integrator_id: string }>>(
    `with recursive i as (
       (select integrator_id from audit_record where seq is null order by integrator_id limit 1)
       union all
       select (select integrator_id from audit_record where seq is null and integrator_id > i.integrator_id order by integrator_id limit 1)
         from i where i.integrator_id is not null)
     select integrator_id from i where integrator_id is not null limit ?`,
    [limit],
  );
  return rows.map((r) => r.integrator_id);
}

/** Locks an integrator's chain head (made at seq 0 on first use): one sealing run per integrator at a time. */
export async function lockChainHead(db: Db, integratorId: string): Promise<{ seq: number; hash: string | null }> {
  await db.execute('insert into audit_chain (integrator_id) values (?) on conflict (integrator_id) do nothing', [integratorId]);
  const [row] = await db.execute<Array<{ seq: string; hash: string | null }>>(
    'select seq, hash from audit_chain where integrator_id = ? for update',
    [integratorId],
  );
  return { seq: Number(row.seq), hash: row.hash };
}

/** An integrator's unsealed records, oldest first (committed ones only: the caller's transaction sees no others). */
export async function unsealedRecords(db: Db, integratorId: string, limit: number): Promise<StoredAuditRecord[]> {
  const rows = await db.execute<Row[]>(
    `select ${VIEW} from audit_record a where a.integrator_id = ? and a.seq is null order by a.at, a.id limit ?`,
    [integratorId, limit],
  );
  return rows.map(toView);
}

/** Seals records (their sequence numbers and hashes) and moves the chain head to the last of them. */
export async function sealRecords(
  db: Db,
  integratorId: string,
  sealed: Array<{ id: string; seq: number; prevHash: string | null; hash: string }>,
): Promise<void> {
  if (!sealed.length) return;
  await db.execute(
    `update audit_record a set seq = v.seq, prev_hash = v.prev_hash, hash = v.hash, sealed_at = now()
       from unnest(?::varchar[], ?::bigint[], ?::varchar[], ?::varchar[]) as v (id, seq, prev_hash, hash)
      where a.id = v.id and a.seq is null`,
    [sealed.map((s) => s.id), sealed.map((s) => s.seq), sealed.map((s) => s.prevHash), sealed.map((s) => s.hash)],
  );
  const last = sealed[sealed.length - 1];
  await db.execute('update audit_chain set seq = ?, hash = ?, updated_at = now() where integrator_id = ?', [
    last.seq,
    last.hash,
    integratorId,
  ]);
}

/** Every integrator with sealed records or a chain head. */
export async function chainIntegrators(db: Db): Promise<string[]> {
  const rows = await db.execute<Array<{ integrator_id: string }>>(
    `select integrator_id from audit_chain union select distinct integrator_id from audit_record where seq is not null order by 1`,
  );
  return rows.map((r) => r.integrator_id);
}

/** An integrator's chain head, if it has one. */
export async function chainHead(db: Db, integratorId: string): Promise<{ seq: number; hash: string | null } | undefined> {
  const [row] = await db.execute<Array<{ seq: string; hash: string | null }>>('select seq, hash from audit_chain where integrator_id = ?', [
    integratorId,
  ]);
  return row && { seq: Number(row.seq), hash: row.hash };
}

/** A batch of an integrator's sealed records after `afterSeq`, in seq order. */
export async function sealedRecordsAfter(db: Db, integratorId: string, afterSeq: number, limit: number): Promise<StoredAuditRecord[]> {
  const rows = await db.execute<Row[]>(
    `select ${VIEW} from audit_record a where a.integrator_id = ? and a.seq > ? order by a.seq limit ?`,
    [integratorId, afterSeq, limit],
  );
  return rows.map(toView);
}

/** Records unsealed for longer than `olderThanSeconds`: how many, and the oldest. */
export async function staleUnsealed(
  db: Db,
  olderThanSeconds: number,
  integratorId?: string,
): Promise<{ count: number; oldest: string | null }> {
  const [row] = await db.execute<Array<{ count: string; oldest: string | null }>>(
    `select count(*) as count, min(${isoTimestampSql('at')}) as oldest from audit_record
      where seq is null and at < now() - make_interval(secs => ?)${integratorId === undefined ? '' : ' and integrator_id = ?'}`,
    integratorId === undefined ? [olderThanSeconds] : [olderThanSeconds, integratorId],
  );
  return { count: Number(row.count), oldest: row.oldest };
}

/** What a list of records is filtered by (all optional but the integrator, when given). */
export interface AuditFilter {
  integratorId?: string;
  action?: string;
  targetId?: string;
  /** An actor's id or name. */
  actor?: string;
  from?: Date;
  to?: Date;
}

/** The where clause of `filter` over `audit_record a`, and its parameters. */
function auditWhere(filter: AuditFilter): { clause: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (filter.integratorId !== undefined) add('a.integrator_id = ?', filter.integratorId);
  if (filter.action !== undefined) add('a.action = ?', filter.action);
  if (filter.targetId !== undefined) add('a.target_id = ?', filter.targetId);
  if (filter.actor !== undefined) add('(a.actor_id = ? or a.actor_name = ?)', filter.actor, filter.actor);
  if (filter.from !== undefined) add('a.at >= ?', filter.from);
  if (filter.to !== undefined) add('a.at < ?', filter.to);
  return { clause: where.length ? `where ${where.join(' and ')}` : '', params };
}

/** A page of records, newest first, and how many match. */
export async function auditPage(
  db: Db,
  filter: AuditFilter,
  page: { limit: number; offset: number },
): Promise<{ total: number; records: StoredAuditRecord[] }> {
  const { clause, params } = auditWhere(filter);
  const [{ total }] = await db.execute<Array<{ total: string }>>(`select count(*) as total from audit_record a ${clause}`, params);
  const rows = await db.execute<Row[]>(`select ${VIEW} from audit_record a ${clause} order by a.at desc, a.id desc limit ? offset ?`, [
    ...params,
    page.limit,
    page.offset,
  ]);
  return { total: Number(total), records: rows.map(toView) };
}

/**
 * The export fragment of an integrator's records (`GET /v2/exports/audit`): the filters of
 * `auditPage`, oldest first (`at`, ties by id) through `audit_record_integrator_at_idx`; `at` as
 * the API renders it, `seq` as text (a bigint), null while the record is unsealed.
 */
export function auditExportSql(integratorId: string, filter: Omit<AuditFilter, 'integratorId'>): { sql: string; params: unknown[] } {
  const { clause, params } = auditWhere({ ...filter, integratorId });
  return {
    sql: `select a.id as audit_id, ${isoTimestampSql('a.at')} as at, a.actor_kind, a.actor_id, a.actor_name, a.action, a.target_type,
                 a.target_id, a.reason, a.request_id, a.seq::text as seq, a.before, a.after
            from audit_record a ${clause} order by a.at, a.id`,
    params,
  };
}
