/** KYC checks and the personal data behind them (plain SQL; the data table is read by nothing that answers a request). */
import { isoTimestampSql, type Db } from '../db/sql.js';
import type { VerifierOutcome } from '../rails/identity-verifier.port.js';
import type { KycDecider, KycState, PersonalData } from './kyc.rules.js';

export interface KycCheckRow {
  accountId: string;
  integratorId: string;
  kycId: string;
  state: KycState;
  decidedBy: KycDecider | null;
  /** The verifier's session of the latest submission (a session-based adapter), if any. */
  verifierSessionId: string | null;
  /** The submissions the check took so far. */
  submissions: number;
}

const COLUMNS =
  'account_id as "accountId", integrator_id as "integratorId", kyc_id as "kycId", state, decided_by as "decidedBy", verifier_session_id as "verifierSessionId", submissions';

/** The account's check, if it has one. */
export async function findKycCheck(db: Db, accountId: string): Promise<KycCheckRow | undefined> {
  const [row] = await db.execute<KycCheckRow[]>(`select ${COLUMNS} from kyc_check where account_id = ?`, [accountId]);
  return row;
}

/** The integrator's checks in MANUAL_REVIEW, oldest first: the console's KYC review queue. */
export async function checksInReview(db: Db, integratorId: string, limit: number): Promise<KycCheckRow[]> {
  return db.execute<KycCheckRow[]>(
    `select ${COLUMNS} from kyc_check where integrator_id = ? and state = 'MANUAL_REVIEW' order by updated_at, kyc_id limit ?`,
    [integratorId, limit],
  );
}

/** The check of a kyc id, if there is one. */
export async function findKycCheckById(db: Db, kycId: string): Promise<KycCheckRow | undefined> {
  const [row] = await db.execute<KycCheckRow[]>(`select ${COLUMNS} from kyc_check where kyc_id = ?`, [kycId]);
  return row;
}

/** The account's check, locked (`for update`) — made first, in NODATA, when it has none. */
export async function lockKycCheck(db: Db, check: { accountId: string; integratorId: string; kycId: string }): Promise<KycCheckRow> {
  await db.execute(
    `insert into kyc_check (account_id, integrator_id, kyc_id, state) values (?, ?, ?, 'NODATA') on conflict (account_id) do nothing`,
    [check.accountId, check.integratorId, check.kycId],
  );
  const [row] = await db.execute<KycCheckRow[]>(`select ${COLUMNS} from kyc_check where account_id = ? for update`, [check.accountId]);
  return row!;
}

/**
 * Sets a check's state and who decided it. `verifierSessionId`: the session a submission
 * started (null: none); left as it is when not given (a decision on the same submission).
 */
export async function setKycState(
  db: Db,
  accountId: string,
  change: { state: KycState; decidedBy: KycDecider; verifierSessionId?: string | null },
): Promise<void> {
  if (change.verifierSessionId === undefined) {
    await db.execute('update kyc_check set state = ?, decided_by = ?, updated_at = now() where account_id = ?', [
      change.state,
      change.decidedBy,
      accountId,
    ]);
    return;
  }
  await db.execute(
    `update kyc_check set state = ?, decided_by = ?, verifier_session_id = ?, verifier_outcome = null, verifier_error = null,
       updated_at = now() where account_id = ?`,
    [change.state, change.decidedBy, change.verifierSessionId, accountId],
  );
}

/** Records the latest outcome a verifier reported for the check's session (its `last_error` code, if any). */
export async function recordVerifierOutcome(db: Db, accountId: string, outcome: VerifierOutcome, errorCode: string | null): Promise<void> {
  await db.execute('update kyc_check set verifier_outcome = ?, verifier_error = ? where account_id = ?', [outcome, errorCode, accountId]);
}

/**
 * An operator's reopen: the check goes back to NODATA with the reason and its time kept, and
 * forgets its verifier session (a late outcome of it no longer names the check's session).
 */
export async function reopenKycCheck(db: Db, accountId: string, reason: string): Promise<{ reopenedAt: string }> {
  const [row] = await db.execute<Array<{ reopenedAt: string }>>(
    `update kyc_check set state = 'NODATA', decided_by = 'operator', verifier_session_id = null, verifier_outcome = null,
       verifier_error = null, reopen_reason = ?, reopened_at = now(), updated_at = now() where account_id = ?
     returning ${isoTimestampSql('reopened_at')} as "reopenedAt"`,
    [reason, accountId],
  );
  return row!;
}

/** Counts a submission the check took (in the transaction that takes it). */
export async function countSubmission(db: Db, accountId: string): Promise<void> {
  await db.execute('update kyc_check set submissions = submissions + 1 where account_id = ?', [accountId]);
}

/**
 * Makes the account's check, in NODATA, if it has none, at once (not in the caller's
 * transaction): its kyc id then stays the same when a submission fails and is retried.
 */
export async function ensureKycCheck(db: Db, check: { accountId: string; integratorId: string; kycId: string }): Promise<void> {
  await db.execute(
    `insert into kyc_check (account_id, integrator_id, kyc_id, state) values (?, ?, ?, 'NODATA') on conflict (account_id) do nothing`,
    [check.accountId, check.integratorId, check.kycId],
  );
}

/** Stores (or replaces, on a new submission) the personal data of a check. */
export async function savePersonalData(db: Db, kycId: string, data: PersonalData): Promise<void> {
  await db.execute(
    `insert into kyc_personal_data (kyc_id, first_name, last_name, date_of_birth, address, country) values (?, ?, ?, ?, ?, ?)
     on conflict (kyc_id) do update set first_name = excluded.first_name, last_name = excluded.last_name,
       date_of_birth = excluded.date_of_birth, address = excluded.address, country = excluded.country, submitted_at = now()`,
    [kycId, data.first_name, data.last_name, data.date_of_birth, data.address, data.country],
  );
}

/** Erases the personal data of an account's check (the check keeps its state); whether there was any. */
export async function erasePersonalData(db: Db, accountId: string): Promise<boolean> {
  const rows = await db.execute<unknown[]>(
    'delete from kyc_personal_data where kyc_id = (select kyc_id from kyc_check where account_id = ?) returning kyc_id',
    [accountId],
  );
  return rows.length > 0;
}
