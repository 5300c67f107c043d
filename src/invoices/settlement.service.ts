/**
 * How an invoice's money moves: where each charge comes from (and whether it would succeed
 * now), and where the line amounts and the recipients' shares go. Shared by escrow (pay into
 * holding, commit out of it, cancel back) and standard invoices (straight through).
 */
import type { Db } from '../db/sql.js';
import { balancesOf } from '../ledger/ledger.repository.js';
import { chargeMethods, convertibleWalletBeside } from '../payment-methods/payment-method.repository.js';
import { lockForPosting, systemAccount, type Posting } from '../ledger/ledger.service.js';
import type { EntryInput } from '../ledger/ledger.rules.js';
import type { CardVerdicts } from '../rails/card-processor.port.js';
import type { StoredCharge, StoredLineItem } from './invoice.entity.js';

/** How one payment method fares when charged, decided before anything is posted. */
export type ChargeOutcome = { ok: true } | { ok: false; reason: string };

export interface ChargeSource {
  paymentMethodId: string;
  amount: number;
  /** Ledger account the money comes from (and a refund goes back to). */
  account: string;
  outcome: ChargeOutcome;
  /** Why a refund to this method fails (a sandbox card whose refunds fail; a method gone), if it does. */
  refundFailure?: string;
}

/** Why a refund to this method fails as decided at once (the sandbox card whose refunds fail); a real processor decides when refunding. */
function refundFailureOf(cards: CardVerdicts, m: ChargeMethod): { refundFailure?: string } {
  const failure = m.provider === 'card' ? cards.refundFailure(m.details, m.id) : null;
  return failure ? { refundFailure: failure } : {};
}

/** All-or-nothing: the first failing charge names the failure of the whole payment. */
export function paymentFailure(sources: ChargeSource[]): string | undefined {
  for (const s of sources) if (!s.outcome.ok) return s.outcome.reason;
  return undefined;
}

/** A payment method as charging sees it: provider, details (a card's outcome or provider ids), wallet account and balance, owner blocked. */
export interface ChargeMethod {
  id: string;
  provider: string;
  details: Record<string, unknown>;
  /** Its wallet ledger account (wallet methods only). */
  wallet: string | null;
  owner_blocked: boolean;
}

/**
 * Where each charge comes from and whether it would succeed now: a card by the card verdicts
 * (the sandbox's test number, a real processor's authorization), a wallet by its balance (locked when `lockWallets`, in the one order of
 * `lockForPosting`, so the balance checked is the balance posted against), POBO always. Every
 * statement runs on `db` (the caller's transaction), system accounts made on first use too.
 */
export async function prepareCharges(
  db: Db,
  integratorId: string,
  currency: string,
  charges: StoredCharge[],
  lockWallets: boolean,
  cards: CardVerdicts,
): Promise<ChargeSource[]> {
  const methods = await chargeMethods<ChargeMethod>(
    db,
    charges.map((c) => c.payment_method_id),
  );
  const wallets = methods.filter((m) => m.wallet).map((m) => m.wallet!);
  const balances = lockWallets
    ? await lockForPosting(db, wallets)
    : new Map(wallets.length ? (await balancesOf(db, wallets)).map((r) => [r.id, r.balance]) : []);
  return evaluateCharges(db, integratorId, currency, charges, methods, balances, cards);
}

/**
 * Decides each charge from its method (see `prepareCharges`). `balances` holds the wallets'
 * balances; a wallet charge that would succeed is taken off it, so charges decided together
 * (one batch) never spend the same money twice.
 */
export async function evaluateCharges(
  db: Db,
  integratorId: string,
  currency: string,
  charges: StoredCharge[],
  methods: ChargeMethod[],
  balances: Map<string, number>,
  cards: CardVerdicts,
): Promise<ChargeSource[]> {
  const sources: ChargeSource[] = [];
  for (const charge of charges) {
    const m = methods.find((x) => x.id === charge.payment_method_id);
    if (!m) {
      sources.push({
        paymentMethodId: charge.payment_method_id,
        amount: charge.amount,
        account: '',
        outcome: { ok: false, reason: 'payment_method_unavailable' },
        refundFailure: 'payment_method_unavailable',
      });
    } else if (m.owner_blocked) {
      // A blocked buyer cannot pay (blocked after the purchase was created). A refund still finds its account.
      const account =
        m.wallet ?? (await systemAccount(db, integratorId, m.provider === 'card' ? 'card_clearing' : 'pobo_clearing', currency));
      sources.push({
        paymentMethodId: m.id,
        amount: charge.amount,
        account,
        outcome: { ok: false, reason: 'account_blocked' },
        ...refundFailureOf(cards, m),
      });
    } else if (m.wallet) {
      const balance = balances.get(m.wallet) ?? 0;
      const ok = balance >= charge.amount;
      if (ok) balances.set(m.wallet, balance - charge.amount);
      sources.push({
        paymentMethodId: m.id,
        amount: charge.amount,
        account: m.wallet,
        outcome: ok ? { ok: true } : { ok: false, reason: 'insufficient_funds' },
      });
    } else {
      const kind = m.provider === 'card' ? 'card_clearing' : 'pobo_clearing';
      const verdict = m.provider === 'card' ? cards.chargeFailure(m.details, m.id) : null;
      // A card nothing decided (no authorization) fails: it is never charged unasked.
      const failure = verdict === undefined ? 'card_not_authorized' : verdict;
      sources.push({
        paymentMethodId: m.id,
        amount: charge.amount,
        account: await systemAccount(db, integratorId, kind, currency),
        outcome: failure ? { ok: false, reason: failure } : { ok: true },
        ...refundFailureOf(cards, m),
      });
    }
  }
  return sources;
}

/** For a token currency, a seller's share lands in the seller's convertible wallet. */
async function payoutWallet(db: Db, currency: string, destination: string): Promise<string> {
  if (currency === 'USD') return destination;
  return (await convertibleWalletBeside(db, destination)) ?? destination;
}

/**
 * The postings that settle line items: `from` entries (the money leaving, negative) plus each
 * line's amount landing in its recipients' source wallets (the integrator's default wallet when
 * blank) and the rest of the line in the default wallet; then each share moving on to its
 * destination. References are `<reference>` and `<reference>:shares`.
 */
export async function settle(
  db: Db,
  input: {
    integratorId: string;
    currency: string;
    reference: string;
    description: string;
    from: EntryInput[];
    lineItems: StoredLineItem[];
  },
): Promise<Posting[]> {
  const { integratorId, currency } = input;
  const publisher = await systemAccount(db, integratorId, 'publisher_wallet', currency);
  const toSources: EntryInput[] = [...input.from];
  const toDestinations: EntryInput[] = [];
  for (const line of input.lineItems) {
    let rest = line.amount;
    for (const r of line.recipients) {
      const source = r.source_wallet_id || publisher;
      toSources.push({ account: source, currency, amount: r.amount });
      toDestinations.push(
        { account: source, currency, amount: -r.amount },
        { account: await payoutWallet(db, currency, r.destination_wallet_id), currency, amount: r.amount },
      );
      rest -= r.amount;
    }
    if (rest > 0) toSources.push({ account: publisher, currency, amount: rest });
  }
  const postings: Posting[] = [{ integratorId, reference: input.reference, description: input.description, entries: toSources }];
  if (toDestinations.length) {
    postings.push({
      integratorId,
      reference: `${input.reference}:shares`,
      description: `${input.description} shares`,
      entries: toDestinations,
    });
  }
  return postings;
}
