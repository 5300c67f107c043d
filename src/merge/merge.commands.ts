/**
 * The merge module's command runner: an account merge (`account.merge`), in the one command
 * transaction. Both accounts are locked in id order (two merges of one pair cannot deadlock),
 * then the wallets; the merge is checked again, every token balance moves into the
 * destination's matching wallets (one posting, `merge:<command id>`), the source gets its
 * closing `login` block (`merge_account`, issuer `svc`) and both accounts a tag. A merge that
 * cannot run throws its AppError before anything is written.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockAccountsInOrder } from '../accounts/account.repository.js';
import { insertTags } from '../accounts/account-block.repository.js';
import { applyBlock } from '../blocks/block.service.js';
import { recordAudit } from '../audit/audit.service.js';
import { inCommandTransaction } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Posting } from '../ledger/ledger.service.js';
import { MERGE_NAMESPACE, mergeRefusal, mergeTransfers, type MergeTransfer } from './merge.rules.js';
import { mergeFacts, refused, walletsOf } from './merge.service.js';

/** The `account.merge` runner; safe to run any number of times (a done command answers its result). */
export function runMergeCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    if (command.kind !== 'account.merge') throw new Error(`command ${commandId} (${command.kind}) is not a merge`);
    const sourceId = command.target_id;
    const destinationId = String(command.input?.destination_account_id ?? '');
    const accounts = await lockAccountsInOrder(db, [sourceId, destinationId]);
    if (accounts.length !== 2) throw AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');
    const integratorId = accounts[0].integrator_id;
    const wallets = await walletsOf(db, [sourceId, destinationId], true);
    const sourceWallets = wallets.filter((w) => w.accountId === sourceId);
    const refusal = mergeRefusal(await mergeFacts(db, integratorId, sourceId, destinationId, sourceWallets));
    if (refusal) throw refused(refusal);
    const planned = mergeTransfers(
      sourceWallets,
      wallets.filter((w) => w.accountId === destinationId),
    );
    if (!planned.ok) throw refused(planned.message);
    await applyBlock(db, {
      integratorId,
      accountId: sourceId,
      capability: 'login',
      issuer: 'svc',
      reason: 'merge_account',
      note: `Merged into ${destinationId}.`,
      clientId: null,
    });
    await tagBoth(db, integratorId, sourceId, destinationId);
    if (command.audit)
      await recordAudit(db, {
        integratorId,
        context: command.audit,
        action: 'account.merge',
        target: { type: 'account', id: sourceId },
        after: { destination_account_id: destinationId, moved: planned.transfers.map((t) => ({ currency: t.currency, amount: t.amount })) },
      });
    return {
      status: 200,
      body: success(mergeView(sourceId, destinationId, planned.transfers)),
      postings: balanceMoves(integratorId, commandId, planned.transfers),
    };
  });
}

function mergeView(sourceId: string, destinationId: string, transfers: MergeTransfer[]) {
  return { source_account_id: sourceId, destination_account_id: destinationId, moved: transfers };
}

async function tagBoth(db: Db, integratorId: string, sourceId: string, destinationId: string): Promise<void> {
  const tag = (accountId: string, resourceId: string, name: string) => ({
    id: newId('tag'),
    accountId,
    integratorId,
    resourceId,
    resourceType: 'account',
    namespace: MERGE_NAMESPACE,
    tag: name,
  });
  await insertTags(db, [tag(sourceId, destinationId, 'merged-into'), tag(destinationId, sourceId, 'merged-from')]);
}

/** One posting for every balance that moves (none when nothing does); its reference names the command, so it posts once. */
function balanceMoves(integratorId: string, commandId: string, transfers: MergeTransfer[]): Posting[] {
  if (!transfers.length) return [];
  return [
    {
      integratorId,
      reference: `merge:${commandId}`,
      description: `account merge ${commandId}`,
      entries: transfers.flatMap((t) => [
        { account: t.from_wallet_id, currency: t.currency, amount: -t.amount },
        { account: t.to_wallet_id, currency: t.currency, amount: t.amount },
      ]),
    },
  ];
}

export const mergeCommands: CommandRunners = {
  'account.merge': runMergeCommand,
};
