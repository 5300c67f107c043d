/**
 * Account merge (`mergeAccounts`) as a command. The request is checked at once
 * (404, 400, and the 409s of merge.rules) and then run by a worker in one transaction that
 * locks both accounts and the source's wallets, checks again, moves every token balance into
 * the destination's matching wallets, blocks the source (`login`, `merge_account`, issuer
 * `svc`), tags both accounts and writes the block event.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../auth/auth.service.js';
import { applyBlock } from '../blocks/block.service.js';
import { completeCommand, findCommand, lockCommand, runCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { autocommit, inTransaction, type Executor } from '../db/sql.js';
import { success } from '../envelope.js';
import { post } from '../ledger/ledger.service.js';
import type { CommandBus } from '../queues/command-bus.js';
import { MERGE_NAMESPACE, mergeRefusal, mergeTransfers, type MergeFacts, type MergeTransfer, type MergeWallet } from './merge.rules.js';

export interface MergeInput {
  source_account_id: string;
  destination_account_id: string;
}

/** The wallets of accounts with their ledger balances; locked (in id order) when `lock`. */
async function walletsOf(db: Executor, accountIds: string[], lock: boolean): Promise<MergeWallet[]> {
  const rows = await db.execute<
    Array<{ account_id: string; processing_currency: string; wallet_kind: 'standard' | 'convertible' | null; id: string; balance: string }>
  >(
    `select pm.account_id, pm.processing_currency, pm.wallet_kind, la.id, la.balance
       from payment_method pm join ledger_account la on la.payment_method_id = pm.id
      where pm.account_id in (${accountIds.map(() => '?').join(', ')}) and pm.provider = 'wallet'
      order by la.id${lock ? ' for update of la' : ''}`,
    accountIds,
  );
  return rows.map((r) => ({
    accountId: r.account_id,
    currency: r.processing_currency,
    walletKind: r.wallet_kind,
    ledgerAccountId: r.id,
    balance: Number(r.balance),
  }));
}

async function mergeFacts(
  db: Executor,
  integratorId: string,
  sourceId: string,
  destinationId: string,
  sourceWallets: MergeWallet[],
): Promise<MergeFacts> {
  const blocks = await db.execute<Array<{ account_id: string; reason: string }>>(
    `select account_id, reason from account_block where account_id in (?, ?) and capability = 'login' and status = 'active'`,
    [sourceId, destinationId],
  );
  const [asBuyer] = await db.execute<Array<{ n: string }>>(
    `select count(*) as n from escrow where account_id = ? and status = 'ESCROWED'`,
    [sourceId],
  );
  // An ESCROWED escrow pays the source on commit when a recipient names one of its wallets.
  const containment = sourceWallets.map((w) => JSON.stringify([{ recipients: [{ destination_wallet_id: w.ledgerAccountId }] }]));
  const [asSeller] = containment.length
    ? await db.execute<Array<{ n: string }>>(
        `select count(*) as n from escrow e join invoice i on i.id = e.escrow_invoice_id
        where e.integrator_id = ? and e.status = 'ESCROWED' and (${containment.map(() => 'i.line_items @> ?::jsonb').join(' or ')})`,
        [integratorId, ...containment],
      )
    : [{ n: '0' }];
  const source = blocks.find((b) => b.account_id === sourceId);
  return {
    sourceLoginBlock: source ? { reason: source.reason } : null,
    destinationLoginBlocked: blocks.some((b) => b.account_id === destinationId),
    escrowedAsBuyer: Number(asBuyer.n),
    escrowedAsSeller: Number(asSeller.n),
    fiatBalance: sourceWallets.filter((w) => w.walletKind === null).reduce((sum, w) => sum + w.balance, 0),
  };
}

