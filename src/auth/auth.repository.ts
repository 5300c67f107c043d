/**
 * Integrators, clients and the token signing keys. MikroORM for loading and creating them;
 * hand-written SQL where a statement must be safe when processes race (ON CONFLICT DO NOTHING
 * on first boot and on a client's missing integrator), where one statement must decide (a
 * secret rotation, a revocation), for what every web process reads on its own (keys and
 * revocations, below), and for the integrator join other modules' one-statement reads take.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { emDb, isoTimestampSql, type Db } from '../db/sql.js';
import { newId } from '../ids.js';
import { Client, type IClient } from './client.entity.js';
import { Integrator, type IIntegrator } from './integrator.entity.js';
import type { IntegratorSettings } from './auth.rules.js';

/** Fragment: `join integrator <alias> on <alias>.id = <integratorId>`; the name is then `<alias>.name`. */
export function joinIntegratorSql(alias: string, integratorIdExpression: string): string {
  return `join integrator ${alias} on ${alias}.id = ${integratorIdExpression}`;
}

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

/** The integrator with this id (it must exist). */
export function getIntegrator(em: EntityManager, id: string): Promise<IIntegrator> {
  return em.findOneOrFail(Integrator, { id });
}

/** The integrator with this name, if any. */
export function findIntegratorByName(em: EntityManager, name: string): Promise<IIntegrator | null> {
  return em.findOne(Integrator, { name });
}

/** The integrator with this id or, failing that, this name, if any. */
export async function findIntegratorByIdOrName(em: EntityManager, idOrName: string): Promise<IIntegrator | null> {
  return (await em.findOne(Integrator, { id: idOrName })) ?? findIntegratorByName(em, idOrName);
}

/** Adds an integrator. */
export async function insertIntegrator(
  em: EntityManager,
  input: { name: string; tokenCurrency: string | null; tokensPerUsd: number | null },
): Promise<IIntegrator> {
  const integrator = em.create(Integrator, { id: newId('int'), ...input, createdAt: new Date() });
  await em.flush();
  return integrator;
}

/** An integrator's payout and conversion settings, read fresh (operators change them while processes run). */
export async function integratorSettingsOf(db: Db, integratorId: string): Promise<IntegratorSettings> {
  const [row] = await db.execute<Array<{ payout_auto_approve_max: string; payout_open_limit: number; conversion_fee_bps: number }>>(
    'select payout_auto_approve_max, payout_open_limit, conversion_fee_bps from integrator where id = ?',
    [integratorId],
  );
  if (!row) throw new Error(`integrator ${integratorId} does not exist`);
  return {
    payoutAutoApproveMax: Number(row.payout_auto_approve_max),
    payoutOpenLimit: row.payout_open_limit,
    conversionFeeBps: row.conversion_fee_bps,
  };
}

/** Sets some of an integrator's payout and conversion settings. */
export async function setIntegratorSettings(db: Db, integratorId: string, settings: Partial<IntegratorSettings>): Promise<void> {
  await db.execute(
    `update integrator set payout_auto_approve_max = coalesce(?, payout_auto_approve_max),
                           payout_open_limit = coalesce(?, payout_open_limit),
                           conversion_fee_bps = coalesce(?, conversion_fee_bps)
      where id = ?`,
    [settings.payoutAutoApproveMax ?? null, settings.payoutOpenLimit ?? null, settings.conversionFeeBps ?? null, integratorId],
  );
}

/**
 * The integrator with this name, made (with no token currency) when missing; safe when two
 * requests race. `created`: this call made it (the insert returned its row).
 */
export async function ensureIntegratorNamed(em: EntityManager, name: string): Promise<{ integrator: IIntegrator; created: boolean }> {
  const inserted = await emDb(em).execute<unknown[]>(
    'insert into integrator (id, name) values (?, ?) on conflict (name) do nothing returning id',
    [newId('int'), name],
  );
  return { integrator: await em.findOneOrFail(Integrator, { name }), created: inserted.length > 0 };
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
 * Revokes a client (once): its refresh tokens too. The revocation time, or null when there is no
 * such client; `already` when it was revoked before.
 */
export async function revokeClientRow(db: Db, clientId: string): Promise<{ revokedAt: Date; already: boolean } | null> {
  const [row] = await db.execute<Array<{ revoked_at: Date; already: boolean }>>(
    `with target as (select id, revoked_at from client where id = ? for update),
          revoked as (update client c set revoked_at = now() from target t where c.id = t.id and t.revoked_at is null returning c.revoked_at),
          sessions as (update refresh_token set revoked_at = now()
                        where client_id in (select id from target where revoked_at is null) and revoked_at is null)
     select coalesce((select revoked_at from revoked), t.revoked_at) as revoked_at, t.revoked_at is not null as already from target t`,
    [clientId],
  );
  return row ? { revokedAt: new Date(row.revoked_at), already: row.already } : null;
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
): Promise<{ previousExpiresAt: Date } | 'missing' | 'revoked'> {
  const [row] = await db.execute<Array<{ revoked: boolean; previous_expires_at: Date | null }>>(
    `with target as (select id, revoked_at from client where id = ? for update),
          rotated as (update client c
                         set previous_secret_hash = c.secret_hash,
                             previous_secret_expires_at = now() + make_interval(secs => ?),
                             secret_hash = ?
                        from target t where c.id = t.id and t.revoked_at is null
                      returning c.previous_secret_expires_at)
     select t.revoked_at is not null as revoked, (select previous_secret_expires_at from rotated) as previous_expires_at from target t`,
    [clientId, graceSeconds, secretHash],
  );
  if (!row) return 'missing';
  if (row.revoked) return 'revoked';
  return { previousExpiresAt: new Date(row.previous_expires_at!) };
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

/** Makes the named integrator with this token currency, or gives it one when it has none (safe when processes race). */
export async function ensureIntegratorTokens(em: EntityManager, name: string, tokenCurrency: string, tokensPerUsd: number): Promise<void> {
  await emDb(em).execute(
    `insert into integrator (id, name, token_currency, tokens_per_usd) values (?, ?, ?, ?)
     on conflict (name) do update set token_currency = excluded.token_currency, tokens_per_usd = excluded.tokens_per_usd
       where integrator.token_currency is null`,
    [newId('int'), name, tokenCurrency, tokensPerUsd],
  );
}

/** Every integrator, oldest first (`holdfast integrator list`). */
export function selectIntegrators(
  db: Db,
): Promise<Array<{ id: string; name: string; token_currency: string | null; tokens_per_usd: string | null; created_at: string }>> {
  return db.execute(
    `select i.id, i.name, i.token_currency, i.tokens_per_usd, ${isoTimestampSql('i.created_at')} as created_at
       from integrator i order by i.created_at, i.id`,
  );
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
