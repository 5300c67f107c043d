/**
 * The demo client `npm start` prints in staging: created once, its credentials kept in
 * `.data/demo-client.json` (secrets are stored hashed, so the file is the only copy).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ALL_SCOPES } from '../auth/auth.rules.js';
import { authenticateClient, createClient } from '../auth/auth.service.js';
import { ensureIntegratorTokenCurrency } from '../integrators/integrator.service.js';

export interface DemoClient {
  client_id: string;
  client_secret: string;
  integrator: string;
  scopes: string[];
}

export async function ensureDemoClient(em: EntityManager, dataRoot = path.resolve('.data')): Promise<DemoClient> {
  const file = path.join(dataRoot, 'demo-client.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoClient;
    // Kept while its credentials still work (not revoked, its secret not rotated out) and it
    // holds every scope; one made by an earlier version without a newer scope is replaced.
    const client = await authenticateClient(em, saved.client_id, saved.client_secret).catch(() => null);
    if (client && ALL_SCOPES.every((scope) => client.scopes.includes(scope))) return saved;
  }
  // The demo integrator has a token currency, so the walk-throughs can buy and merge tokens
  // (one made by an earlier version without it gets it; its older accounts have no GEM wallets).
  await ensureIntegratorTokenCurrency(em, 'demo', 'GEM', 100);
  const created = await createClient(em, {
    integrator: 'demo',
    scopes: [...ALL_SCOPES],
    canUnblock: true,
    tosSigning: true,
  });
  mkdirSync(dataRoot, { recursive: true });
  writeFileSync(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600 });
  return created;
}
