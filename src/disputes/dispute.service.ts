/**
 * Disputes: a processor's notice that a card charge is disputed, recorded as it arrives (never
 * refused), the money it took back moved out of the integrator's wallet, evidence saved and
 * submitted, and the outcome. Opening and closing move money: they are commands
 * (`dispute.open`, `dispute.close`, dispute.commands.ts); saving evidence moves none and is
 * answered at once.
 */
import { success } from '../envelope.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type AuditContext, recordAudit } from '../audit/audit.service.js';
import { runCommand, submitCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../integrators/principal.js';
import type { CommandBus } from '../queues/command-bus.js';
import type { CardProcessor } from '../rails/card-processor.port.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import {
  disputesOfInvoice,
  hasOpenDispute,
  payoutWaitsForDispute,
  holdsOf,
  dueSandboxCharges,
  findDispute,
  listDisputes,
  lockDispute,
  overdueSandboxDisputes,
  saveEvidence,
  type DisputeFilter,
} from './dispute.repository.js';
import {
  canTakeEvidence,
  disputeView,
  evidenceProblems,
  mergedEvidence,
  OPEN_DISPUTE_STATUSES,
  SANDBOX_DISPUTE_DELAY_SECONDS,
  SANDBOX_EVIDENCE_WINDOW_SECONDS,
  isDisputablePurchase,
  type DisputeReason,
  type DisputeRecord,
  type DisputeStatus,
  type DisputeView,
  type Evidence,
} from './dispute.rules.js';
import { sendEvidenceToStripe } from './stripe-dispute-evidence.js';

export const disputeNotFound = () => AppError.notFound('DISPUTE_NOT_FOUND', 'No dispute with this id.');

/** 409 `DISPUTE_STATE_ERROR`: the dispute is not in a state that allows this (the payload is the dispute). */
export const disputeStateError = (dispute: DisputeView | DisputeRecord, why: string) =>
  new AppError('invalid_state', why, {
    codes: ['DISPUTE_STATE_ERROR'],
    payload: 'integratorId' in dispute ? disputeView(dispute) : dispute,
  });

/** A dispute as the API shows it, with its trace. */
export async function viewOf(db: Db, d: DisputeRecord): Promise<DisputeView> {
  return disputeView(d, await holdsOf(db, [d.id]));
}

/** `GET /v2/disputes/{dispute_id}`: another integrator's dispute is not found. */
export async function getDispute(em: EntityManager, principal: Principal, disputeId: string) {
  const d = await findDispute(pooled(em), principal.integratorId, disputeId);
  if (!d) throw disputeNotFound();
  return viewOf(pooled(em), d);
}

/** `GET /v2/disputes`: the integrator's disputes, newest first. */
export async function getDisputes(em: EntityManager, principal: Principal, filter: DisputeFilter, page: { limit: number; offset: number }) {
  const { total, rows } = await listDisputes(pooled(em), principal.integratorId, filter, page);
  const holds = await holdsOf(
    pooled(em),
    rows.map((d) => d.id),
  );
  return {
    disputes: rows.map((d) =>
      disputeView(
        d,
        holds.filter((h) => h.disputeId === d.id),
      ),
    ),
    limit: page.limit,
    offset: page.offset,
    total,
  };
}

/**
 * `POST /v2/disputes/{dispute_id}/evidence`: saves the fields sent (an empty string clears one)
 * while the dispute needs a response; `submit` sends it for review (UNDER_REVIEW). One
 * transaction holding the dispute's row; `dispute-updated` goes with it. A Stripe dispute's
 * evidence goes to Stripe first, outside any transaction (`sendEvidenceToStripe`): saved here
 * only once Stripe took it.
 */
