/**
 * Clients, the token signing keys and revoked sessions. MikroORM for loading and creating
 * clients; hand-written SQL where a statement must be safe when processes race (ON CONFLICT DO
 * NOTHING on first boot), where one statement must decide (a secret rotation, a revocation), and
 * for what every web process reads on its own (keys and revocations, below).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTimestampSql, type Db } from '../db/sql.js';
import { newId } from '../ids.js';
import { Client, type IClient } from './client.entity.js';
import type { IIntegrator } from '../integrators/integrator.entity.js';
import { joinIntegratorSql } from '../integrators/integrator.repository.js';

/**
 * Makes the first signing key, with this id and `secret`, when there is none at all (the very
 * first boot; whoever boots first wins). Once keys have been rotated the first one may be gone:
 * it is not made again.
 */
export async function ensureFirstSigningKey(db: Db, id: string, secret: string): Promise<void> {
  await db.execute(
    'insert into signing_key (id, secret) select ?, ? where not exists (select 1 from signing_key) on conflict (id) do nothing',
    [id, secret],
  );
}

/**
 * The signing keys that may still verify a live token, oldest first (the last one signs): the
 * newest, and every older one replaced less than `memorySeconds` ago.
 */
export function liveSigningKeys(db: Db, memorySeconds: number): Promise<Array<{ id: string; secret: string }>> {
  return db.execute(
    `select id, secret from (
       select id, secret, created_at, lead(created_at) over (order by created_at, id) as replaced_at from signing_key
     ) k where replaced_at is null or replaced_at > now() - make_interval(secs => ?) order by created_at, id`,
    [memorySeconds],
  );
}

/** Adds a signing key, newer than every other (it signs from now on). */
export async function insertSigningKey(db: Db, id: string, secret: string): Promise<void> {
  // Later than every other key even if the database's clock went back: the newest signs.
  await db.execute(
    `insert into signing_key (id, secret, created_at)
     values (?, ?, greatest(clock_timestamp(), (select max(created_at) + interval '1 millisecond' from signing_key)))`,
    [id, secret],
  );
}

/** Deletes the signing keys replaced `memorySeconds` ago or earlier (no live token is theirs); their ids. */
export async function dropDeadSigningKeys(db: Db, memorySeconds: number): Promise<string[]> {
  const rows = await db.execute<Array<{ id: string }>>(
    `delete from signing_key where id in (
       select id from (
         select id, lead(created_at) over (order by created_at, id) as replaced_at from signing_key
       ) k where replaced_at <= now() - make_interval(secs => ?)
     ) returning id`,
    [memorySeconds],
  );
  return rows.map((r) => r.id);
}

/** Deletes every signing key but `keepId` (a leaked key retired at once); their ids. */
export async function dropSigningKeysExcept(db: Db, keepId: string): Promise<string[]> {
  const rows = await db.execute<Array<{ id: string }>>('delete from signing_key where id <> ? returning id', [keepId]);
  return rows.map((r) => r.id);
}

/** Adds a client (flushed in the caller's unit of work). */
export async function insertClient(
  em: EntityManager,
  input: { integrator: IIntegrator; secretHash: string; scopes: string[]; isOperator: boolean; canUnblock: boolean; tosSigning: boolean },
): Promise<IClient> {
  const client = em.create(Client, { id: newId('cli'), ...input, createdAt: new Date() });
  await em.flush();
  return client;
}

/**
 * Revokes a client (once). Its sessions need nothing here: a session's refresh tokens and links
 * are refused while its client is revoked. The revocation time, or null when there is no such
 * client; `already` when it was revoked before.
 */
export async function revokeClientRow(
  db: Db,
  clientId: string,
): Promise<{ revokedAt: Date; already: boolean; integratorId: string } | null> {
  const [row] = await db.execute<Array<{ revoked_at: Date; already: boolean; integrator_id: string }>>(
    `with target as (select id, integrator_id, revoked_at from client where id = ? for update),
          revoked as (update client c set revoked_at = now() from target t where c.id = t.id and t.revoked_at is null returning c.revoked_at)
     select coalesce((select revoked_at from revoked), t.revoked_at) as revoked_at, t.revoked_at is not null as already, t.integrator_id
       from target t`,
    [clientId],
  );
  return row ? { revokedAt: new Date(row.revoked_at), already: row.already, integratorId: row.integrator_id } : null;
}

/**
 * Gives a client a new secret (its hash); the current one keeps authenticating for
 * `graceSeconds` (a secret rotated out before is forgotten). `missing` or `revoked` when it cannot.
 */