/** A merge the rules refuse: 409 `ACCOUNT_MERGE_ERROR`. */
const refused = (message: string) => new AppError('conflict', message, { codes: ['ACCOUNT_MERGE_ERROR'], payload: null });

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
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const { source_account_id: sourceId, destination_account_id: destinationId } = input;
  if (sourceId === destinationId)
    throw AppError.invalid({ destination_account_id: ['SAME_AS_SOURCE'] }, 'An account cannot be merged into itself.');
  const db = autocommit(em);
  const found = await db.execute<Array<{ id: string }>>('select id from account where id in (?, ?) and integrator_id = ?', [
    sourceId,
    destinationId,
    principal.integratorId,
  ]);
  if (!found.some((r) => r.id === sourceId)) throw AppError.notFound('ACCOUNT_GET_ERROR', 'Source account not found.');
  if (!found.some((r) => r.id === destinationId)) throw AppError.notFound('ACCOUNT_GET_ERROR', 'Destination account not found.');
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
    },
    {
      ...opts,
      location: (commandId) => `/v2/commands/${commandId}`,
      current: async (commandId) => success(await findCommand(db, principal.integratorId, commandId)),
    },
  );
}

/**
 * The `account.merge` runner; safe to run any number of times (a done command returns its
 * result). A merge that cannot run throws its AppError before anything is written.
 */
export async function runMergeCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inTransaction(em, async (db) => {
    const command = await lockCommand(db, commandId);
    if (!command) return null;
    if (command.state === 'done') return { status: command.result_status!, body: command.result_body };
    if (command.kind !== 'account.merge') throw new Error(`command ${commandId} (${command.kind}) is not a merge`);
    const sourceId = command.target_id;
    const destinationId = String(command.input?.destination_account_id ?? '');
    const finish = async (result: CommandResult) => {
      await completeCommand(db, commandId, result);
      return result;
    };
    // Both accounts in id order (two merges of one pair cannot deadlock), then the wallets.
    const accounts = await db.execute<Array<{ id: string; integrator_id: string }>>(
      'select id, integrator_id from account where id in (?, ?) order by id for update',
      [sourceId, destinationId],
    );
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
    await applyBlock(db, em, {
      integratorId,
      accountId: sourceId,
      capability: 'login',
      issuer: 'svc',
      reason: 'merge_account',
      note: `Merged into ${destinationId}.`,
      clientId: null,
    });
    await tagBoth(db, integratorId, sourceId, destinationId);
    const result = await finish({ status: 200, body: success(mergeView(sourceId, destinationId, planned.transfers)) });
    await moveBalances(db, integratorId, commandId, planned.transfers);
    return result;
  });
}

function mergeView(sourceId: string, destinationId: string, transfers: MergeTransfer[]) {
  return { source_account_id: sourceId, destination_account_id: destinationId, moved: transfers };
}

async function tagBoth(db: Executor, integratorId: string, sourceId: string, destinationId: string): Promise<void> {
  await db.execute(
    `insert into account_tag (id, account_id, integrator_id, resource_id, resource_type, namespace, tag, status)
     values (?, ?, ?, ?, 'account', ?, 'merged-into', 'active'), (?, ?, ?, ?, 'account', ?, 'merged-from', 'active')`,
    [
      newId('tag'),
      sourceId,
      integratorId,
      destinationId,
      MERGE_NAMESPACE,
      newId('tag'),
      destinationId,
      integratorId,
      sourceId,
      MERGE_NAMESPACE,
    ],
  );
}

/** One posting for every balance that moves; its reference names the command, so it posts once. */
async function moveBalances(db: Executor, integratorId: string, commandId: string, transfers: MergeTransfer[]): Promise<void> {
  if (!transfers.length) return;
  await post(db, {
    integratorId,
    reference: `merge:${commandId}`,
    description: `account merge ${commandId}`,
    entries: transfers.flatMap((t) => [
      { account: t.from_wallet_id, currency: t.currency, amount: -t.amount },
      { account: t.to_wallet_id, currency: t.currency, amount: t.amount },
    ]),
  });
}
