import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Integrator } from '../src/integrators/integrator.entity.js';
import { Client } from '../src/auth/client.entity.js';
import { SigningKey } from '../src/auth/signing-key.entity.js';
import { RefreshToken, UserSessionNonce } from '../src/sessions/user-session.entity.js';
import { RevokedSession } from '../src/auth/revoked-session.entity.js';
import { Account, ExternalPlatformLink } from '../src/accounts/account.entity.js';
import { PaymentMethod } from '../src/payment-methods/payment-method.entity.js';
import { TosVersion, TosSignature } from '../src/tos/tos.entity.js';
import { OutboxEvent } from '../src/webhooks/outbox.entity.js';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../src/webhooks/webhook.entity.js';
import { IdempotencyKey } from '../src/idempotency/idempotency-key.entity.js';
import { LedgerAccount, LedgerEntry, LedgerPosting } from '../src/ledger/ledger.entity.js';
import { Invoice } from '../src/invoices/invoice.entity.js';
import { Escrow } from '../src/escrow/escrow.entity.js';
import { Command } from '../src/commands/command.entity.js';
import { AccountBlock, AccountTag } from '../src/accounts/account-block.entity.js';
import { KycCheck, KycPersonalData } from '../src/kyc/kyc.entity.js';
import { Payout } from '../src/payouts/payout.entity.js';
import { SandboxClock } from '../src/sandbox/sandbox-clock.entity.js';
import { TokenExchange } from '../src/tokens/conversion.entity.js';
import { Environment } from '../src/environment/environment.entity.js';
import { ProviderObject } from '../src/rails/provider-object.entity.js';
import { ProviderEvent } from '../src/provider-events/provider-event.entity.js';
import { Dispute, DisputeHoldRow } from '../src/disputes/dispute.entity.js';
import { ConsoleSession, ConsoleUser } from '../src/console/console.entity.js';
import { AuditChain, AuditRecord } from '../src/audit/audit.entity.js';
import { migrations } from '../src/migrations/index.js';

export const entities = [
  Integrator,
  Client,
  SigningKey,
  Account,
  ExternalPlatformLink,
  PaymentMethod,
  TosVersion,
  TosSignature,
  OutboxEvent,
  IdempotencyKey,
  LedgerAccount,
  LedgerPosting,
  LedgerEntry,
  Invoice,
  Escrow,
  Command,
  AccountBlock,
  AccountTag,
  UserSessionNonce,
  RefreshToken,
  RevokedSession,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
  SandboxClock,
  KycCheck,
  KycPersonalData,
  Payout,
  TokenExchange,
  Environment,
  ProviderObject,
  ProviderEvent,
  Dispute,
  DisputeHoldRow,
  ConsoleUser,
  ConsoleSession,
  AuditRecord,
  AuditChain,
];

/** MikroORM options for one database URL; migrations are the checked-in list, never schema sync. */
export function ormOptions(databaseUrl: string, poolMax = 10): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    discovery: { warnWhenNoEntities: true },
    extensions: [Migrator],
    // No snapshot file: migrate runs at boot and must never write into the code's folder.
    migrations: {
      migrationsList: migrations,
      transactional: true,
      allOrNothing: true,
      tableName: 'mikro_orm_migrations',
      silent: true,
      snapshot: false,
    },
    pool: { min: 0, max: poolMax },
    debug: false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
  });
}