export async function submitEvidence(
  em: EntityManager,
  principal: Principal,
  disputeId: string,
  body: Evidence & { submit?: boolean },
  cards: CardProcessor,
  audit?: AuditContext,
) {
  const { submit = false, ...sent } = body;
  const seen = await findDispute(pooled(em), principal.integratorId, disputeId);
  if (!seen) throw disputeNotFound();
  const stripe = seen.provider === 'stripe';
  if (stripe) {
    checkEvidence(seen, sent);
    await sendEvidenceToStripe(seen, sent, submit, cards);
  }
  return pooled(em).transaction(async (db) => {
    const d = await lockDispute(db, disputeId);
    if (!d || d.integratorId !== principal.integratorId) throw disputeNotFound();
    // Stripe took the submission: a webhook may have moved the dispute under review meanwhile.
    if (!(stripe && submit && d.status === 'UNDER_REVIEW')) checkEvidence(d, sent);
    const after = await saveEvidence(db, d.id, mergedEvidence(d.evidence, sent), submit);
    const view = await viewOf(db, after);
    await insertEvent(db, d.integratorId, 'dispute-updated', view);
    // Which fields were sent, never their text (evidence may name the customer).
    if (audit)
      await recordAudit(db, {
        integratorId: d.integratorId,
        context: audit,
        action: 'dispute.evidence',
        target: { type: 'dispute', id: d.id },
        before: { status: d.status },
        after: { status: after.status, fields: Object.keys(sent).sort(), submitted: submit },
      });
    return view;
  });
}

/** 409 unless the dispute takes evidence now; 400 naming each field over its limit. */
function checkEvidence(d: DisputeRecord, sent: Evidence): void {
  if (!canTakeEvidence(d.status))
    throw disputeStateError(d, `Evidence is taken while a dispute is NEEDS_RESPONSE; this one is ${d.status}.`);
  const problems = evidenceProblems(sent);
  if (Object.keys(problems).length) {
    throw AppError.invalid(problems, 'Each evidence field holds at most 20,000 characters.');
  }
}

/** Where a dispute's request answers: the dispute. */
const disputeLocation = (disputeId: string) => `/v2/disputes/${disputeId}`;

/**
 * `POST /v2/sandbox/disputes` (staging): the sandbox processor's notice that a card charge of a
 * purchase invoice is disputed — `amount` (default: all the charge still has) for `reason`
 * (default `fraudulent`). The processor has taken the money: the dispute opens with it withdrawn.
 */
export function openSandboxDispute(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  body: { invoice_id: string; payment_method_id: string; amount?: number; reason?: DisputeReason },
  opts: { respondAsync: boolean; syncWaitMs: number },
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const disputeId = newId('dsp');
  return runCommand(
    em,
    bus,
    {
      integratorId: principal.integratorId,
      kind: 'dispute.open',
      targetId: disputeId,
      input: openInput(principal.integratorId, body),
    },
    {
      ...opts,
      location: disputeLocation(disputeId),
      current: async () => {
        const d = await findDispute(pooled(em), principal.integratorId, disputeId);
        // The dispute once its command has opened it; null before.
        return success(d ? await viewOf(pooled(em), d) : null);
      },
    },
  );
}

/** What a `dispute.open` command is told: the charge, the notice, and that the processor took the money. */
export interface OpenDisputeInput {
  integrator_id: string;
  invoice_id: string;
  payment_method_id: string;
  /** What the processor reported; absent: all the charge still has. */
  amount: number | null;
  reason: DisputeReason;
  provider: 'sandbox' | 'stripe';
  provider_dispute_id: string | null;
  /** The processor has taken the money (the sandbox at once; Stripe on `charge.dispute.funds_withdrawn`). */
  withdrawn: boolean;
  /** When the evidence is due, in seconds from now on the integrator's clock. */
  due_in_seconds: number;
  /** A Stripe inquiry (`warning_*`): recorded as one until Stripe escalates it (absent: false). */
  inquiry?: boolean;
}

function openInput(
  integratorId: string,
  body: { invoice_id: string; payment_method_id: string; amount?: number; reason?: DisputeReason },
): Record<string, unknown> {
  const input: OpenDisputeInput = {
    integrator_id: integratorId,
    invoice_id: body.invoice_id,
    payment_method_id: body.payment_method_id,
    amount: body.amount ?? null,
    reason: body.reason ?? 'fraudulent',
    provider: 'sandbox',
    provider_dispute_id: null,
    withdrawn: true,
    due_in_seconds: SANDBOX_EVIDENCE_WINDOW_SECONDS,
  };
  return { ...input };
}

/**
 * `POST /v2/sandbox/disputes/{dispute_id}/close` (staging): the sandbox processor decides a
 * dispute, `won` or `lost`. A dispute already decided the same way answers as it is.
 */
