/** ToS versions and signatures: MikroORM throughout, but for one statement that says why. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/sql.js';
import { TosSignature, TosVersion, type ITosVersion } from './tos.entity.js';

/** The highest version (a migration seeds the first). */
export async function currentVersion(em: EntityManager): Promise<ITosVersion> {
  const [current] = await em.find(TosVersion, {}, { orderBy: { version: 'desc' }, limit: 1 });
  if (!current) throw new Error('no ToS version exists (the foundation migration seeds one)');
  return current;
}

/** Whether the account signed this version. */
export async function hasSigned(em: EntityManager, accountId: string, version: number): Promise<boolean> {
  return (await em.findOne(TosSignature, { accountId, version })) !== null;
}

/** Records the signature; signing twice is a no-op. */
export async function insertSignature(em: EntityManager, accountId: string, version: number): Promise<void> {
  // ON CONFLICT DO NOTHING: concurrent signatures of one account must both succeed.
  await db(em).execute('insert into tos_signature (account_id, version) values (?, ?) on conflict do nothing', [accountId, version]);
}

/** Removes the signature, if any. */
export async function deleteSignature(em: EntityManager, accountId: string, version: number): Promise<void> {
  await em.nativeDelete(TosSignature, { accountId, version });
}

/** Adds a version; it becomes the current one. */
export async function insertVersion(em: EntityManager, content: string): Promise<ITosVersion> {
  const tos = em.create(TosVersion, { content, createdAt: new Date() });
  await em.flush();
  return tos;
}