export async function rotateClientSecretRow(
  db: Db,
  clientId: string,
  secretHash: string,
  graceSeconds: number,
): Promise<{ previousExpiresAt: Date; integratorId: string } | 'missing' | 'revoked'> {
  const [row] = await db.execute<Array<{ revoked: boolean; previous_expires_at: Date | null; integrator_id: string }>>(
    `with target as (select id, integrator_id, revoked_at from client where id = ? for update),
          rotated as (update client c
                         set previous_secret_hash = c.secret_hash,
                             previous_secret_expires_at = now() + make_interval(secs => ?),
                             secret_hash = ?
                        from target t where c.id = t.id and t.revoked_at is null
                      returning c.previous_secret_expires_at)
     select t.revoked_at is not null as revoked, (select previous_secret_expires_at from rotated) as previous_expires_at, t.integrator_id
       from target t`,
    [clientId, graceSeconds, secretHash],
  );
  if (!row) return 'missing';
  if (row.revoked) return 'revoked';
  return { previousExpiresAt: new Date(row.previous_expires_at!), integratorId: row.integrator_id };
}

/** Whether the client is revoked (an unknown one counts as revoked). */
export async function clientRevoked(db: Db, clientId: string): Promise<boolean> {
  const [row] = await db.execute<unknown[]>('select 1 from client where id = ? and revoked_at is null', [clientId]);
  return row === undefined;
}

/**
 * What every web process must refuse: the revoked clients, and the sessions revoked less than
 * `memorySeconds` ago (older ones have no live token).
 */
export async function currentRevocations(db: Db, memorySeconds: number): Promise<{ clients: string[]; sessions: string[] }> {
  const rows = await db.execute<Array<{ kind: 'client' | 'session'; id: string }>>(
    `select 'client' as kind, id from client where revoked_at is not null
     union all
     select 'session', sid from revoked_session where revoked_at > now() - make_interval(secs => ?)`,
    [memorySeconds],
  );
  return {
    clients: rows.filter((r) => r.kind === 'client').map((r) => r.id),
    sessions: rows.filter((r) => r.kind === 'session').map((r) => r.id),
  };
}

/**
 * Remembers a revoked session (its access tokens are refused), and forgets those revoked longer
 * ago than `memorySeconds` (no token of theirs is still alive).
 */
export async function insertRevokedSession(db: Db, sid: string, accountId: string, memorySeconds: number): Promise<void> {
  await db.execute(
    `with forgotten as (delete from revoked_session where revoked_at < now() - make_interval(secs => ?))
     insert into revoked_session (sid, account_id) values (?, ?) on conflict (sid) do nothing`,
    [memorySeconds, sid, accountId],
  );
}

/** Whether a token of this client (and session, for a user password token) is revoked, read from PostgreSQL. */
export async function tokenRevoked(db: Db, clientId: string, sid: string | null): Promise<boolean> {
  const [row] = await db.execute<Array<{ revoked: boolean }>>(
    `select exists (select 1 from client where id = ? and revoked_at is not null)
            or exists (select 1 from revoked_session where sid = ?) as revoked`,
    [clientId, sid],
  );
  return row.revoked;
}

/** The client with this id, if any (with its integrator loaded when asked). */
export function findClientById(em: EntityManager, id: string, withIntegrator = false): Promise<IClient | null> {
  return withIntegrator ? em.findOne(Client, { id }, { populate: ['integrator'] }) : em.findOne(Client, { id });
}

/**
 * The scopes of the client with this id, or undefined when there is no such client: the most a
 * user password token opened by that client may hold, read at every mint and refresh.
 */
export async function selectClientScopes(db: Db, id: string): Promise<string[] | undefined> {
  const [row] = await db.execute<Array<{ scopes: string[] }>>('select scopes from client where id = ?', [id]);
  return row?.scopes;
}

/**
 * Every client, oldest first, or those of one integrator (`holdfast client list`). The columns
 * are named one by one: no secret hash may ever leave this statement.
 */
export function selectClients(
  db: Db,
  integratorId?: string,
): Promise<
  Array<{
    id: string;
    integrator_id: string;
    integrator: string;
    scopes: string[];
    is_operator: boolean;
    can_unblock: boolean;
    tos_signing: boolean;
    created_at: string;
    revoked_at: string | null;
  }>
> {
  return db.execute(
    `select c.id, c.integrator_id, i.name as integrator, c.scopes, c.is_operator, c.can_unblock, c.tos_signing,
            ${isoTimestampSql('c.created_at')} as created_at, ${isoTimestampSql('c.revoked_at')} as revoked_at
       from client c ${joinIntegratorSql('i', 'c.integrator_id')}
      where ?::text is null or c.integrator_id = ?
      order by c.created_at, c.id`,
    [integratorId ?? null, integratorId ?? null],
  );
}