export async function closeSandboxDispute(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  disputeId: string,
  outcome: 'won' | 'lost',
  opts: { respondAsync: boolean; syncWaitMs: number },
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const d = await findDispute(pooled(em), principal.integratorId, disputeId);
  if (!d) throw disputeNotFound();
  if (d.provider !== 'sandbox')
    throw disputeStateError(await viewOf(pooled(em), d), 'Only a sandbox dispute is decided here; the processor decides this one.');
  const status = outcome === 'won' ? 'WON' : 'LOST';
  return runCommand(
    em,
    bus,
    { integratorId: principal.integratorId, kind: 'dispute.close', targetId: disputeId, input: { outcome: status }, inputKey: status },
    {
      ...opts,
      location: disputeLocation(disputeId),
      current: async () => success(await viewOf(pooled(em), (await findDispute(pooled(em), principal.integratorId, disputeId))!)),
    },
  );
}

/**
 * The sandbox processor's clock, run by a worker every few seconds and when an integrator moves
 * its test clock: charges of the disputing sandbox card paid a day ago (on the integrator's
 * clock) are disputed, and sandbox disputes past their evidence deadline without a submission
 * are LOST. Submits the commands and enqueues their jobs; how many of each.
 */
export async function runSandboxDisputeClock(em: EntityManager, bus: CommandBus, limit = 100): Promise<{ opened: number; lost: number }> {
  const db = pooled(em);
  const charges = await dueSandboxCharges(db, SANDBOX_DISPUTE_DELAY_SECONDS, limit);
  for (const c of charges) {
    const commandId = await submitCommand(db, {
      integratorId: c.integrator_id,
      kind: 'dispute.open',
      targetId: newId('dsp'),
      input: openInput(c.integrator_id, { invoice_id: c.invoice_id, payment_method_id: c.payment_method_id }),
    });
    await bus.enqueue(commandId, 'dispute.open');
  }
  const overdue = await overdueSandboxDisputes(db, limit);
  for (const d of overdue) {
    const commandId = await submitCommand(db, {
      integratorId: d.integrator_id,
      kind: 'dispute.close',
      targetId: d.id,
      input: { outcome: 'LOST' },
      inputKey: 'LOST',
    });
    await bus.enqueue(commandId, 'dispute.close');
  }
  return { opened: charges.length, lost: overdue.length };
}

/** An invoice's disputes as `GET /v2/invoice/{invoice_id}` summarises them, and what they take from its refundable amount. */
export async function disputeSummaryOf(db: Db, invoiceId: string) {
  const disputes = await disputesOfInvoice(db, invoiceId);
  return {
    disputes: disputes.map((d) => ({
      dispute_id: d.id,
      payment_method_id: d.paymentMethodId,
      amount: d.amount,
      currency: d.currency,
      status: d.status,
    })),
    disputed: disputes.filter((d) => d.status !== 'WON').reduce((sum, d) => sum + d.amount, 0),
    open: disputes.filter((d) => OPEN_DISPUTE_STATUSES.includes(d.status)).length,
  };
}

export type { DisputeStatus };

/**
 * 409 `DISPUTE_OPEN` while the account has an open dispute as the buyer: its payout and
 * conversion requests wait for the dispute (no block is added).
 */
export async function assertNoOpenDispute(db: Db, accountId: string): Promise<void> {
  if (await hasOpenDispute(db, accountId)) {
    throw new AppError(
      'invalid_state',
      'A card charge of this account is disputed: payouts and conversions wait until the dispute is decided.',
      {
        codes: ['DISPUTE_OPEN'],
      },
    );
  }
}

/**
 * What `GET /v2/invoice/{invoice_id}` adds to a purchase invoice that was disputed: its `disputes`
 * summary (nothing on an invoice never disputed, which reads as it always did).
 */
export async function invoiceDisputes(em: EntityManager, invoice: { invoice_id: string; invoice_type: string }) {
  if (!isDisputablePurchase(invoice.invoice_type)) return {};
  const summary = await disputeSummaryOf(pooled(em), invoice.invoice_id);
  return summary.disputes.length ? { disputes: summary } : {};
}

/**
 * 409 `DISPUTE_OPEN` for the execution of a payout an open dispute traced disputed value into
 * before it was sent: it stays `FUNDS-IN-ESCROW` until the dispute is decided.
 */
export async function assertPayoutNotWaitingForDispute(db: Db, payoutId: string): Promise<void> {
  if (await payoutWaitsForDispute(db, payoutId)) {
    throw new AppError('invalid_state', 'This payout holds value of a disputed card charge: it is not sent until the dispute is decided.', {
      codes: ['DISPUTE_OPEN'],
    });
  }
}
