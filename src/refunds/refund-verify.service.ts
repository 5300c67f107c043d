/**
 * The refunds module's `ledger verify` checks: no payment method and no line item has had back
 * more than it paid, each refund posting moved exactly the parts of its refund that were posted,
 * and each card part reversed after it was posted has its one reversing posting.
 */
import type { LedgerCheck } from '../ledger/ledger-verify.service.js';
import { overRefundedLines, overRefundedMethods, refundAmountMismatches, refundReversalMismatches } from './refund.repository.js';

export const refundLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(
    await overRefundedMethods(db, found.cap),
    (r) => `invoice ${r.invoice_id}: payment method ${r.payment_method_id} paid ${r.paid} but had ${r.back} back in refunds`,
  );
  found.add(
    await refundAmountMismatches(db, found.cap),
    (r) => `refund invoice ${r.id}: its parts that went through total ${r.succeeded} but its posting moved ${r.moved}`,
  );
  found.add(
    await refundReversalMismatches(db, found.cap),
    (r) =>
      `invoice ${r.invoice_id}: its card part to payment method ${r.payment_method_id} was reversed for ${r.reversed} but reversing postings moved ${r.moved}`,
  );
  found.add(
    await overRefundedLines(db, found.cap),
    (r) => `invoice ${r.invoice_id}: line item ${r.line_item_id} cost ${r.paid} but had ${r.back} back in refunds`,
  );
};
