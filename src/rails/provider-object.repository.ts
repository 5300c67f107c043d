/**
 * provider_object: the snapshot of each provider object Holdfast relies on, by its provider id,
 * with the Holdfast record it stands behind (`holdfast_ref`). Written when an adapter sees the
 * object (its answer, its webhook), read by `ledger verify` and by operators.
 */
import type { Db } from '../db/sql.js';
import { withoutProviderSecrets } from './provider-secrets.rules.js';

export type Provider = 'stripe' | 'paypal';

export interface ProviderObjectRecord {
  provider: Provider;
  objectId: string;
  /** The provider's own name of its kind: `payment_intent`, `refund`, `dispute`, `payout_item`, `identity.verification_session`. */
  objectType: string;
  integratorId: string | null;
  /** The Holdfast record behind it, such as `payout:<id>:<attempt>` or `invoice:<id>:charge:<payment method id>`. */
  holdfastRef: string;
  snapshot: Record<string, unknown>;
}

/**
 * Stores the object as the provider showed it now: the first sight inserts it, a later one
 * replaces the snapshot. The Holdfast record it stands behind never changes once stored. The
 * snapshot never keeps a `client_secret` (nor a session's `url`): `withoutProviderSecrets`.
 */
export async function saveProviderObject(db: Db, o: ProviderObjectRecord): Promise<void> {
  await db.execute(
    `insert into provider_object (provider, object_id, object_type, integrator_id, holdfast_ref, snapshot)
     values (?, ?, ?, ?, ?, ?::jsonb)
     on conflict (provider, object_id) do update set snapshot = excluded.snapshot, updated_at = now()`,
    [o.provider, o.objectId, o.objectType, o.integratorId, o.holdfastRef, JSON.stringify(withoutProviderSecrets(o.snapshot))],
  );
}

/**
 * Stores the object unless the one stored is further along: a sight replaces the stored snapshot
 * only when `rank` puts its `status` after the stored one's, or level with it at `openRank`
 * (statuses that may follow one another either way). A status `rank` does not list never
 * replaces one. Decided in the one statement, so a command's answer and a webhook's event
 * storing the same object at once keep the later status. Answers whether this sight was stored.
 */
export async function saveProviderObjectForward(
  db: Db,
  o: ProviderObjectRecord,
  rank: Readonly<Record<string, number>>,
  openRank: number,
): Promise<boolean> {
  const ranks = JSON.stringify(rank);
  const rows = await db.execute<Array<{ stored: number }>>(
    `insert into provider_object (provider, object_id, object_type, integrator_id, holdfast_ref, snapshot)
     values (?, ?, ?, ?, ?, ?::jsonb)
     on conflict (provider, object_id) do update set snapshot = excluded.snapshot, updated_at = now()
      where coalesce((?::jsonb ->> (excluded.snapshot ->> 'status'))::int, -2) > coalesce((?::jsonb ->> (provider_object.snapshot ->> 'status'))::int, -1)
         or (coalesce((?::jsonb ->> (excluded.snapshot ->> 'status'))::int, -2) = ?
             and coalesce((?::jsonb ->> (provider_object.snapshot ->> 'status'))::int, -1) = ?)
     returning 1 as stored`,
    [
      o.provider,
      o.objectId,
      o.objectType,
      o.integratorId,
      o.holdfastRef,
      JSON.stringify(withoutProviderSecrets(o.snapshot)),
      ranks,
      ranks,
      ranks,
      openRank,
      ranks,
      openRank,
    ],
  );
  return rows.length > 0;
}

/**
 * Stores the object unless the one stored is further along by `rank` (a higher number): a sight
 * ranked at least as far as the stored one replaces it, so the last word of a provider that
 * promises no order is the furthest one seen. The stored row is locked for the comparison:
 * concurrent sights of one object keep the furthest. Answers whether this sight was stored.
 */
export async function saveProviderObjectUnlessBehind(
  db: Db,
  o: ProviderObjectRecord,
  rank: (snapshot: Record<string, unknown>) => number,
): Promise<boolean> {
  const snapshot = JSON.stringify(withoutProviderSecrets(o.snapshot));
  const inserted = await db.execute<Array<{ stored: number }>>(
    `insert into provider_object (provider, object_id, object_type, integrator_id, holdfast_ref, snapshot)
     values (?, ?, ?, ?, ?, ?::jsonb)
     on conflict (provider, object_id) do nothing
     returning 1 as stored`,
    [o.provider, o.objectId, o.objectType, o.integratorId, o.holdfastRef, snapshot],
  );
  if (inserted.length) return true;
  const [row] = await db.execute<Array<{ snapshot: Record<string, unknown> }>>(
    'select snapshot from provider_object where provider = ? and object_id = ? for update',
    [o.provider, o.objectId],
  );
  if (row && rank(row.snapshot) > rank(o.snapshot)) return false;
  await db.execute('update provider_object set snapshot = ?::jsonb, updated_at = now() where provider = ? and object_id = ?', [
    snapshot,
    o.provider,
    o.objectId,
  ]);
  return true;
}

