/** KYC checks and the personal data behind them (plain SQL; the data table is read by nothing that answers a request). */
import type { Db } from '../db/sql.js';
import type { KycState, PersonalData } from './kyc.rules.js';

export interface KycCheckRow {
  accountId: string;
  integratorId: string;
  kycId: string;
  state: KycState;
}

const COLUMNS = 'account_id as "accountId", integrator_id as "integratorId", kyc_id as "kycId", state';

/** The account's check, if it has one. */
export async function findKycCheck(db: Db, accountId: string): Promise<KycCheckRow | undefined> {
  const [row] = await db.execute<KycCheckRow[]>(`select ${COLUMNS} from kyc_check where account_id = ?`, [accountId]);
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

/** Sets a check's state. */
export async function setKycState(db: Db, accountId: string, state: KycState): Promise<void> {
  await db.execute('update kyc_check set state = ?, updated_at = now() where account_id = ?', [state, accountId]);
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
