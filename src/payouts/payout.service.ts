/**
 * Payouts: money out of an account's fiat wallet to a payout destination. Every move is a
 * command run by a worker (`payout.commands.ts`): the request moves the amount from the wallet
 * to payout holding (FUNDS-IN-ESCROW), so it cannot be spent twice; an execution (automatic at
 * or under the integrator's `payout_auto_approve_max`, else the operator's approval) sends it to
 * the payout rail (PROCESSING), whose answer — at once or later, as a rail outcome submitted
 * here (`submitPayoutOutcome`) — pays it (SUCCESS), leaves it held (FAILED) or gives it back
 * (RETURNED); a reversal returns it to the wallet. The web side checks what it can at once
 * (nothing moved on a refusal) and submits the command.
 */
import { assertNoOpenDispute } from '../disputes/dispute.service.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { requireAccount } from '../accounts/account-access.service.js';
import { integratorSettings } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { assertCanPayOut } from '../blocks/block.service.js';
import { runCommand, submitCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { findKycState, kycRequired } from '../kyc/kyc.service.js';
import { balancesOf } from '../ledger/ledger.repository.js';
import { fiatWalletOf, payoutDestination } from '../payment-methods/payment-method.repository.js';
import { lockExchange } from '../tokens/conversion.service.js';
import type { CommandBus } from '../queues/command-bus.js';
import type { AuditContext } from '../audit/audit.service.js';
import { findPayout, openPayoutCount, payoutById, payoutByProviderItem, payoutsOf } from './payout.repository.js';
import { parseSenderBatchId, payoutView, railOutcomeOf, type PayoutRecord, type RailOutcome } from './payout.rules.js';

/** A payout request's body. */
export interface PayoutRequest {
  source_payment_method_id: string;
  destination_payment_method_id: string;
  amount: number;
  currency: string;
  token_exchange_id?: string;
}

interface CommandOptions {
  respondAsync: boolean;
  syncWaitMs: number;
}

/** The 404 of a payout that is not the account's (or not the integrator's). */
export const payoutNotFound = () => AppError.notFound('PAYOUT_NOT_FOUND', 'Payout not found.');

/** The 409 of a payout move its state does not allow, naming the state. */
export function payoutStateConflict(payout: PayoutRecord, what: string): AppError {
  return new AppError('invalid_state', `The payout is ${payout.status}: it cannot be ${what}.`, { codes: ['PAYOUT_STATE_ERROR'] });
}

/**
 * The checks of a payout request, in the order their answers take precedence: a `payouts` or
 * `login` block (403), KYC not ACCEPT (409 `KYC_REQUIRED`), the methods (400 naming each), the
 * open-payout limit (409 `PAYOUT_LIMIT`), the wallet's balance (400 `INSUFFICIENT_BALANCE`).
 * Run by the web side (no lock) and again by the command under the account's lock. Returns the
 * source wallet's ledger account.
 */
export async function checkPayoutRequest(db: Db, integratorId: string, accountId: string, input: PayoutRequest): Promise<string> {
  await assertCanPayOut(db, accountId);
  await assertNoOpenDispute(db, accountId);
  const kyc = await findKycState(db, accountId);
  if (kyc !== 'ACCEPT') throw kycRequired(kyc);
  if (input.currency !== 'USD') throw AppError.invalid({ currency: ['UNSUPPORTED_CURRENCY'] }, 'Payouts are paid in USD.');
  const source = await fiatWalletOf(db, accountId, input.source_payment_method_id);
  if (!source) {
    throw AppError.invalid({ source_payment_method_id: ['NOT_A_FIAT_WALLET'] }, "The source must be the account's own USD wallet.");
  }
  if (!(await payoutDestination(db, accountId, input.destination_payment_method_id))) {
    throw AppError.invalid(
      { destination_payment_method_id: ['NOT_A_PAYOUT_DESTINATION'] },
      "The destination must be one of the account's payout methods (type paypal).",
    );
  }
  const limit = (await integratorSettings(db, integratorId)).payoutOpenLimit;
  if ((await openPayoutCount(db, accountId)) >= limit) {
    throw new AppError(
      'invalid_state',
      `The account already has ${limit} open payouts (FUNDS-IN-ESCROW, PROCESSING or FAILED), the most allowed.`,
      {
        codes: ['PAYOUT_LIMIT'],
      },
    );
  }
  if (input.token_exchange_id !== undefined) await checkExchange(db, integratorId, accountId, input);
  const [wallet] = await balancesOf(db, [source.ledgerAccountId]);
  if ((wallet?.balance ?? 0) < input.amount) {
    throw AppError.invalid({ amount: ['INSUFFICIENT_BALANCE'] }, `The wallet holds ${wallet?.balance ?? 0}, less than the payout.`);
  }
  return source.ledgerAccountId;
}

/**
 * A payout naming a token exchange pays out that conversion's money: the account's own
 * EXECUTED exchange, not paid out by another payout, for exactly its fiat amount less its fee
 * (so that reversing the payout can reverse the conversion). Each breach is a 400 naming the field.
 */
async function checkExchange(db: Db, integratorId: string, accountId: string, input: PayoutRequest): Promise<void> {
  const exchange = await lockExchange(db, input.token_exchange_id!);
  const field = (code: string, message: string) => AppError.invalid({ token_exchange_id: [code] }, message);
  if (!exchange || exchange.integratorId !== integratorId || exchange.accountId !== accountId)
    throw field('NOT_FOUND', "No token exchange of the account's has this id.");
  if (exchange.status !== 'EXECUTED') throw field('NOT_EXECUTED', `The token exchange is ${exchange.status}, not EXECUTED.`);
  if (exchange.payoutId) throw field('ALREADY_PAID_OUT', 'Another payout already pays out this token exchange.');
  const net = exchange.fiatAmount - exchange.feeAmount;
  if (input.amount !== net || input.currency !== 'USD')
    throw AppError.invalid(
      { amount: ['MUST_MATCH_EXCHANGE'] },
      `A payout of this token exchange is USD ${net} (its fiat amount less its fee).`,
    );
}

/** `POST /v2/{account_id}/payout`: checks, then the `payout.request` command; 201 with the payout in FUNDS-IN-ESCROW. */
export async function requestPayout(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  accountId: string,
  input: PayoutRequest,
  opts: CommandOptions,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  await requireAccount(em, principal, accountId);
  const db = pooled(em);
  await checkPayoutRequest(db, principal.integratorId, accountId, input);
  const payoutId = newId('po');
  return runCommand(
    em,
    bus,
    {
      integratorId: principal.integratorId,
      kind: 'payout.request',
      targetId: accountId,
      input: { ...input, payout_id: payoutId },
      inputKey: payoutId,
    },
    {
      ...opts,
      // The payout's own address, which a user token may follow too (404 until the command has run).
      location: `/v2/${accountId}/payout/${payoutId}`,
      current: async () => {
        const payout = await findPayout(db, principal.integratorId, payoutId);
        return success(payout ? payoutView(payout) : null);
      },
    },
  );
}

/** The account's payout, or the 404. */
async function accountPayout(em: EntityManager, principal: Principal, accountId: string, payoutId: string): Promise<PayoutRecord> {
  await requireAccount(em, principal, accountId);
  const payout = await findPayout(pooled(em), principal.integratorId, payoutId);
  if (!payout || payout.accountId !== accountId) throw payoutNotFound();
  return payout;
}

/** `GET /v2/{account_id}/payout/{payout_status_id}`. */
export async function getPayout(em: EntityManager, principal: Principal, accountId: string, payoutId: string) {
  return payoutView(await accountPayout(em, principal, accountId, payoutId));
}

/** `GET /v2/{account_id}/payouts`: newest first, `limit` from `offset`, with the `total`. */
export async function listPayouts(em: EntityManager, principal: Principal, accountId: string, page: { limit: number; offset: number }) {
  await requireAccount(em, principal, accountId);
  const { total, payouts } = await payoutsOf(pooled(em), accountId, page.limit, page.offset);
  return { total, limit: page.limit, offset: page.offset, payouts: payouts.map(payoutView) };
}

/** Runs a command on an existing payout of the account's and answers it (200 with the payout). */
async function payoutCommand(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  payout: PayoutRecord,
  command: {
    kind: 'payout.execute' | 'payout.reverse' | 'payout.settle';
    input: Record<string, unknown>;
    inputKey: string;
    audit?: AuditContext;
  },
  opts: CommandOptions,
) {
  const db = pooled(em);
  return runCommand(
    em,
    bus,
    { integratorId: principal.integratorId, targetId: payout.id, ...command },
    {
      ...opts,
      location: `/v2/${payout.accountId}/payout/${payout.id}`,
      current: async () => success(payoutView((await findPayout(db, principal.integratorId, payout.id)) ?? payout)),
    },
  );
}

/** `DELETE /v2/{account_id}/payout/{id}`: the user or the integrator takes it back (USER-REVERSED). */
export async function reversePayout(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  accountId: string,
  payoutId: string,
  opts: CommandOptions,
) {
  const payout = await accountPayout(em, principal, accountId, payoutId);
  return payoutCommand(em, bus, principal, payout, { kind: 'payout.reverse', input: { by: 'user' }, inputKey: 'user' }, opts);
}

/**
 * An operator's decision on one of the integrator's payouts, through the workers (the console):
 * approve runs its `payout.execute`, reject its `payout.reverse` (SUPPORT-REVERSED) — the same
 * commands, with the same input keys, as `holdfast payouts approve|reject`, so a decision made
 * twice, or from both, runs once.
 */
export async function decidePayout(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  payoutId: string,
  action: 'approve' | 'reject',
  opts: CommandOptions,
  audit: AuditContext,
) {
  const payout = await findPayout(pooled(em), principal.integratorId, payoutId);
  if (!payout) throw payoutNotFound();
  const command =
    action === 'approve'
      ? { kind: 'payout.execute' as const, input: { mode: 'approve' }, inputKey: 'approve', audit }
      : { kind: 'payout.reverse' as const, input: { by: 'support' }, inputKey: 'reject', audit };
  return payoutCommand(em, bus, principal, payout, command, opts);
}

/**
 * `PATCH /v2/{account_id}/payout/{id}` (staging only): approves and executes it at once; with a
 * `rail_outcome`, applies that outcome of the payout rail to a PROCESSING payout instead, as the
 * provider's webhook would (a `payout.settle` command on its current attempt), so that RETURNED
 * and UNCLAIMED can be tried without the provider.
 */
export async function executePayoutNow(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  accountId: string,
  payoutId: string,
  body: { rail_outcome?: RailOutcome } | undefined,
  opts: CommandOptions,
  audit?: AuditContext,
) {
  const payout = await accountPayout(em, principal, accountId, payoutId);
  const outcome = body?.rail_outcome;
  if (outcome === undefined) {
    return payoutCommand(
      em,
      bus,
      principal,
      payout,
      { kind: 'payout.execute', input: { mode: 'staging' }, inputKey: 'staging', audit },
      opts,
    );
  }
  if (payout.status !== 'PROCESSING') throw payoutStateConflict(payout, `given a rail outcome (${outcome})`);
  const input: SettleInput = { status: outcome, attempt: payout.attempt };
  return payoutCommand(em, bus, principal, payout, { kind: 'payout.settle', input: { ...input }, inputKey: settleKey(input), audit }, opts);
}

/**
 * A rail's outcome for one attempt of a payout: the input of a `payout.settle` command. The
 * attempt is the one the outcome is about (from its `sender_batch_id`, `<payout id>-<attempt>`).
 */
export interface SettleInput {
  status: RailOutcome;
  attempt: number;
  provider_batch_id?: string | null;
  provider_item_id?: string | null;
  failure_code?: string | null;
  failure_reason?: string | null;
  /** The provider's object as it reported the outcome (JSON, no credentials). */
  snapshot?: Record<string, unknown> | null;
}

/** Outcomes of one attempt and status share a pending command; a repeat after it ran makes one that moves nothing. */
function settleKey(input: SettleInput): string {
  return `${input.attempt}:${input.status}`;
}

/** What a provider reported about a payout item: its status, and the ids that name the payout. */
export interface ReportedPayoutOutcome {
  status: string;
  /** `<payout id>-<attempt>`: names the payout and the attempt (preferred). */
  senderBatchId?: string | null;
  /** The provider's item id: names the payout's current attempt when no `senderBatchId` is given. */
  providerItemId?: string | null;
  providerBatchId?: string | null;
  failureCode?: string | null;
  failureReason?: string | null;
  snapshot?: Record<string, unknown> | null;
}

/**
 * What the provider-webhook inbox calls, in its own transaction (`db`), with an outcome a
 * provider reported: submits the payout's `payout.settle` command and answers it for the caller
 * to enqueue (`next`); null when the outcome names no payout of ours, or is not one that settles
 * or keeps a payout (`railOutcomeOf`: SUCCEEDED or SUCCESS, FAILED, BLOCKED, DENIED, RETURNED,
 * UNCLAIMED).
 * Safe to call for every copy of an event, in any order: the command moves money once
 * (`outcomeApplies`).
 */
export async function submitPayoutOutcome(
  db: Db,
  reported: ReportedPayoutOutcome,
): Promise<{ commandId: string; kind: 'payout.settle'; payoutId: string } | null> {
  const status = railOutcomeOf(reported.status);
  if (!status) return null;
  let payout: PayoutRecord | undefined;
  let attempt: number | undefined;
  const named = reported.senderBatchId ? parseSenderBatchId(reported.senderBatchId) : undefined;
  if (named) {
    payout = await payoutById(db, named.payoutId);
    attempt = named.attempt;
  } else if (reported.providerItemId) {
    payout = await payoutByProviderItem(db, reported.providerItemId);
    attempt = payout?.attempt;
  }
  if (!payout || attempt === undefined) return null;
  const input: SettleInput = {
    status,
    attempt,
    provider_batch_id: reported.providerBatchId ?? null,
    provider_item_id: reported.providerItemId ?? null,
    failure_code: reported.failureCode ?? null,
    failure_reason: reported.failureReason ?? null,
    snapshot: reported.snapshot ?? null,
  };
  const commandId = await submitCommand(db, {
    integratorId: payout.integratorId,
    kind: 'payout.settle',
    targetId: payout.id,
    input: { ...input },
    inputKey: settleKey(input),
  });
  return { commandId, kind: 'payout.settle', payoutId: payout.id };
}
