/**
 * What an account's balances and statement show: the source of a ledger posting, the invoice
 * of an escrow's phase, signed amounts in display form, balances per currency. Pure.
 */
import { displayAmount } from '../invoices/invoice.rules.js';

/** `USD 1.55`, `USD -1.55`: a signed amount in its currency's units. */
export function displaySigned(amount: number, currency: string): string {
  if (amount >= 0) return displayAmount(amount, currency);
  return displayAmount(-amount, currency).replace(' ', ' -');
}

/** What a ledger posting's reference says moved the money: an escrow phase, an invoice phase, a merge. */
export interface PostingSource {
  source_type: 'escrow' | 'invoice' | 'merge' | 'other';
  escrow_id: string;
  /** For an escrow phase, left for the caller to fill from the escrow (its phase invoice). */
  invoice_id: string;
  phase: string;
}

/** Reads a posting reference (`escrow:<id>:<phase>[:shares]`, `invoice:<id>:<phase>[:shares]`, `merge:<command>`). */
export function postingSource(reference: string): PostingSource {
  const [kind, id = '', phase = ''] = reference.split(':');
  if (kind === 'escrow') return { source_type: 'escrow', escrow_id: id, invoice_id: '', phase };
  if (kind === 'invoice') return { source_type: 'invoice', escrow_id: '', invoice_id: id, phase };
  if (kind === 'merge') return { source_type: 'merge', escrow_id: '', invoice_id: '', phase: 'merge' };
  return { source_type: 'other', escrow_id: '', invoice_id: '', phase: '' };
}

/** The invoice of an escrow's phase: the escrow invoice for pay, the commit or cancel invoice for those. */
export function phaseInvoiceId(
  escrow: { escrowInvoiceId: string; commitInvoiceId?: string | null; cancelInvoiceId?: string | null },
  phase: string,
): string {
  if (phase === 'commit') return escrow.commitInvoiceId ?? '';
  if (phase === 'cancel') return escrow.cancelInvoiceId ?? '';
  return escrow.escrowInvoiceId;
}

/** A wallet as balances and statements name it. */
export interface WalletOfAccount {
  walletId: string;
  currency: string;
  walletType: 'fiat' | 'standard' | 'convertible';
  balance: number;
  /** What open disputes hold of it (part of `balance`, which cannot be spent). */
  held: number;
}

/**
 * An account's balances per currency: what it can spend (all its wallets in it, less what open
 * disputes hold), the part of that which is convertible (token currencies: the wallet that
 * receives sales; 0 in fiat), what disputes hold, and what its ESCROWED escrows hold — each in
 * minor units and as a display string. Currencies in the order
 * of the account's wallets, then any only held in escrow.
 */
export function balancesView(wallets: WalletOfAccount[], held: Array<{ currency: string; held: number }>) {
  const currencies = [...new Set([...wallets.map((w) => w.currency), ...held.map((h) => h.currency)])];
  return currencies.map((currency) => {
    const mine = wallets.filter((w) => w.currency === currency);
    const spendable = mine.reduce((sum, w) => sum + w.balance - w.held, 0);
    const convertible = mine.filter((w) => w.walletType === 'convertible').reduce((sum, w) => sum + w.balance - w.held, 0);
    const disputed = mine.reduce((sum, w) => sum + w.held, 0);
    const inEscrow = held.find((h) => h.currency === currency)?.held ?? 0;
    return {
      currency,
      spendable,
      spendable_display: displaySigned(spendable, currency),
      convertible,
      convertible_display: displaySigned(convertible, currency),
      held: disputed,
      held_display: displaySigned(disputed, currency),
      held_in_escrow: inEscrow,
      held_in_escrow_display: displaySigned(inEscrow, currency),
    };
  });
}
