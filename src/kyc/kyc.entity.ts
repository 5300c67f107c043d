import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { VERIFIER_OUTCOMES } from '../rails/identity-verifier.port.js';
import { KYC_DECIDERS, KYC_STATES } from './kyc.rules.js';

/**
 * An account's identity check: its state, who decided it, the verifier's session of the latest
 * submission with its latest outcome, and the operator's latest reopen. The personal data
 * behind it is kept apart; the documents a provider saw are never kept.
 */
export const KycCheck = defineEntity({
  name: 'KycCheck',
  tableName: 'kyc_check',
  indexes: [
    // The console's KYC review queue, per integrator, oldest first.
    {
      name: 'kyc_check_review_idx',
      expression: `create index kyc_check_review_idx on kyc_check (integrator_id, updated_at) where state = 'MANUAL_REVIEW'`,
    },
  ],
  properties: {
    accountId: p.string().primary().length(36),
    integratorId: p.string().length(36),
    kycId: p.string().length(36).unique('kyc_check_kyc_id_unique'),
    state: p.enum([...KYC_STATES]).columnType('varchar(16)'),
    decidedBy: p
      .enum([...KYC_DECIDERS])
      .columnType('varchar(16)')
      .nullable(),
    verifierSessionId: p.string().length(255).nullable(),
    verifierOutcome: p
      .enum([...VERIFIER_OUTCOMES])
      .columnType('varchar(16)')
      .nullable(),
    verifierError: p.string().length(100).nullable(),
    /** Submissions the check took: with the kyc id it names a verifier's session request (a retry reuses the same). */
    submissions: p.integer().default(0),
    reopenReason: p.string().length(500).nullable(),
    reopenedAt: p.datetime().nullable(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IKycCheck = InferEntity<typeof KycCheck>;

/**
 * The personal data of a check, apart from its state: no endpoint returns it and nothing logs
 * it. Erasing a person (the `gdpr` block reason) deletes this row; the check keeps its state.
 */
export const KycPersonalData = defineEntity({
  name: 'KycPersonalData',
  tableName: 'kyc_personal_data',
  properties: {
    kycId: p.string().primary().length(36),
    firstName: p.string().length(100),
    lastName: p.string().length(100),
    dateOfBirth: p.string().columnType('date'),
    address: p.string().length(300),
    country: p.string().length(2),
    submittedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IKycPersonalData = InferEntity<typeof KycPersonalData>;
