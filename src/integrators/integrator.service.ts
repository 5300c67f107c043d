/**
 * The tenant kernel: integrators (the publishers every tenant-owned row points at), their names,
 * token currencies and payout and conversion settings.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { db as pooled, emDb, type Db } from '../db/sql.js';
import type { IIntegrator } from './integrator.entity.js';
import {
  ensureIntegratorNamed,
  ensureIntegratorTokens,
  findIntegratorByIdOrName,
  findIntegratorByName,
  getIntegrator,
  insertIntegrator,
  integratorById,
  selectIntegrators,
  integratorSettingsOf,
  setIntegratorSettings,
} from './integrator.repository.js';
import type { IntegratorSettings } from './integrator.rules.js';

export interface IntegratorProfile {
  id: string;
  name: string;
  tokenCurrency: string | null;
  tokensPerUsd: number | null;
}

/** Integrators never change once made (there is no way to): each process remembers them. */
const integrators = new Map<string, IntegratorProfile>();

function profileOf(row: IIntegrator): IntegratorProfile {
  return { id: row.id, name: row.name, tokenCurrency: row.tokenCurrency ?? null, tokensPerUsd: row.tokensPerUsd ?? null };
}

/**
 * The integrator's name and token currency; it must exist. Read in `target` (a caller's
 * transaction, so a command holds one connection; an EntityManager reads on the pool).
 */
export async function integratorProfile(target: Db | EntityManager, integratorId: string): Promise<IntegratorProfile> {
  const known = integrators.get(integratorId);
  if (known) return known;
  const profile = await integratorById('getConnection' in target ? pooled(target) : target, integratorId);
  if (!profile) throw new Error(`integrator ${integratorId} does not exist`);
  integrators.set(integratorId, profile);
  return profile;
}

/** The integrator with this id or name (an id wins), or null. */
export async function findIntegrator(em: EntityManager, idOrName: string): Promise<IntegratorProfile | null> {
  const row = await findIntegratorByIdOrName(em, idOrName);
  return row && profileOf(row);
}

/** The integrator (its entity, for a unit of work that references it); it must exist. */
export function loadIntegrator(em: EntityManager, integratorId: string): Promise<IIntegrator> {
  return getIntegrator(em, integratorId);
}

/**
 * The integrator with this name (its entity), made with no token currency when missing; safe
 * when two requests race. `created`: this call made it.
 */
export function ensureIntegrator(em: EntityManager, name: string): Promise<{ integrator: IIntegrator; created: boolean }> {
  return ensureIntegratorNamed(em, name);
}

/** Creates an integrator; a taken name is a conflict. */
export async function createIntegrator(
  em: EntityManager,
  input: { name: string; tokenCurrency?: string; tokensPerUsd?: number; settings?: Partial<IntegratorSettings> },
): Promise<IIntegrator & IntegratorSettings> {
  if (await findIntegratorByName(em, input.name)) {
    throw new AppError('conflict', `An integrator named "${input.name}" already exists.`, { codes: ['INTEGRATOR_EXISTS'] });
  }
  const integrator = await insertIntegrator(em, {
    name: input.name,
    tokenCurrency: input.tokenCurrency ?? null,
    tokensPerUsd: input.tokensPerUsd ?? null,
  });
  if (input.settings) await setIntegratorSettings(emDb(em), integrator.id, input.settings);
  return { ...integrator, ...(await integratorSettingsOf(emDb(em), integrator.id)) };
}

/** An integrator's payout and conversion settings, read fresh. */
export function integratorSettings(db: Db, integratorId: string): Promise<IntegratorSettings> {
  return integratorSettingsOf(db, integratorId);
}

/** `holdfast integrator update`: changes some of an integrator's settings; the integrator with all of them. */
export async function updateIntegrator(em: EntityManager, idOrName: string, settings: Partial<IntegratorSettings>) {
  const integrator = await findIntegratorByIdOrName(em, idOrName);
  if (!integrator) throw AppError.notFound('INTEGRATOR_NOT_FOUND', `No integrator ${idOrName}.`);
  await setIntegratorSettings(emDb(em), integrator.id, settings);
  return { id: integrator.id, name: integrator.name, ...(await integratorSettingsOf(emDb(em), integrator.id)) };
}

/** Makes the named integrator with this token currency, or gives it one when it has none. */
export function ensureIntegratorTokenCurrency(em: EntityManager, name: string, tokenCurrency: string, tokensPerUsd: number): Promise<void> {
  return ensureIntegratorTokens(em, name, tokenCurrency, tokensPerUsd);
}

/** An integrator as `holdfast integrator list` shows it. */
export interface IntegratorListing {
  id: string;
  name: string;
  token_currency: string | null;
  tokens_per_usd: number | null;
  created_at: string;
}

/** Every integrator, oldest first. */
export async function listIntegrators(em: EntityManager): Promise<IntegratorListing[]> {
  return (await selectIntegrators(pooled(em))).map((row) => ({
    id: row.id,
    name: row.name,
    token_currency: row.token_currency,
    tokens_per_usd: row.tokens_per_usd === null ? null : Number(row.tokens_per_usd),
    created_at: row.created_at,
  }));
}
