/**
 * KYC rules (pure): the states of an account's identity check, what each state means (the
 * personal-data level, what is still required), who may move a check where (and which
 * decisions stay until an operator reopens them), what a verifier's later outcome does, what a
 * state does to the account's `payouts` block, and the checks of the submitted personal data.
 */
import { addFieldError, fieldErrors, type FieldErrors } from '../errors.js';
import type { IdentityPersonalData, VerifierOutcome } from '../rails/identity-verifier.port.js';

export const KYC_STATES = ['NODATA', 'PROCESSING', 'MANUAL_REVIEW', 'ACCEPT', 'DENY', 'CANCEL'] as const;
export type KycState = (typeof KYC_STATES)[number];

export type PiiLevel = 'NONE' | 'BASIC' | 'FULL';

/** The states the operator may decide (`holdfast kyc decide`). */
export const DECISIONS = ['ACCEPT', 'DENY', 'CANCEL'] as const;
export type Decision = (typeof DECISIONS)[number];

/** The personal data a check asks for, in the order the hosted form shows it. */
export const KYC_FIELDS = ['first_name', 'last_name', 'date_of_birth', 'address', 'country'] as const;

/** The personal data of a submission: what the identity port's verifiers receive. */
export type PersonalData = IdentityPersonalData;

/**
 * Who decided a check's current state: the `operator` (`holdfast kyc decide`, `kyc reopen`),
 * the `verifier` (the identity port's adapter, at once or by its later outcome) or the `user`
 * (who abandoned their own hosted verification). Null on checks decided before it was recorded.
 */
export const KYC_DECIDERS = ['operator', 'verifier', 'user'] as const;
export type KycDecider = (typeof KYC_DECIDERS)[number];

/** A check's state with who decided it. */
export interface KycStanding {
  state: KycState;
  decidedBy: KycDecider | null;
}

/**
 * Whether a state stays until an operator reopens it: DENY, and a CANCEL that is not the
 * user's own (an operator's, or one whose decider was not recorded, which only an operator
 * could make before deciders were recorded).
 */
export function isFinal(check: KycStanding): boolean {
  return check.state === 'DENY' || (check.state === 'CANCEL' && check.decidedBy !== 'user' && check.decidedBy !== 'verifier');
}

/** How much verified personal data stands behind a state: FULL only once accepted. */
export function piiLevel(state: KycState): PiiLevel {
  if (state === 'ACCEPT') return 'FULL';
  if (state === 'NODATA' || state === 'CANCEL') return 'NONE';
  return 'BASIC';
}

/** What the account must still provide: everything while the check takes a submission, nothing otherwise. */
export function kycRequirements(check: KycStanding): string[] {
  return canSubmit(check) ? [...KYC_FIELDS] : [];
}

/**
 * Whether personal data may be submitted now: before any submission (or after an operator
 * reopened the check), or after the user abandoned their own verification. Not while a check
 * is processing, in review or accepted, nor after a DENY or an operator's CANCEL (`isFinal`).
 */
export function canSubmit(check: KycStanding): boolean {
  return check.state === 'NODATA' || (check.state === 'CANCEL' && !isFinal(check));
}

/** Whether the operator may reopen a check (`holdfast kyc reopen`): only a final one. */
export function canReopen(check: KycStanding): boolean {
  return isFinal(check);
}

/** The longest reason an operator may give for a reopen. */
export const REOPEN_REASON_MAX = 500;

/**
 * The state a verifier's later outcome for the check's current session moves it to, or null
 * when it moves nothing. Only a check still waiting for its verifier (PROCESSING) moves: a
 * check in review waits for the operator, and a decided one stays decided, so an outcome that
 * arrives late, twice or out of order changes nothing. `verified` → ACCEPT; `requires_input`
 * with an error → MANUAL_REVIEW (without one the person is still at it); `canceled` → CANCEL
 * (the user's: they may submit again); `processing` → PROCESSING.
 */
export function verifierOutcomeState(current: KycState, outcome: VerifierOutcome, errorCode: string | null): KycState | null {
  if (current !== 'PROCESSING') return null;
  const next: KycState =
    outcome === 'verified'
      ? 'ACCEPT'
      : outcome === 'canceled'
        ? 'CANCEL'
        : outcome === 'requires_input' && errorCode
          ? 'MANUAL_REVIEW'
          : 'PROCESSING';
  return next === current ? null : next;
}