/**
 * Moves a stored object out from behind its Holdfast record, to `holdfastRef` (a PaymentIntent
 * a later pay replaced: the record keeps one). Its snapshot stays, for operators.
 */
export async function moveProviderObject(db: Db, provider: Provider, objectId: string, holdfastRef: string): Promise<void> {
  await db.execute('update provider_object set holdfast_ref = ?, updated_at = now() where provider = ? and object_id = ?', [
    holdfastRef,
    provider,
    objectId,
  ]);
}

interface Row {
  provider: Provider;
  object_id: string;
  object_type: string;
  integrator_id: string | null;
  holdfast_ref: string;
  snapshot: Record<string, unknown>;
}

const record = (r: Row): ProviderObjectRecord => ({
  provider: r.provider,
  objectId: r.object_id,
  objectType: r.object_type,
  integratorId: r.integrator_id,
  holdfastRef: r.holdfast_ref,
  snapshot: r.snapshot,
});

/** The stored object of a provider by its id, if any. */
export async function findProviderObject(db: Db, provider: Provider, objectId: string): Promise<ProviderObjectRecord | undefined> {
  const [row] = await db.execute<Row[]>(
    'select provider, object_id, object_type, integrator_id, holdfast_ref, snapshot from provider_object where provider = ? and object_id = ?',
    [provider, objectId],
  );
  return row ? record(row) : undefined;
}

/** The stored objects behind one Holdfast record, oldest first. */
export async function providerObjectsOf(db: Db, holdfastRef: string): Promise<ProviderObjectRecord[]> {
  const rows = await db.execute<Row[]>(
    'select provider, object_id, object_type, integrator_id, holdfast_ref, snapshot from provider_object where holdfast_ref = ? order by created_at, object_id',
    [holdfastRef],
  );
  return rows.map(record);
}

/**
 * Objects of a kind still in a state (`snapshot.status`) since more than `olderThanMs`, oldest
 * first, at most `limit`: a card hold (`payment_intent`, `requires_capture`) its command left
 * uncaptured and unreleased. Served by the partial index `provider_object_hold_idx`.
 */
export async function providerObjectsStuck(
  db: Db,
  provider: Provider,
  objectType: 'payment_intent',
  status: 'requires_capture',
  olderThanMs: number,
  limit = 100,
): Promise<ProviderObjectRecord[]> {
  const rows = await db.execute<Row[]>(
    `select provider, object_id, object_type, integrator_id, holdfast_ref, snapshot from provider_object
      where provider = ? and object_type = ? and snapshot ->> 'status' = ? and updated_at < now() - make_interval(secs => ?)
      order by updated_at limit ?`,
    [provider, objectType, status, olderThanMs / 1000, limit],
  );
  return rows.map(record);
}

/** The stored objects of a provider among `objectIds` (those not stored are left out). */
export async function providerObjectsByIds(db: Db, provider: Provider, objectIds: string[]): Promise<ProviderObjectRecord[]> {
  if (!objectIds.length) return [];
  const rows = await db.execute<Row[]>(
    'select provider, object_id, object_type, integrator_id, holdfast_ref, snapshot from provider_object where provider = ? and object_id = any(?::text[])',
    [provider, objectIds],
  );
  return rows.map(record);
}

/** The stored objects of a provider behind any of `holdfastRefs` (by `provider_object_ref_idx`). */
export async function providerObjectsOfRefs(db: Db, provider: Provider, holdfastRefs: string[]): Promise<ProviderObjectRecord[]> {
  if (!holdfastRefs.length) return [];
  const rows = await db.execute<Row[]>(
    'select provider, object_id, object_type, integrator_id, holdfast_ref, snapshot from provider_object where holdfast_ref = any(?::text[]) and provider = ?',
    [holdfastRefs, provider],
  );
  return rows.map(record);
}

/**
 * The stored PaymentIntent whose latest Charge is `chargeId` (a dispute names the Charge it
 * disputes, and the PaymentIntent when there is one), by `provider_object_charge_idx`.
 */
export async function paymentIntentOfCharge(db: Db, provider: Provider, chargeId: string): Promise<ProviderObjectRecord | undefined> {
  const [row] = await db.execute<Row[]>(
    `select provider, object_id, object_type, integrator_id, holdfast_ref, snapshot from provider_object
      where provider = ? and object_type = 'payment_intent' and snapshot ->> 'latest_charge' = ? limit 1`,
    [provider, chargeId],
  );
  return row ? record(row) : undefined;
}
