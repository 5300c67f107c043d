/**
 * KYC rules (pure): the states of an account's identity check, what each state means (the
 * personal-data level, what is still required), the sandbox verifier's verdict, who may move a
 * check where, what a state does to the account's `payouts` block, and the checks of the
 * submitted personal data.
 */
import { addFieldError, fieldErrors, type FieldErrors } from '../errors.js';

export const KYC_STATES = ['NODATA', 'PROCESSING', 'MANUAL_REVIEW', 'ACCEPT', 'DENY', 'CANCEL'] as const;
export type KycState = (typeof KYC_STATES)[number];

export type PiiLevel = 'NONE' | 'BASIC' | 'FULL';

/** The states the operator may decide (`holdfast kyc decide`). */
export const DECISIONS = ['ACCEPT', 'DENY', 'CANCEL'] as const;
export type Decision = (typeof DECISIONS)[number];

/** The personal data a check asks for, in the order the hosted form shows it. */
export const KYC_FIELDS = ['first_name', 'last_name', 'date_of_birth', 'address', 'country'] as const;

export interface PersonalData {
  first_name: string;
  last_name: string;
  /** YYYY-MM-DD. */
  date_of_birth: string;
  address: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
}

/** How much verified personal data stands behind a state: FULL only once accepted. */
export function piiLevel(state: KycState): PiiLevel {
  if (state === 'ACCEPT') return 'FULL';
  if (state === 'NODATA' || state === 'CANCEL') return 'NONE';
  return 'BASIC';
}

/** What the account must still provide: everything before a submission (or after a cancel), nothing once submitted. */
export function kycRequirements(state: KycState): string[] {
  return state === 'NODATA' || state === 'CANCEL' ? [...KYC_FIELDS] : [];
}

/**
 * The sandbox verifier: decides from the last name alone, so that every outcome can be tried.
 * `Deny` → DENY, `Review` → MANUAL_REVIEW (case and surrounding spaces ignored), anything else → ACCEPT.
 */
export function sandboxVerdict(data: Pick<PersonalData, 'last_name'>): KycState {
  const name = data.last_name.trim().toLowerCase();
  if (name === 'deny') return 'DENY';
  if (name === 'review') return 'MANUAL_REVIEW';
  return 'ACCEPT';
}

/** Whether personal data may be submitted now: before any submission, or after a cancelled one. */
export function canSubmit(state: KycState): boolean {
  return state === 'NODATA' || state === 'CANCEL';
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
 * only when a KYC outcome set it.
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
export function kycView(accountId: string, check: { kycId: string; state: KycState } | null) {
  const state = check?.state ?? 'NODATA';
  return {
    account_id: accountId,
    kyc_id: check?.kycId ?? null,
    state,
    pii_level: piiLevel(state),
    kyc_requirements: kycRequirements(state),
  };
}
