/**
 * Account merge (`mergeAccounts`) as a command. The request is checked at once
 * (404, 400, and the 409s of merge.rules) and then run by a worker in one transaction that
 * locks both accounts and the source's wallets, checks again, moves every token balance into
 * the destination's matching wallets, blocks the source (`login`, `merge_account`, issuer
 * `svc`), tags both accounts and writes the block event.
 *
 * Money never lands in a merged account: the merge is refused while an unfinished escrow or
 * invoice names the source (as buyer or payee), and a new purchase holds the accounts it names
 * while it checks their blocks and is written (`writeHoldingAccounts`), so the lock this merge
 * takes on the source either waits for that purchase, and then counts it, or makes the purchase
 * wait and then see the source closed. Pay and commit also refuse a purchase that would pay a
 * merged account (for one left from before this rule).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import type { Principal } from '../integrators/principal.js';
import { findCommand, runCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { accountsAmong } from '../accounts/account.repository.js';
import { activeLoginBlocks } from '../accounts/account-block.repository.js';
import { db as pooled, type Db } from '../db/sql.js';
import { unfinishedEscrowsNaming } from '../escrow/escrow.repository.js';
import { unfinishedInvoicesNaming } from '../invoices/invoice.repository.js';
import { openPayoutCount } from '../payouts/payout.repository.js';
import { walletsOfAccounts } from '../payment-methods/payment-method.repository.js';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import type { AuditContext } from '../audit/audit.service.js';
import { mergeRefusal, type MergeFacts, type MergeWallet } from './merge.rules.js';

export interface MergeInput {
  source_account_id: string;
  destination_account_id: string;
}

/** The wallets of accounts with their ledger balances; locked (in id order) when `lock`. */
export async function walletsOf(db: Db, accountIds: string[], lock: boolean): Promise<MergeWallet[]> {
  const rows = await walletsOfAccounts(db, accountIds, lock);
  return rows.map((r) => ({
    accountId: r.account_id,
    currency: r.processing_currency,
    walletKind: r.wallet_kind,
    ledgerAccountId: r.id,
    balance: Number(r.balance),
    held: Number(r.held),
  }));
}

export async function mergeFacts(
  db: Db,
  integratorId: string,
  sourceId: string,
  destinationId: string,
  sourceWallets: MergeWallet[],
): Promise<MergeFacts> {
  const blocks = await activeLoginBlocks(db, [sourceId, destinationId]);
  // A purchase pays the source when a recipient names one of its wallets (or, for tokens, issues to it).
  const wallets = sourceWallets.map((w) => w.ledgerAccountId);
  const escrows = await unfinishedEscrowsNaming(db, integratorId, sourceId, wallets);
  const invoices = await unfinishedInvoicesNaming(db, integratorId, sourceId, wallets);
  const source = blocks.find((b) => b.account_id === sourceId);
  return {
    sourceLoginBlock: source ? { reason: source.reason } : null,
    destinationLoginBlocked: blocks.some((b) => b.account_id === destinationId),
    escrowedAsBuyer: escrows.escrowedAsBuyer,
    escrowedAsSeller: escrows.escrowedAsPayee,
    openAsBuyer: escrows.openAsBuyer + invoices.asBuyer,
    openAsSeller: escrows.openAsPayee + invoices.asPayee,
    openPayouts: await openPayoutCount(db, sourceId),
    fiatBalance: sourceWallets.filter((w) => w.walletKind === null).reduce((sum, w) => sum + w.balance, 0),
    heldByDisputes: sourceWallets.reduce((sum, w) => sum + w.held, 0),
  };
}

/** A merge the rules refuse: 409 `ACCOUNT_MERGE_ERROR`. */
export const refused = (message: string) => new AppError('conflict', message, { codes: ['ACCOUNT_MERGE_ERROR'], payload: null });

/**
 * `POST /v2/merge-accounts`: checks the request, then runs the merge as a command. Answers 200
 * with the merge when it finishes within the sync wait; otherwise (or with `respond-async`) 202
 * with the command and `Location: /v2/commands/{id}`.
 */
export async function requestMerge(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  input: MergeInput,
  opts: { respondAsync: boolean; syncWaitMs: number },
  audit?: AuditContext,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const { source_account_id: sourceId, destination_account_id: destinationId } = input;
  if (sourceId === destinationId)
    throw AppError.invalid({ destination_account_id: ['SAME_AS_SOURCE'] }, 'An account cannot be merged into itself.');
  const db = pooled(em);
  const found = await accountsAmong(db, principal.integratorId, [sourceId, destinationId]);
  if (!found.includes(sourceId)) throw AppError.notFound('ACCOUNT_GET_ERROR', 'Source account not found.');
  if (!found.includes(destinationId)) throw AppError.notFound('ACCOUNT_GET_ERROR', 'Destination account not found.');
  const refusal = mergeRefusal(
    await mergeFacts(db, principal.integratorId, sourceId, destinationId, await walletsOf(db, [sourceId], false)),
  );
  if (refusal) throw refused(refusal);
  return runCommand(
    em,
    bus,
    {
      integratorId: principal.integratorId,
      kind: 'account.merge',
      targetId: sourceId,
      input: { destination_account_id: destinationId },
      inputKey: destinationId,
      audit,
    },
    {
      ...opts,
      location: (commandId) => `/v2/commands/${commandId}`,
      current: async (commandId) => success(await findCommand(db, principal.integratorId, commandId)),
    },
  );
}