/** Who decided the state a verifier's outcome moves a check to: the user abandoned it, else the verifier decided. */
export function outcomeDecider(outcome: VerifierOutcome): KycDecider {
  return outcome === 'canceled' ? 'user' : 'verifier';
}

/**
 * Whether the operator may decide `to` from `from`: in production only a check in manual
 * review; in staging from any state (so that server-side tests need no browser).
 */
export function canDecide(from: KycState, production: boolean): boolean {
  return !production || from === 'MANUAL_REVIEW';
}

/** The `payouts` block reasons a KYC outcome sets, and that acceptance lifts. */
export const KYC_BLOCK_REASONS = ['failed_kyc', 'kyc_application_cancelled'] as const;

/**
 * What a new state does to the account's `payouts` block (`active`: the active one, if any):
 * DENY and CANCEL block payouts (reason `failed_kyc`, `kyc_application_cancelled`) unless a
 * payouts block is already active, which stays as it is; ACCEPT lifts an active payouts block
 * only when a KYC outcome set it. Every other state leaves it as it is — NODATA after an
 * operator's reopen too: a reopen lets the person try again, and only an ACCEPT lifts the block.
 */
export function blockEffect(
  state: KycState,
  active: { reason: string } | null,
): { action: 'block'; reason: (typeof KYC_BLOCK_REASONS)[number] } | { action: 'lift' } | null {
  if (state === 'DENY' || state === 'CANCEL') {
    if (active) return null;
    return { action: 'block', reason: state === 'DENY' ? 'failed_kyc' : 'kyc_application_cancelled' };
  }
  if (state === 'ACCEPT' && active && (KYC_BLOCK_REASONS as readonly string[]).includes(active.reason)) return { action: 'lift' };
  return null;
}

const TEXT_LIMITS: Record<Exclude<keyof PersonalData, 'date_of_birth' | 'country'>, number> = {
  first_name: 100,
  last_name: 100,
  address: 300,
};

/** Checks submitted personal data: the field errors (naming each field), or the data trimmed. */
export function checkPersonalData(
  input: Record<string, unknown>,
  today: Date,
): { ok: true; data: PersonalData } | { ok: false; fields: FieldErrors } {
  const fields = fieldErrors();
  const text = (name: keyof PersonalData) => (typeof input[name] === 'string' ? (input[name] as string).trim() : '');
  for (const [name, max] of Object.entries(TEXT_LIMITS) as Array<[keyof typeof TEXT_LIMITS, number]>) {
    const value = text(name);
    if (!value) addFieldError(fields, name, 'REQUIRED');
    else if (value.length > max) addFieldError(fields, name, 'TOO_LONG');
  }
  const birth = text('date_of_birth');
  const date = /^\d{4}-\d{2}-\d{2}$/.test(birth) ? new Date(`${birth}T00:00:00Z`) : null;
  if (!birth) addFieldError(fields, 'date_of_birth', 'REQUIRED');
  else if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== birth)
    addFieldError(fields, 'date_of_birth', 'INVALID_VALUE');
  else if (date.getTime() >= today.getTime() || date.getUTCFullYear() < 1900) addFieldError(fields, 'date_of_birth', 'OUT_OF_RANGE');
  const country = text('country').toUpperCase();
  if (!country) addFieldError(fields, 'country', 'REQUIRED');
  else if (!/^[A-Z]{2}$/.test(country)) addFieldError(fields, 'country', 'INVALID_VALUE');
  if (Object.keys(fields).length) return { ok: false, fields };
  return {
    ok: true,
    data: { first_name: text('first_name'), last_name: text('last_name'), date_of_birth: birth, address: text('address'), country },
  };
}

/** The KYC view: the state only, never the personal data. */
export function kycView(accountId: string, check: { kycId: string; state: KycState; decidedBy: KycDecider | null } | null) {
  const state = check?.state ?? 'NODATA';
  return {
    account_id: accountId,
    kyc_id: check?.kycId ?? null,
    state,
    pii_level: piiLevel(state),
    kyc_requirements: kycRequirements({ state, decidedBy: check?.decidedBy ?? null }),
  };
}
