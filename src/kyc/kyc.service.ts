/**
 * KYC: an account's identity check before money goes out. The account submits its personal
 * data (the hosted KYC flow, with its own user token); the sandbox verifier decides at once
 * from it; a check in manual review waits for the operator (`holdfast kyc decide`). Each change
 * emits `kyc-webhook` and sets or lifts the account's `payouts` block as `blockEffect` says.
 * Only the state is ever returned: the personal data is stored apart and never read back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorOfAccount, lockAccount } from '../accounts/account.repository.js';
import { requireAccount } from '../accounts/account-access.service.js';
import type { Principal } from '../integrators/principal.js';
import { activeBlockOf, applyBlock, liftBlock } from '../blocks/block.service.js';
import { db as pooled, type Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { insertEvent } from '../webhooks/outbox.repository.js';
import { erasePersonalData, findKycCheck, lockKycCheck, savePersonalData, setKycState, type KycCheckRow } from './kyc.repository.js';
import {
  blockEffect,
  canDecide,
  canSubmit,
  checkPersonalData,
  KYC_BLOCK_REASONS,
  kycView,
  sandboxVerdict,
  type Decision,
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

/** Moves a locked check to `state`: the new state, its event, and its effect on the `payouts` block. */
async function moveTo(db: Db, check: KycCheckRow, state: KycState) {
  await setKycState(db, check.accountId, state);
  const view = kycView(check.accountId, { ...check, state });
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

/**
 * `POST /v1/kyc/{account_id}` (the hosted KYC flow, with the account's own user token): stores
 * the personal data apart and lets the sandbox verifier decide. Allowed before any submission
 * and after a cancelled one; otherwise 409 `KYC_STATE_ERROR`.
 */
export async function submitKyc(em: EntityManager, principal: Principal, accountId: string, input: Record<string, unknown>) {
  await requireAccount(em, principal, accountId);
  const checked = checkPersonalData(input, new Date());
  if (!checked.ok) throw AppError.invalid(checked.fields, 'The personal data is incomplete or not valid.');
  return pooled(em).transaction(async (db) => {
    const check = await lockCheck(db, principal.integratorId, accountId);
    if (!canSubmit(check.state)) {
      throw new AppError('invalid_state', `The identity check is ${check.state}: it takes no new submission.`, {
        codes: ['KYC_STATE_ERROR'],
      });
    }
    await savePersonalData(db, check.kycId, checked.data);
    return moveTo(db, check, sandboxVerdict(checked.data));
  });
}

/**
 * `holdfast kyc decide ACCOUNT_ID --state ACCEPT|DENY|CANCEL`: the operator's decision. In
 * production only a check in MANUAL_REVIEW may be decided; in staging any (a check is made
 * when the account has none). Deciding the state a check already has changes nothing.
 */
export async function decideKyc(em: EntityManager, accountId: string, state: Decision, production: boolean) {
  return pooled(em).transaction(async (db) => {
    const integratorId = await integratorOfAccount(db, accountId);
    if (!integratorId) throw AppError.notFound('ACCOUNT_GET_ERROR', `No account ${accountId}.`);
    const check = await lockCheck(db, integratorId, accountId);
    if (!canDecide(check.state, production)) {
      throw new AppError('invalid_state', `The identity check is ${check.state}: in production only MANUAL_REVIEW is decided.`, {
        codes: ['KYC_STATE_ERROR'],
      });
    }
    if (check.state === state) return kycView(accountId, check);
    return moveTo(db, check, state);
  });
}

/** `holdfast kyc erase ACCOUNT_ID`: deletes the personal data behind the account's check (the state stays); whether there was any. */
export function eraseKycData(em: EntityManager, accountId: string): Promise<boolean> {
  return erasePersonalData(pooled(em), accountId);
}
