/**
 * KYC: an account's identity check before money goes out. The account submits its personal
 * data (the hosted KYC flow, with its own user token); the identity verifier the app was given
 * (the identity port) decides at once — the sandbox, from the last name — or starts a session
 * the person completes with the provider, whose outcome arrives later (`applyVerifierOutcome`).
 * A check in manual review waits for the operator (`holdfast kyc decide`); a DENY or an
 * operator's CANCEL stays until the operator reopens it (`holdfast kyc reopen`). Each change
 * emits `kyc-webhook` and sets or lifts the account's `payouts` block as `blockEffect` says.
 * Only the state is ever returned: the personal data is stored apart and never read back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorOfAccount, lockAccount } from '../accounts/account.repository.js';
import { requireAccount } from '../accounts/account-access.service.js';
import type { Principal } from '../integrators/principal.js';
import { activeBlockOf, applyBlock, liftBlock } from '../blocks/block.service.js';
import { type AuditContext, recordAudit } from '../audit/audit.service.js';
import { db as pooled, type Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { IdentityVerifier, VerifierOutcome } from '../rails/identity-verifier.port.js';
import { saveProviderObject } from '../rails/provider-object.repository.js';
import { insertEvent } from '../webhooks/outbox.repository.js';
import {
  countSubmission,
  ensureKycCheck,
  erasePersonalData,
  findKycCheck,
  findKycCheckById,
  lockKycCheck,
  recordVerifierOutcome,
  reopenKycCheck,
  savePersonalData,
  setKycState,
  type KycCheckRow,
} from './kyc.repository.js';
import {
  blockEffect,
  canDecide,
  canReopen,
  canSubmit,
  checkPersonalData,
  isFinal,
  KYC_BLOCK_REASONS,
  kycView,
  outcomeDecider,
  REOPEN_REASON_MAX,
  verifierOutcomeState,
  type Decision,
  type KycDecider,
  type KycState,
} from './kyc.rules.js';

/** `GET /v1/kyc/{account_id}`: the account's check as it stands (NODATA before any submission). */
export async function getKyc(em: EntityManager, principal: Principal, accountId: string) {
  await requireAccount(em, principal, accountId);
  const check = await findKycCheck(pooled(em), accountId);
  return kycView(accountId, check ?? null);
}

/** Whether an account's KYC check is ACCEPT (payouts and token conversion need it). */
export async function kycAccepted(db: Db, accountId: string): Promise<boolean> {
  return (await findKycState(db, accountId)) === 'ACCEPT';
}

/** An account's KYC state; undefined before its first submission or decision (NODATA). */
export async function findKycState(db: Db, accountId: string): Promise<KycState | undefined> {
  return (await findKycCheck(db, accountId))?.state;
}

/** The 409 of a payout or conversion asked for before the account's KYC was accepted. */
export function kycRequired(state: KycState | undefined): AppError {
  return new AppError('invalid_state', `Identity verification (KYC) must be ACCEPT first; it is ${state ?? 'NODATA'}.`, {
    codes: ['KYC_REQUIRED'],
  });
}

/** Locks the account, then its check (made in NODATA when it has none). */
async function lockCheck(db: Db, integratorId: string, accountId: string): Promise<KycCheckRow> {
  await lockAccount(db, integratorId, accountId, 'update');
  return lockKycCheck(db, { accountId, integratorId, kycId: newId('kyc') });
}

/**
 * Moves a locked check to `state`, decided by `decidedBy` (with the verifier session a new
 * submission started, when given): the new state, its event, and its effect on the `payouts` block.
 */
async function moveTo(db: Db, check: KycCheckRow, state: KycState, decidedBy: KycDecider, verifierSessionId?: string | null) {
  await setKycState(db, check.accountId, { state, decidedBy, verifierSessionId });
  const view = kycView(check.accountId, { ...check, state, decidedBy });
  await insertEvent(db, check.integratorId, 'kyc-webhook', view);
  const effect = blockEffect(state, await activeBlockOf(db, check.accountId, 'payouts'));
  if (effect?.action === 'block') {
    await applyBlock(db, {
      integratorId: check.integratorId,
      accountId: check.accountId,
      capability: 'payouts',
      issuer: 'svc',
      reason: effect.reason,
      note: `KYC ${state}`,
      clientId: null,
    });
  } else if (effect?.action === 'lift') {
    await liftBlock(db, {
      integratorId: check.integratorId,
      accountId: check.accountId,
      capability: 'payouts',
      reasons: KYC_BLOCK_REASONS,
    });
  }
  return view;
}

