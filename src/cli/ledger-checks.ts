/**
 * `holdfast ledger verify` puts together the ledger's own invariants and every module's checks
 * (`LEDGER_CHECKS`), as the worker puts together every module's command runners: the ledger
 * knows no module, each module knows its own rows.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { disputeLedgerChecks } from '../disputes/dispute-verify.service.js';
import { escrowLedgerChecks } from '../escrow/escrow-verify.service.js';
import { invoiceLedgerChecks } from '../invoices/invoice-verify.service.js';
import { type LedgerCheck, type VerifyReport, verifyLedger } from '../ledger/ledger-verify.service.js';
import { payoutLedgerChecks } from '../payouts/payout-verify.service.js';
import { refundLedgerChecks } from '../refunds/refund-verify.service.js';
import { exchangeLedgerChecks } from '../tokens/conversion-verify.service.js';

/** Every module's checks, in the order their problems are listed. */
export const LEDGER_CHECKS: readonly LedgerCheck[] = [
  escrowLedgerChecks,
  invoiceLedgerChecks,
  refundLedgerChecks,
  payoutLedgerChecks,
  exchangeLedgerChecks,
  disputeLedgerChecks,
];

/** Every ledger, escrow, invoice, refund, payout, exchange and dispute invariant, on one snapshot; at most `cap` problems reported (all counted). */
export function verifyAll(em: EntityManager, cap?: number): Promise<VerifyReport> {
  return verifyLedger(em, LEDGER_CHECKS, cap);
}
