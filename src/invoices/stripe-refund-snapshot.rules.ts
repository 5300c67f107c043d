/**
 * Which sight of a Stripe Refund is kept: Stripe's events arrive late, twice or out of order, and
 * a Refund has no version to compare. Its statuses only move forward — `pending` (or
 * `requires_action`) to `succeeded`, and `succeeded` or `pending` to `failed` or `canceled`, which
 * are final — so the sight further along wins and an equal one changes nothing.
 */

const RANK: Record<string, number> = { requires_action: 0, pending: 0, succeeded: 1, failed: 2, canceled: 2 };

/** Whether a Refund seen now (`seen` status) should replace the one stored (`stored` status). */
export function refundSightSupersedes(stored: unknown, seen: unknown): boolean {
  const before = RANK[String(stored)] ?? -1;
  const now = RANK[String(seen)];
  return now !== undefined && now > before;
}
