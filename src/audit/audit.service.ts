/**
 * The audit trail (docs/security.md#audit-trail): every operator action writes one record with
 * `recordAudit`, in the transaction of the change it records — so a change and its record
 * commit together, and a refused or failed action leaves none. Shortly after the commit the
 * sealing worker (`sealAudit`, a maintenance job) gives each integrator's new records, in
 * order, their sequence number and a hash chained to the record before; `verifyAudit` (`holdfast
 * audit verify`) recomputes the chains. The tables refuse any other change (triggers).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { db as pooled, type Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import {
  auditPage,
  chainHead,
  chainIntegrators,
  insertAuditRecord,
  integratorsWithUnsealed,
  lockChainHead,
  sealRecords,
  sealedRecordsAfter,
  staleUnsealed,
  unsealedRecords,
  type AuditFilter,
  type StoredAuditRecord,
} from './audit.repository.js';
import {
  checkChain,
  checkHead,
  normalReason,
  personalDataPaths,
  sealHash,
  type AuditEntry,
  type AuditView,
  type ChainBreak,
} from './audit.rules.js';

export type { Actor, AuditContext, AuditEntry } from './audit.rules.js';

/**
 * Writes one audit record in `db`'s transaction (the caller's: the change it records is in the
 * same one). Refuses — a bug, so a plain Error that rolls the change back — a record whose
 * snapshots name personal data, or a reason over the limit. Returns its id.
 */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<string> {
  const personal = personalDataPaths(entry);
  if (personal.length)
    throw new Error(`audit record of ${entry.action}: personal data never enters the audit trail (${personal.join(', ')})`);
  const reason = normalReason(entry.context.reason);
  if (reason === undefined) throw AppError.invalid({ reason: ['TOO_LONG'] }, 'The reason is longer than 1,000 characters.');
  const id = newId('aud');
  await insertAuditRecord(db, {
    id,
    integratorId: entry.integratorId,
    actorKind: entry.context.actor.kind,
    actorId: entry.context.actor.id.slice(0, 255),
    actorName: entry.context.actor.name.slice(0, 255),
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    reason,
    before: entry.before ?? null,
    after: entry.after ?? null,
    requestId: entry.context.requestId ?? null,
  });
  return id;
}

/** How often the workers' maintenance queue runs `sealAudit` (at most; `sweepEveryMs` when shorter). */
export const AUDIT_SEAL_EVERY_MS = 2_000;

/** How many records one sealing transaction seals of an integrator, at most. */
export const SEAL_BATCH = 500;

/**
 * Seals what has committed: for each integrator with unsealed records (at most `integrators`
 * per run), in one transaction holding its chain head, its records oldest first each get the
 * next sequence number and `sha256(previous hash, canonical record)`. Runs alongside another
 * sealing run safely (the chain head row is the lock). Returns how many records it sealed.
 */
export async function sealAudit(em: EntityManager, integrators = 100): Promise<{ sealed: number }> {
  const db = pooled(em);
  let sealed = 0;
  for (const integratorId of await integratorsWithUnsealed(db, integrators)) {
    sealed += await db.transaction(async (tx) => {
      let head = await lockChainHead(tx, integratorId);
      const records = await unsealedRecords(tx, integratorId, SEAL_BATCH);
      const seals = records.map((r) => {
        const seq = head.seq + 1;
        const hash = sealHash(viewOf({ ...r, seq }), head.hash);
        const seal = { id: r.audit_id, seq, prevHash: head.hash, hash };
        head = { seq, hash };
        return seal;
      });
      await sealRecords(tx, integratorId, seals);
      return seals.length;
    });
  }
  return { sealed };
}

/** A stored record as the API shows it (and as its hash covers it, less `sealed_at`). */
function viewOf(r: StoredAuditRecord): AuditView {
  const { prev_hash: _p, hash: _h, ...view } = r;
  return view;
}

/** How long a record may wait for its seal before `audit verify` reports it. */
export const UNSEALED_GRACE_SECONDS = 60;

/** What `holdfast audit verify` found. */
export interface AuditVerification {
  integrators: number;
  sealed: number;
  /** The first break of each integrator's chain whose chain breaks. */
  breaks: ChainBreak[];
  /** Records left unsealed longer than `UNSEALED_GRACE_SECONDS` (the sealing worker is not running?). */
  unsealed: { count: number; oldest: string | null };
}

/**
 * Recomputes every integrator's chain from its first sealed record: each must follow the one
 * before (seq + 1, its `prev_hash`), hash to its own `hash`, and the last must be the chain head
 * — so an edited, removed or re-sealed record breaks it. Names the first break of each chain.
 * With `integratorId`, only that integrator's chain (and its unsealed records).
 */
export async function verifyAudit(em: EntityManager, opts: { integratorId?: string; batch?: number } = {}): Promise<AuditVerification> {
  const db = pooled(em);
  const batch = opts.batch ?? 1_000;
  const integrators = (await chainIntegrators(db)).filter((id) => opts.integratorId === undefined || id === opts.integratorId);
  const breaks: ChainBreak[] = [];
  let sealed = 0;
  for (const integratorId of integrators) {
    const found = await verifyChain(db, integratorId, batch);
    sealed += found.sealed;
    if (found.break) breaks.push(found.break);
  }
  return { integrators: integrators.length, sealed, breaks, unsealed: await staleUnsealed(db, UNSEALED_GRACE_SECONDS, opts.integratorId) };
}

async function verifyChain(db: Db, integratorId: string, batch: number): Promise<{ sealed: number; break?: ChainBreak }> {
  // The head is read first: records sealed after it are past it and not checked this time.
  const head = await chainHead(db, integratorId);
  let last = { seq: 0, hash: null as string | null };
  let sealed = 0;
  for (;;) {
    const records = (await sealedRecordsAfter(db, integratorId, last.seq, batch)).filter((r) => !head || (r.seq ?? 0) <= head.seq);
    const checked = checkChain(
      integratorId,
      records.map((r) => ({ view: viewOf(r), prevHash: r.prev_hash, hash: r.hash ?? '' })),
      last,
    );
    if ('break' in checked) return { sealed, break: checked.break };
    sealed += records.length;
    last = checked;
    if (records.length < batch) break;
  }
  const atHead = checkHead(integratorId, last, head);
  return atHead ? { sealed, break: atHead } : { sealed };
}

/** What `GET /v2/audit` and `holdfast audit list` filter by. */
export type { AuditFilter } from './audit.repository.js';

/** A page of audit records, newest first (`integratorId` set: one integrator's only). */
export async function listAudit(em: EntityManager, filter: AuditFilter, page: { limit: number; offset: number }) {
  const { total, records } = await auditPage(pooled(em), filter, page);
  return { records: records.map(viewOf), limit: page.limit, offset: page.offset, total };
}