/** What a submission is checked with: the app's identity verifier, and where its hosted flow sends the person back to. */
export interface KycVerification {
  verifier: IdentityVerifier;
  returnUrl: string;
}

/** The 409 of a check that takes no submission in its state. */
function noSubmission(check: KycCheckRow): AppError {
  const why = isFinal(check)
    ? 'it takes no new submission until an operator reopens it'
    : check.state === 'PROCESSING'
      ? 'its verification is under way'
      : 'it takes no new submission';
  return new AppError('invalid_state', `The identity check is ${check.state}: ${why}.`, { codes: ['KYC_STATE_ERROR'] });
}

/**
 * `POST /v1/kyc/{account_id}` (the hosted KYC flow, with the account's own user token): stores
 * the personal data apart and starts the verifier's check. The verifier decides at once (the
 * sandbox) or starts a session: the check is then PROCESSING and the answer carries the
 * session's `verification_url`. Taken before any submission, after an operator's reopen and
 * after the user abandoned their own verification; otherwise 409 `KYC_STATE_ERROR` naming the
 * state. The verifier is asked under the account's lock, so one check never has two sessions;
 * a verifier that fails leaves the check as it was (a provider down answers 503: the person
 * may retry). The check is made before, on its own, so that a retry names the same check and
 * submission number to the verifier (which then reuses a session the failed try made).
 */
export async function submitKyc(
  em: EntityManager,
  principal: Principal,
  accountId: string,
  input: Record<string, unknown>,
  verification: KycVerification,
) {
  await requireAccount(em, principal, accountId);
  const checked = checkPersonalData(input, new Date());
  if (!checked.ok) throw AppError.invalid(checked.fields, 'The personal data is incomplete or not valid.');
  await ensureKycCheck(pooled(em), { accountId, integratorId: principal.integratorId, kycId: newId('kyc') });
  return pooled(em).transaction(async (db) => {
    const check = await lockCheck(db, principal.integratorId, accountId);
    if (!canSubmit(check)) throw noSubmission(check);
    await savePersonalData(db, check.kycId, checked.data);
    await countSubmission(db, accountId);
    const started = await verification.verifier.start({
      kycId: check.kycId,
      submission: check.submissions + 1,
      accountId,
      personalData: checked.data,
      returnUrl: verification.returnUrl,
    });
    if (started.kind === 'decided') return moveTo(db, check, started.state, 'verifier', null);
    if (started.snapshot)
      await saveProviderObject(db, {
        provider: started.snapshot.provider,
        objectId: started.sessionId,
        objectType: started.snapshot.objectType,
        integratorId: check.integratorId,
        holdfastRef: `kyc:${check.kycId}`,
        snapshot: started.snapshot.data,
      });
    const view = await moveTo(db, check, 'PROCESSING', 'verifier', started.sessionId);
    return { ...view, verification_url: started.verificationUrl };
  });
}

/**
 * `holdfast kyc decide ACCOUNT_ID --state ACCEPT|DENY|CANCEL`: the operator's decision. In
 * production only a check in MANUAL_REVIEW may be decided; in staging any (a check is made
 * when the account has none). Deciding the state a check already has changes nothing, except
 * that a CANCEL of the user's own CANCEL becomes the operator's (final until reopened).
 */
export async function decideKyc(em: EntityManager, accountId: string, state: Decision, production: boolean, audit?: AuditContext) {
  return pooled(em).transaction(async (db) => {
    const integratorId = await integratorOfAccount(db, accountId);
    if (!integratorId) throw AppError.notFound('ACCOUNT_GET_ERROR', `No account ${accountId}.`);
    const check = await lockCheck(db, integratorId, accountId);
    if (!canDecide(check.state, production)) {
      throw new AppError('invalid_state', `The identity check is ${check.state}: in production only MANUAL_REVIEW is decided.`, {
        codes: ['KYC_STATE_ERROR'],
      });
    }
    // The same state changes nothing — but an operator's CANCEL of the user's own CANCEL makes it final.
    if (check.state === state && !(state === 'CANCEL' && !isFinal(check))) return kycView(accountId, check);
    const view = await moveTo(db, check, state, 'operator');
    // The state, never the identity.
    if (audit)
      await recordAudit(db, {
        integratorId,
        context: audit,
        action: 'kyc.decide',
        target: { type: 'account', id: accountId },
        before: { state: check.state, decided_by: check.decidedBy ?? null },
        after: { state, decided_by: 'operator' },
      });
    return view;
  });
}

