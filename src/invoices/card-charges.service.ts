/**
 * Card charges through a real card processor (one with a provider: Stripe), around a command's
 * decision. A sandbox processor never comes here: it decides at once, inside the decision.
 *
 * Where the provider calls happen, and why:
 * - Before the decision, outside any transaction: each card charge is *authorized* (held on the
 *   card, `capture_method: manual`, off-session), so no row lock is held during a network call.
 *   The idempotency key `<command id>:charge:<payment method id>` makes a retried or crashed
 *   command get the same PaymentIntent back, never a second one. Wallets are checked first (as
 *   they stand): a pay that a wallet cannot cover asks nothing of the cards.
 * - The decision (the command's transaction, or the escrow batch's one statement) takes the
 *   authorizations as the cards' verdicts: all or nothing, wallets locked as today.
 * - After it commits: every authorization of a paid invoice is captured, of a failed one
 *   released (`<command id>:capture:…` / `:cancel:…`). This step runs on every run of the
 *   command's job (a done command too), so a crash or an outage after the commit is finished
 *   by the job's retry. Authorize-then-capture rather than charge-then-refund: a failed
 *   all-or-nothing pay never shows the buyer a charge and its refund, and releasing a hold
 *   cannot fail the way a refund can.
 * - An escrow cancel refunds its captured card charges after the cancel is written
 *   (`<command id>:refund:<payment method id>`), on every run of its job likewise: the escrow
 *   moved first, so a cancel that lost to a commit never refunds. Each part's outcome is
 *   answered to the caller, which records it (the refunds module). A refund command calls the
 *   provider itself, between its plan and its outcome (src/refunds/refund.commands.ts).
 *
 * Every PaymentIntent and Refund is kept in `provider_object` with what it stands behind:
 * `invoice:<invoice id>:charge:<payment method id>` (the paid invoice's charge) and
 * `invoice:<refund or cancel invoice id>:refund:<payment method id>`. A charge's reference has
 * one PaymentIntent: a later pay of the same invoice (its first refused before deciding) retires
 * the previous one first (`retirePreviousIntent`). A PaymentIntent's snapshot only moves forward
 * (`saveIntentSight`), whichever of a command's answer and a webhook's event comes last.
 * - A capture Stripe refuses (the authorization lapsed after seven days, or was released) is
 *   not retried: the PaymentIntent as Stripe has it (`canceled`) is stored, so the hold is no
 *   longer open and the command finishes. The purchase's postings stand (the seller was paid in
 *   the ledger when the pay decided); `ledger verify` names the charge until an operator settles
 *   it with the buyer.
 */
import type { Db } from '../db/sql.js';
import { chargeMethods } from '../payment-methods/payment-method.repository.js';
import {
  authorizedVerdicts,
  cardCallKey,
  chargeRef,
  refundRef,
  type Authorization,
  type CardProvider,
  type CardVerdicts,
} from '../rails/card-processor.port.js';
import {
  findProviderObject,
  moveProviderObject,
  type ProviderObjectRecord,
  providerObjectsOf,
  providerObjectsStuck,
  saveProviderObject,
  saveProviderObjectForward,
} from '../rails/provider-object.repository.js';
import type { CommandKind } from '../commands/command.registry.js';
import { commandTarget } from '../commands/command.service.js';
import { readInvoice } from './invoice.repository.js';
import type { StoredCharge } from './invoice.entity.js';
import type { InvoiceRecord } from './invoice.rules.js';
import type { ChargeMethod } from './settlement.service.js';
import { INTENT_OPEN_RANK, INTENT_RANK } from './payment-intent-snapshot.rules.js';
import { refundSightSupersedes } from './stripe-refund-snapshot.rules.js';

/** The verdicts of a pay's cards, and the cards left unasked because a wallet could not cover the pay as it stood. */
export interface CardAuthorizations {
  verdicts: CardVerdicts;
  /** Card methods not authorized: should the decision find the pay payable after all, it must run again. */
  unasked: Set<string>;
  /** Buyer present: the cards awaiting their holder's authentication (3-D Secure), with the provider's page for each. */
  actions?: Map<string, string>;
}

