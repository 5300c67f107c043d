/**
 * Integrators, clients and the token signing key. MikroORM for loading and creating them;
 * hand-written SQL where a statement must be safe when processes race (ON CONFLICT DO NOTHING
 * on first boot and on a client's missing integrator), and for the integrator join other
 * modules' one-statement reads take (below).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { emDb, type Db } from '../db/sql.js';
import { newId } from '../ids.js';
import { Client, type IClient } from './client.entity.js';
import { Integrator, type IIntegrator } from './integrator.entity.js';
import { SigningKey, type ISigningKey } from './signing-key.entity.js';

/** Fragment: `join integrator <alias> on <alias>.id = <integratorId>`; the name is then `<alias>.name`. */
export function joinIntegratorSql(alias: string, integratorIdExpression: string): string {
  return `join integrator ${alias} on ${alias}.id = ${integratorIdExpression}`;
}

/** The signing key with this id, made with `secret` if it does not exist yet (whoever boots first wins). */
export async function ensureSigningKey(em: EntityManager, id: string, secret: string): Promise<ISigningKey> {
  await emDb(em).execute('insert into signing_key (id, secret) values (?, ?) on conflict (id) do nothing', [id, secret]);
  return em.fork().findOneOrFail(SigningKey, { id });
}

/** The integrator with this id (it must exist). */
export function getIntegrator(em: EntityManager, id: string): Promise<IIntegrator> {
  return em.findOneOrFail(Integrator, { id });
}

/** The integrator with this name, if any. */
export function findIntegratorByName(em: EntityManager, name: string): Promise<IIntegrator | null> {
  return em.findOne(Integrator, { name });
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

/** The integrator with this name, made (with no token currency) when missing; safe when two requests race. */
export async function ensureIntegratorNamed(em: EntityManager, name: string): Promise<IIntegrator> {
  await emDb(em).execute('insert into integrator (id, name) values (?, ?) on conflict (name) do nothing', [newId('int'), name]);
  return em.findOneOrFail(Integrator, { name });
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

/** The client with this id, if any (with its integrator loaded when asked). */
export function findClientById(em: EntityManager, id: string, withIntegrator = false): Promise<IClient | null> {
  return withIntegrator ? em.findOne(Client, { id }, { populate: ['integrator'] }) : em.findOne(Client, { id });
}

/**
 * The scopes of the client with this id, or undefined when there is no such client: what a
 * user password token opened by that client may do, read at every mint and refresh.
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