/**
 * `holdfast kyc reopen ACCOUNT_ID --reason …`: lets the person submit again after a DENY or an
 * operator's CANCEL. The check goes to NODATA (event `kyc-webhook`), keeping the reason and
 * when; its `payouts` block stays until an ACCEPT lifts it. Any other check is refused (409
 * `KYC_STATE_ERROR`), as is an empty reason.
 */
export async function reopenKyc(em: EntityManager, accountId: string, reason: string, audit?: AuditContext) {
  const why = reason.trim();
  if (!why) throw AppError.invalid({ reason: ['REQUIRED'] }, 'A reason is required.');
  if (why.length > REOPEN_REASON_MAX)
    throw AppError.invalid({ reason: ['TOO_LONG'] }, `The reason is longer than ${REOPEN_REASON_MAX} characters.`);
  return pooled(em).transaction(async (db) => {
    const integratorId = await integratorOfAccount(db, accountId);
    if (!integratorId) throw AppError.notFound('ACCOUNT_GET_ERROR', `No account ${accountId}.`);
    const check = await lockCheck(db, integratorId, accountId);
    if (!canReopen(check)) {
      const decided = check.state === 'CANCEL' && check.decidedBy ? ` (decided by the ${check.decidedBy})` : '';
      throw new AppError(
        'invalid_state',
        `The identity check of account ${accountId} is ${check.state}${decided}: only a DENY or an operator's CANCEL is reopened.`,
        { codes: ['KYC_STATE_ERROR'] },
      );
    }
    const { reopenedAt } = await reopenKycCheck(db, accountId, why);
    const view = kycView(accountId, { ...check, state: 'NODATA', decidedBy: 'operator' });
    await insertEvent(db, check.integratorId, 'kyc-webhook', view);
    if (audit)
      await recordAudit(db, {
        integratorId,
        context: { ...audit, reason: audit.reason ?? why },
        action: 'kyc.reopen',
        target: { type: 'account', id: accountId },
        before: { state: check.state, decided_by: check.decidedBy ?? null },
        after: { state: 'NODATA' },
      });
    return { ...view, reopen_reason: why, reopened_at: reopenedAt };
  });
}

/**
 * Applies what an identity verifier later reported about a session (its webhook) to the check
 * it was started for: `verified` → ACCEPT, `requires_input` with an error → MANUAL_REVIEW (the
 * operator decides), `canceled` → CANCEL decided by the user (who may submit again),
 * `processing` → PROCESSING, each with its event and `payouts` block effect. Only the check's
 * current session, and only while the check waits for it (PROCESSING), moves it: an outcome of
 * an older session, of a check decided since, or applied a second time changes nothing and
 * emits nothing. The outcome and its error code are kept with the session id; never documents.
 */
export async function applyVerifierOutcome(
  db: Db,
  report: { kycId: string; sessionId: string; outcome: VerifierOutcome; errorCode?: string | null },
): Promise<{ applied: boolean; state: KycState | null }> {
  const found = await findKycCheckById(db, report.kycId);
  if (!found) return { applied: false, state: null };
  return db.transaction(async (tx) => {
    const check = await lockCheck(tx, found.integratorId, found.accountId);
    if (check.kycId !== report.kycId || check.verifierSessionId !== report.sessionId) return { applied: false, state: check.state };
    const errorCode = report.errorCode ? report.errorCode.slice(0, 100) : null;
    const next = verifierOutcomeState(check.state, report.outcome, errorCode);
    if (!next) return { applied: false, state: check.state };
    await moveTo(tx, check, next, outcomeDecider(report.outcome));
    await recordVerifierOutcome(tx, check.accountId, report.outcome, errorCode);
    return { applied: true, state: next };
  });
}

/**
 * `holdfast kyc erase ACCOUNT_ID`: deletes the personal data behind the account's check (the
 * state stays); whether there was any. An erasure is recorded in the audit trail (that it
 * happened, not what was erased).
 */
export function eraseKycData(em: EntityManager, accountId: string, audit?: AuditContext): Promise<boolean> {
  return pooled(em).transaction(async (db) => {
    const erased = await erasePersonalData(db, accountId);
    const integratorId = erased && audit ? await integratorOfAccount(db, accountId) : undefined;
    if (integratorId && audit)
      await recordAudit(db, {
        integratorId,
        context: audit,
        action: 'kyc.erase',
        target: { type: 'account', id: accountId },
        after: { erased: true },
      });
    return erased;
  });
}
