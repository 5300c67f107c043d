import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125000000Foundation } from './Migration20261125000000Foundation.js';
import { Migration20261126000000Ledger } from './Migration20261126000000Ledger.js';
import { Migration20261126010000Escrow } from './Migration20261126010000Escrow.js';
import { Migration20261126020000Commands } from './Migration20261126020000Commands.js';
import { Migration20261126030000DeferredBalances } from './Migration20261126030000DeferredBalances.js';
import { Migration20261126040000Blocks } from './Migration20261126040000Blocks.js';
import { Migration20261126050000Webhooks } from './Migration20261126050000Webhooks.js';
import { Migration20261126060000BalancesPerStatement } from './Migration20261126060000BalancesPerStatement.js';
import { Migration20261126070000PostingsBalancedPerStatement } from './Migration20261126070000PostingsBalancedPerStatement.js';
import { Migration20261126080000InvoiceAuthorization } from './Migration20261126080000InvoiceAuthorization.js';
import { Migration20261126090000InvoiceHistory } from './Migration20261126090000InvoiceHistory.js';
import { Migration20261126100000IdempotentSecrets } from './Migration20261126100000IdempotentSecrets.js';
import { Migration20261126110000CredentialLifecycle } from './Migration20261126110000CredentialLifecycle.js';
import { Migration20261126120000SessionScopes } from './Migration20261126120000SessionScopes.js';
import { Migration20261126210555EventLookups } from './Migration20261126210555EventLookups.js';
import { Migration20261126210600Reconciliation } from './Migration20261126210600Reconciliation.js';
import { Migration20261126213500SandboxClock } from './Migration20261126213500SandboxClock.js';
import { Migration20261126220355Refunds } from './Migration20261126220355Refunds.js';
import { Migration20261126233000LineItemRefunds } from './Migration20261126233000LineItemRefunds.js';
import { Migration20261126220400SandboxFunding } from './Migration20261126220400SandboxFunding.js';

/** Every checked-in migration, oldest first; listed statically so tsx and dist/ load the same set. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261125000000Foundation', class: Migration20261125000000Foundation },
  { name: 'Migration20261126000000Ledger', class: Migration20261126000000Ledger },
  { name: 'Migration20261126010000Escrow', class: Migration20261126010000Escrow },
  { name: 'Migration20261126020000Commands', class: Migration20261126020000Commands },
  { name: 'Migration20261126030000DeferredBalances', class: Migration20261126030000DeferredBalances },
  { name: 'Migration20261126040000Blocks', class: Migration20261126040000Blocks },
  { name: 'Migration20261126050000Webhooks', class: Migration20261126050000Webhooks },
  { name: 'Migration20261126060000BalancesPerStatement', class: Migration20261126060000BalancesPerStatement },
  { name: 'Migration20261126070000PostingsBalancedPerStatement', class: Migration20261126070000PostingsBalancedPerStatement },
  { name: 'Migration20261126080000InvoiceAuthorization', class: Migration20261126080000InvoiceAuthorization },
  { name: 'Migration20261126090000InvoiceHistory', class: Migration20261126090000InvoiceHistory },
  { name: 'Migration20261126100000IdempotentSecrets', class: Migration20261126100000IdempotentSecrets },
  { name: 'Migration20261126110000CredentialLifecycle', class: Migration20261126110000CredentialLifecycle },
  { name: 'Migration20261126120000SessionScopes', class: Migration20261126120000SessionScopes },
  { name: 'Migration20261126210555EventLookups', class: Migration20261126210555EventLookups },
  { name: 'Migration20261126210600Reconciliation', class: Migration20261126210600Reconciliation },
  { name: 'Migration20261126213500SandboxClock', class: Migration20261126213500SandboxClock },
  { name: 'Migration20261126220355Refunds', class: Migration20261126220355Refunds },
  { name: 'Migration20261126220400SandboxFunding', class: Migration20261126220400SandboxFunding },
  { name: 'Migration20261126233000LineItemRefunds', class: Migration20261126233000LineItemRefunds },
];
