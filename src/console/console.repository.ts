/** The only code that names the console's tables (`console_user`, `console_session`). */
import type { Db } from '../db/sql.js';
import type { ConsoleRole } from './console.rules.js';

export interface ConsoleUserRecord {
  id: string;
  integratorId: string;
  email: string;
  role: ConsoleRole;
  operator: boolean;
  passwordHash: string | null;
  failedLogins: number;
  lockedUntil: Date | null;
  totpSecret: string | null;
  totpPending: string | null;
  disabled: boolean;
  createdAt: Date;
}

interface UserRow {
  id: string;
  integrator_id: string;
  email: string;
  role: ConsoleRole;
  operator: boolean;
  password_hash: string | null;
  failed_logins: number;
  locked_until: Date | null;
  totp_secret: string | null;
  totp_pending: string | null;
  disabled: boolean;
  created_at: Date;
}

const USER_COLUMNS =
  'id, integrator_id, email, role, operator, password_hash, failed_logins, locked_until, totp_secret, totp_pending, disabled, created_at';

function userOf(r: UserRow): ConsoleUserRecord {
  return {
    id: r.id,
    integratorId: r.integrator_id,
    email: r.email,
    role: r.role,
    operator: r.operator,
    passwordHash: r.password_hash,
    failedLogins: r.failed_logins,
    lockedUntil: r.locked_until ? new Date(r.locked_until) : null,
    totpSecret: r.totp_secret,
    totpPending: r.totp_pending,
    disabled: r.disabled,
    createdAt: new Date(r.created_at),
  };
}

/** Adds a console user with a set-password link (its SHA-256); undefined when the email is taken. */
export async function insertConsoleUser(
  db: Db,
  u: {
    id: string;
    integratorId: string;
    email: string;
    role: ConsoleRole;
    operator: boolean;
    setupTokenHash: string;
    setupExpiresAt: Date;
  },
): Promise<ConsoleUserRecord | undefined> {
  const [row] = await db.execute<UserRow[]>(
    `insert into console_user (id, integrator_id, email, role, operator, setup_token_hash, setup_expires_at)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict ((lower(email))) do nothing
     returning ${USER_COLUMNS}`,
    [u.id, u.integratorId, u.email, u.role, u.operator, u.setupTokenHash, u.setupExpiresAt],
  );
  return row ? userOf(row) : undefined;
}

/** A console user by email (any case). */
export async function consoleUserByEmail(db: Db, email: string): Promise<ConsoleUserRecord | undefined> {
  const [row] = await db.execute<UserRow[]>(`select ${USER_COLUMNS} from console_user where lower(email) = lower(?)`, [email]);
  return row ? userOf(row) : undefined;
}

/** A console user by id, locked for its login bookkeeping. */
export async function lockConsoleUser(db: Db, userId: string): Promise<ConsoleUserRecord | undefined> {
  const [row] = await db.execute<UserRow[]>(`select ${USER_COLUMNS} from console_user where id = ? for update`, [userId]);
  return row ? userOf(row) : undefined;
}

/** The console users of an integrator, by email. */
export async function consoleUsersOf(db: Db, integratorId: string): Promise<ConsoleUserRecord[]> {
  const rows = await db.execute<UserRow[]>(`select ${USER_COLUMNS} from console_user where integrator_id = ? order by lower(email)`, [
    integratorId,
  ]);
  return rows.map(userOf);
}

/** The user whose set-password link this is, while the link works (locked). */
export async function lockUserBySetupToken(db: Db, tokenHash: string): Promise<ConsoleUserRecord | undefined> {
  const [row] = await db.execute<UserRow[]>(
    `select ${USER_COLUMNS} from console_user where setup_token_hash = ? and setup_expires_at > now() and not disabled for update`,
    [tokenHash],
  );
  return row ? userOf(row) : undefined;
}

/** Sets the password and spends the set-password link; ends every session of the user. */
export async function setPasswordHash(db: Db, userId: string, hash: string): Promise<void> {
  await db.execute(
    `update console_user set password_hash = ?, setup_token_hash = null, setup_expires_at = null, failed_logins = 0,
            locked_until = null, updated_at = now() where id = ?`,
    [hash, userId],
  );
  await db.execute('delete from console_session where user_id = ?', [userId]);
}

/** Records a failed login: the count, and a lockout when it reached the limit. */
export async function recordFailedLogin(db: Db, userId: string, failures: number, lockedUntil: Date | null): Promise<void> {
  await db.execute('update console_user set failed_logins = ?, locked_until = ?, updated_at = now() where id = ?', [
    failures,
    lockedUntil,
    userId,
  ]);
}

/** A good login clears the failures. */
export async function clearFailedLogins(db: Db, userId: string): Promise<void> {
  await db.execute(
    'update console_user set failed_logins = 0, locked_until = null where id = ? and (failed_logins > 0 or locked_until is not null)',
    [userId],
  );
}

/** Keeps a second factor's secret until its first code confirms it (`pending`), or makes it the one (`confirmed`). */
export async function setTotp(db: Db, userId: string, secret: string, state: 'pending' | 'confirmed'): Promise<void> {
  await db.execute(
    state === 'pending'
      ? 'update console_user set totp_pending = ?, updated_at = now() where id = ?'
      : 'update console_user set totp_secret = ?, totp_pending = null, updated_at = now() where id = ?',
    [secret, userId],
  );
}

export interface ConsoleSessionRecord {
  user: ConsoleUserRecord;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
}

/** Starts a session (`idHash`: the SHA-256 of the cookie's value). */
export async function insertConsoleSession(db: Db, idHash: string, userId: string, csrfToken: string): Promise<void> {
  await db.execute('insert into console_session (id, user_id, csrf_token) values (?, ?, ?)', [idHash, userId, csrfToken]);
}

/** A session with its user, and the database's clock. */
export async function consoleSessionById(db: Db, idHash: string): Promise<{ session: ConsoleSessionRecord; now: Date } | undefined> {
  const [row] = await db.execute<Array<UserRow & { csrf_token: string; s_created_at: Date; last_seen_at: Date; now: Date }>>(
    `select ${USER_COLUMNS.split(', ')
      .map((c) => `u.${c}`)
      .join(', ')}, s.csrf_token, s.created_at as s_created_at, s.last_seen_at, now() as now
       from console_session s join console_user u on u.id = s.user_id where s.id = ?`,
    [idHash],
  );
  if (!row) return undefined;
  return {
    session: {
      user: userOf(row),
      csrfToken: row.csrf_token,
      createdAt: new Date(row.s_created_at),
      lastSeenAt: new Date(row.last_seen_at),
    },
    now: new Date(row.now),
  };
}

/** Marks a session used now (at most once a minute: a page view does not write each time). */
export async function touchConsoleSession(db: Db, idHash: string): Promise<void> {
  await db.execute(`update console_session set last_seen_at = now() where id = ? and last_seen_at < now() - interval '1 minute'`, [idHash]);
}

/** Ends a session. */
export async function deleteConsoleSession(db: Db, idHash: string): Promise<void> {
  await db.execute('delete from console_session where id = ?', [idHash]);
}