/** Whether every non-card charge would go through as things stand (unlocked): wallets cover it, no owner blocked. */
function othersWouldPay(charges: StoredCharge[], methods: ChargeMethod[], balances: Map<string, number>): boolean {
  const left = new Map(balances);
  for (const c of charges) {
    const m = methods.find((x) => x.id === c.payment_method_id);
    if (!m || m.owner_blocked) return false;
    if (m.wallet) {
      const balance = left.get(m.wallet) ?? 0;
      if (balance < c.amount) return false;
      left.set(m.wallet, balance - c.amount);
    }
  }
  return true;
}

/**
 * Authorizes the card charges of an invoice about to be paid, each under its command's
 * idempotency key, and stores each PaymentIntent. Rejects with `CardProviderUnavailable` when the
 * provider cannot answer (the command retries).
 */
export async function authorizeCardCharges(
  db: Db,
  provider: CardProvider,
  commandId: string,
  invoice: Pick<InvoiceRecord, 'id' | 'integratorId' | 'currency' | 'paymentMethods'>,
  methods: ChargeMethod[],
  balances: Map<string, number>,
  buyer?: { returnUrl: string },
): Promise<CardAuthorizations> {
  const cards = invoice.paymentMethods.filter((c) => methods.find((m) => m.id === c.payment_method_id)?.provider === 'card');
  if (!othersWouldPay(invoice.paymentMethods, methods, balances)) {
    return { verdicts: { chargeFailure: () => null, refundFailure: () => null }, unasked: new Set(cards.map((c) => c.payment_method_id)) };
  }
  const authorizations = new Map<string, Authorization>();
  const actions = new Map<string, string>();
  await Promise.all(
    cards.map(async (c) => {
      const method = methods.find((m) => m.id === c.payment_method_id)!;
      const holdfastRef = chargeRef(invoice.id, c.payment_method_id);
      await retirePreviousIntent(db, provider, commandId, invoice.id, c.payment_method_id);
      const charge = {
        commandId,
        paymentMethodId: c.payment_method_id,
        card: method.details,
        amount: c.amount,
        currency: invoice.currency,
        holdfastRef,
        integratorId: invoice.integratorId,
        description: `invoice ${invoice.id}`,
      };
      // The buyer on the page (the hosted checkout) can authenticate; an API pay is off-session.
      const a = buyer ? await provider.authorizeOnSession(charge, buyer.returnUrl) : await provider.authorize(charge);
      if (!a.ok && a.nextActionUrl) actions.set(c.payment_method_id, a.nextActionUrl);
      if (a.paymentIntentId && a.snapshot)
        await saveIntentSight(db, {
          provider: 'stripe',
          objectId: a.paymentIntentId,
          objectType: 'payment_intent',
          integratorId: invoice.integratorId,
          holdfastRef,
          snapshot: a.snapshot,
        });
      authorizations.set(c.payment_method_id, a);
    }),
  );
  return { verdicts: authorizedVerdicts(authorizations), unasked: new Set(), actions };
}

/** Authorizes an invoice's cards reading its methods and wallet balances as they stand (the standard invoice's pay). */
export async function authorizeInvoiceCards(
  db: Db,
  provider: CardProvider,
  commandId: string,
  invoice: InvoiceRecord,
  buyer?: { returnUrl: string },
): Promise<CardAuthorizations> {
  const methods = await chargeMethods<ChargeMethod & { balance: string | null }>(
    db,
    invoice.paymentMethods.map((c) => c.payment_method_id),
  );
  const balances = new Map(methods.filter((m) => m.wallet).map((m) => [m.wallet!, Number(m.balance ?? 0)]));
  return authorizeCardCharges(db, provider, commandId, invoice, methods, balances, buyer);
}

/** Stores a Refund as a call answered it, unless a later sight (a `refund.failed` event before a retried command's answer) is stored already. */
export async function saveRefundSight(db: Db, refund: ProviderObjectRecord): Promise<void> {
  const stored = await findProviderObject(db, refund.provider, refund.objectId);
  if (stored && !refundSightSupersedes(stored.snapshot.status, refund.snapshot.status)) return;
  await saveProviderObject(db, refund);
}

/**
 * Stores a PaymentIntent as a call or an event showed it, unless the stored sight is further
 * along (payment-intent-snapshot.rules.ts); answers whether it was stored. For every writer of a
 * PaymentIntent's snapshot: the commands here, and the handlers of Stripe's `payment_intent.*` events.
 */
export function saveIntentSight(db: Db, intent: ProviderObjectRecord): Promise<boolean> {
  return saveProviderObjectForward(db, intent, INTENT_RANK, INTENT_OPEN_RANK);
}

