/**
 * Integrators: MikroORM for loading and creating them; hand-written SQL where a statement must
 * be safe when processes race (ON CONFLICT on a client's missing integrator or its token
 * currency), for settings operators change while processes run, and for the integrator join
 * other modules' one-statement reads take.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { emDb, isoTimestampSql, type Db } from '../db/sql.js';
import { newId } from '../ids.js';
import { Integrator, type IIntegrator } from './integrator.entity.js';
import type { IntegratorSettings } from './integrator.rules.js';

/** Fragment: `join integrator <alias> on <alias>.id = <integratorId>`; the name is then `<alias>.name`. */
export function joinIntegratorSql(alias: string, integratorIdExpression: string): string {
  return `join integrator ${alias} on ${alias}.id = ${integratorIdExpression}`;
}

/** The integrator with this id (it must exist). */
export function getIntegrator(em: EntityManager, id: string): Promise<IIntegrator> {
  return em.findOneOrFail(Integrator, { id });
}

/** The integrator with this id, read in `db` (a caller's transaction, or the pool), if any. */
export async function integratorById(
  db: Db,
  id: string,
): Promise<{ id: string; name: string; tokenCurrency: string | null; tokensPerUsd: number | null } | undefined> {
  const [row] = await db.execute<Array<{ id: string; name: string; token_currency: string | null; tokens_per_usd: string | null }>>(
    'select id, name, token_currency, tokens_per_usd from integrator where id = ?',
    [id],
  );
  return (
    row && {
      id: row.id,
      name: row.name,
      tokenCurrency: row.token_currency,
      tokensPerUsd: row.tokens_per_usd === null ? null : Number(row.tokens_per_usd),
    }
  );
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
  const [row] = await db.execute<
    Array<{ payout_auto_approve_max: string; payout_open_limit: number; conversion_fee_bps: number; dispute_fee: string }>
  >('select payout_auto_approve_max, payout_open_limit, conversion_fee_bps, dispute_fee from integrator where id = ?', [integratorId]);
  if (!row) throw new Error(`integrator ${integratorId} does not exist`);
  return {
    payoutAutoApproveMax: Number(row.payout_auto_approve_max),
    payoutOpenLimit: row.payout_open_limit,
    conversionFeeBps: row.conversion_fee_bps,
    disputeFee: Number(row.dispute_fee),
  };
}

/** Sets some of an integrator's payout and conversion settings. */
export async function setIntegratorSettings(db: Db, integratorId: string, settings: Partial<IntegratorSettings>): Promise<void> {
  await db.execute(
    `update integrator set payout_auto_approve_max = coalesce(?, payout_auto_approve_max),
                           payout_open_limit = coalesce(?, payout_open_limit),
                           conversion_fee_bps = coalesce(?, conversion_fee_bps),
                           dispute_fee = coalesce(?, dispute_fee)
      where id = ?`,
    [
      settings.payoutAutoApproveMax ?? null,
      settings.payoutOpenLimit ?? null,
      settings.conversionFeeBps ?? null,
      settings.disputeFee ?? null,
      integratorId,
    ],
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
