/**
 * Stripe Identity's `identity.verification_session.*` events, applied to the KYC check their
 * session was started for (its `metadata.kyc_id`): the session's snapshot is stored, and its
 * status is the verifier's outcome (`applyVerifierOutcome`; a person who abandoned Stripe's
 * page leaves `requires_input` with `abandoned`, which is their own CANCEL). What each status does, and why a
 * duplicate, a late or an out-of-order event changes nothing, is the outcome rules' (only the
 * check's current session, only while it is PROCESSING); the snapshot keeps the session's
 * final state against a late one too.
 */
import type { Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { findProviderObject, saveProviderObject } from '../rails/provider-object.repository.js';
import { verificationSessionOutcome, verificationSessionSnapshot } from '../rails/verification-session.rules.js';
import { findKycCheckById } from './kyc.repository.js';
import { applyVerifierOutcome } from './kyc.service.js';

/** What this handler reads of a stored provider event (the provider-events module's record, declared here to import nothing of it). */
export interface IdentitySessionEvent {
  providerEventId: string;
  type: string;
  payload: Record<string, unknown>;
}

const OBJECT_TYPE = 'identity.verification_session';

/** The statuses a session never leaves: a late event of an earlier status must not replace their snapshot. */
const FINAL_STATUSES: readonly string[] = ['verified', 'canceled'];

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Applies one `identity.verification_session.*` event: `applied` when it moved the check, else `ignored`. */
export async function applyIdentitySessionEvent(db: Db, event: IdentitySessionEvent): Promise<'applied' | 'ignored'> {
  const session = record(record(event.payload.data)?.object);
  const sessionId = session?.id;
  if (!session || typeof sessionId !== 'string' || session.object !== OBJECT_TYPE)
    throw new AppError('invalid_input', `Event ${event.providerEventId} carries no verification session.`, { codes: ['INPUT_ERROR'] });
  const kycId = record(session.metadata)?.kyc_id;
  // A session Holdfast did not start (another system on the same Stripe account) names no check of ours.
  if (typeof kycId !== 'string') return 'ignored';
  const check = await findKycCheckById(db, kycId);
  if (!check) return 'ignored';

  const status = typeof session.status === 'string' ? session.status : '';
  const lastError = record(session.last_error);
  const reported = verificationSessionOutcome(status, typeof lastError?.code === 'string' ? lastError.code : null);
  let applied = false;
  if (reported) {
    // It locks the account and its check until the event's transaction commits, so the snapshot below is read and written under that lock.
    ({ applied } = await applyVerifierOutcome(db, { kycId, sessionId, ...reported }));
  }
  const stored = await findProviderObject(db, 'stripe', sessionId);
  const storedStatus = stored?.snapshot.status;
  if (!(typeof storedStatus === 'string' && FINAL_STATUSES.includes(storedStatus) && !FINAL_STATUSES.includes(status))) {
    await saveProviderObject(db, {
      provider: 'stripe',
      objectId: sessionId,
      objectType: OBJECT_TYPE,
      integratorId: check.integratorId,
      holdfastRef: `kyc:${kycId}`,
      snapshot: verificationSessionSnapshot(session),
    });
  }
  return applied ? 'applied' : 'ignored';
}