/**
 * Before a pay authorizes a card of an invoice: the PaymentIntent another command left behind the
 * charge's reference (a pay refused before it decided, whose hold was released — or not yet, the
 * provider down) leaves it, so that the reference has one PaymentIntent. A hold still open is
 * released first (`<command id>:cancel:<payment method id>:previous`); a captured one means the
 * invoice was paid, which a pay of an OPEN invoice never meets: it throws (the command retries,
 * for an operator to see). The same command's own intent stays: its retried authorization
 * answers that one again.
 */
async function retirePreviousIntent(db: Db, provider: CardProvider, commandId: string, invoiceId: string, paymentMethodId: string) {
  const previous = await storedIntent(db, invoiceId, paymentMethodId);
  if (!previous) return;
  const owner = (previous.snapshot.metadata as Record<string, unknown> | undefined)?.holdfast_command_id;
  if (owner === commandId) return;
  if (previous.snapshot.status === 'succeeded')
    throw new Error(
      `invoice ${invoiceId}: PaymentIntent ${previous.objectId} of payment method ${paymentMethodId} is captured while the invoice is open`,
    );
  if (previous.snapshot.status === 'requires_capture') {
    const snapshot = await provider.cancel(previous.objectId, `${cardCallKey(commandId, 'cancel', paymentMethodId)}:previous`);
    await saveIntentSight(db, { ...previous, snapshot });
  }
  await moveProviderObject(db, 'stripe', previous.objectId, `${previous.holdfastRef}:replaced:${previous.objectId}`);
}

/** The PaymentIntent of an invoice's card charge, as last stored (undefined: the charge went through no provider). */
export async function storedIntent(db: Db, invoiceId: string, paymentMethodId: string) {
  const [intent] = (await providerObjectsOf(db, chargeRef(invoiceId, paymentMethodId))).filter((o) => o.objectType === 'payment_intent');
  return intent;
}

/** The stored PaymentIntent of each card charge of an invoice, by payment method (methods without one are left out). */
export async function chargeIntents(
  db: Db,
  invoice: Pick<InvoiceRecord, 'id' | 'paymentMethods'>,
): Promise<Map<string, ProviderObjectRecord>> {
  const found = new Map<string, ProviderObjectRecord>();
  for (const c of invoice.paymentMethods) {
    const intent = await storedIntent(db, invoice.id, c.payment_method_id);
    if (intent) found.set(c.payment_method_id, intent);
  }
  return found;
}

/**
 * Reads again from the provider each PaymentIntent of an invoice's card charges that is still
 * waiting on its buyer (3-D Secure) and stores it as it stands: what a webhook announced, in
 * whatever order it came, is then read from the provider itself.
 */
export async function refreshAwaitedIntents(db: Db, provider: CardProvider, invoice: Pick<InvoiceRecord, 'id' | 'paymentMethods'>) {
  for (const intent of (await chargeIntents(db, invoice)).values()) {
    if (!['requires_action', 'requires_confirmation', 'processing'].includes(intent.snapshot.status as string)) continue;
    await saveProviderObject(db, { ...intent, snapshot: await provider.retrieve(intent.objectId) });
  }
}

/**
 * After a pay's decision committed: captures the authorizations of a paid invoice (state
 * SUCCESS), releases those of a failed one. Nothing while the invoice is undecided. Safe to run
 * any number of times (stored states, idempotency keys).
 */
export async function settleCardAuthorizations(db: Db, provider: CardProvider, commandId: string, invoice: InvoiceRecord): Promise<void> {
  if (invoice.state !== 'SUCCESS' && invoice.state !== 'FAILED') return;
  await captureOrRelease(db, provider, commandId, invoice);
}

/** Releases the authorizations of a pay that was refused before it decided (its invoice stays as it was). */
export function releaseCardAuthorizations(db: Db, provider: CardProvider, commandId: string, invoice: InvoiceRecord): Promise<void> {
  return captureOrRelease(db, provider, commandId, { ...invoice, state: 'FAILED' });
}

async function captureOrRelease(db: Db, provider: CardProvider, commandId: string, invoice: InvoiceRecord): Promise<void> {
  await Promise.all(
    invoice.paymentMethods.map(async (c) => {
      const intent = await storedIntent(db, invoice.id, c.payment_method_id);
      const status = intent?.snapshot.status;
      // A charge still awaiting its buyer's authentication (only a buyer-present pay has one) is closed with its failed pay.
      const awaiting = status === 'requires_action' && invoice.state !== 'SUCCESS';
      if (!intent || (status !== 'requires_capture' && !awaiting)) return;
      const snapshot =
        invoice.state === 'SUCCESS'
          ? await provider.capture(intent.objectId, cardCallKey(commandId, 'capture', c.payment_method_id))
          : await provider.cancel(intent.objectId, cardCallKey(commandId, 'cancel', c.payment_method_id));
      await saveIntentSight(db, { ...intent, snapshot });
    }),
  );
}

/**
 * Refunds an invoice's captured card charges in full (an escrow cancel), each once: a refund
 * stored behind `refundInvoiceId` is not asked for again, a hold never captured is released
 * instead, and the parts in `settled` (recorded already) are left alone. Answers each other
 * part's outcome by payment method: null when its money is back on the card (or never went
 * through the provider), else why the provider did not refund it (refused, or a stored Refund
 * that failed since).
 */
export async function refundCardCharges(
  db: Db,
  provider: CardProvider,
  commandId: string,
  paid: Pick<InvoiceRecord, 'id' | 'integratorId' | 'paymentMethods'>,
  refundInvoiceId: string,
  settled: ReadonlySet<string> = new Set(),
): Promise<Map<string, string | null>> {
  const outcomes = new Map<string, string | null>();
  await Promise.all(
    paid.paymentMethods.map(async (c) => {
      if (settled.has(c.payment_method_id)) return;
      outcomes.set(c.payment_method_id, null);
      const intent = await storedIntent(db, paid.id, c.payment_method_id);
      if (!intent) return;
      const holdfastRef = refundRef(refundInvoiceId, c.payment_method_id);
      const [stored] = (await providerObjectsOf(db, holdfastRef)).filter((o) => o.objectType === 'refund');
      if (stored) {
        if (stored.snapshot.status === 'failed' || stored.snapshot.status === 'canceled')
          outcomes.set(c.payment_method_id, 'refund_failed');
        return;
      }
      if (intent.snapshot.status === 'requires_capture') {
        // Never captured (its pay's capture had not run yet): releasing the hold is the refund.
        const snapshot = await provider.cancel(intent.objectId, cardCallKey(commandId, 'cancel', c.payment_method_id));
        await saveIntentSight(db, { ...intent, snapshot });
        return;
      }
      if (intent.snapshot.status !== 'succeeded') return;
      const refunded = await provider.refund(intent.objectId, c.amount, cardCallKey(commandId, 'refund', c.payment_method_id));
      if (refunded.refundId && refunded.snapshot)
        await saveRefundSight(db, {
          provider: 'stripe',
          objectId: refunded.refundId,
          objectType: 'refund',
          integratorId: paid.integratorId,
          holdfastRef,
          snapshot: refunded.snapshot,
        });
      if (!refunded.ok) outcomes.set(c.payment_method_id, refunded.reason);
    }),
  );
  return outcomes;
}

/**
 * The pay commands that left a card hold neither captured nor released for longer than
 * `olderThanMs` (the provider was down past their job's retries), once their invoice is decided:
 * run again, such a done command captures or releases it (the step after its decision runs on
 * every run). The command is named in the PaymentIntent's metadata (`holdfast_command_id`).
 */
export async function commandsWithUnsettledHolds(db: Db, olderThanMs: number): Promise<Array<{ id: string; kind: CommandKind }>> {
  const found = new Map<string, CommandKind>();
  for (const hold of await providerObjectsStuck(db, 'stripe', 'payment_intent', 'requires_capture', olderThanMs)) {
    const commandId = (hold.snapshot.metadata as Record<string, string> | undefined)?.holdfast_command_id;
    const invoiceId = /^invoice:([^:]+):charge:/.exec(hold.holdfastRef)?.[1];
    if (!commandId || !invoiceId || found.has(commandId)) continue;
    const invoice = await readInvoice(db, invoiceId);
    const command = await commandTarget(db, commandId);
    // An undecided invoice's command is pending: the stalled-command sweep already runs it.
    if (command?.state === 'done' && (invoice?.state === 'SUCCESS' || invoice?.state === 'FAILED')) found.set(commandId, command.kind);
  }
  return [...found].map(([id, kind]) => ({ id, kind }));
}
