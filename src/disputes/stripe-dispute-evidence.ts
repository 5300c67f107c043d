/**
 * Evidence of a Stripe dispute goes to Stripe first (`POST /v1/disputes/{id}`): the fields the
 * request sent (an empty string clears one at Stripe too; fields Stripe holds that Holdfast was
 * not sent stay as they are) and, with `submit`, the submission. Saving without `submit` stages
 * the fields at Stripe as well, so Stripe's Dashboard and Holdfast show the same evidence.
 *
 * The call runs before the saving transaction, holding no lock; only once Stripe took the
 * evidence is it saved in Holdfast. Stripe unreachable (down, a timeout, a 5xx, a 429) answers
 * 503 `PROVIDER_UNAVAILABLE` and changes nothing in Holdfast; the client sends the request again
 * (a new Idempotency-Key, or the same one: a 503 is not stored). The call's own idempotency key
 * is derived from the dispute, the evidence Holdfast had and what was sent, so a retry of a
 * request that reached Stripe is answered by Stripe from its first run, and a later change is a
 * new call.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { CardProviderUnavailable, type CardProcessor } from '../rails/card-processor.port.js';
import { disputeView, EVIDENCE_FIELDS, type DisputeRecord, type Evidence } from './dispute.rules.js';

const unavailable = (message: string) =>
  new AppError('unavailable', message, { codes: ['PROVIDER_UNAVAILABLE'], headers: { 'Retry-After': '30' } });

/** The idempotency key of an evidence call: `dispute-evidence:<dispute id>:<digest of what Holdfast had, what was sent, submit>`. */
export function evidenceCallKey(d: Pick<DisputeRecord, 'id' | 'evidence'>, sent: Evidence, submit: boolean): string {
  const ordered = (e: Evidence) => EVIDENCE_FIELDS.filter((f) => e[f] !== undefined).map((f) => [f, e[f]]);
  const digest = createHash('sha256')
    .update(JSON.stringify([ordered(d.evidence), ordered(sent), submit]))
    .digest('hex')
    .slice(0, 32);
  return `dispute-evidence:${d.id}:${digest}`;
}

/**
 * Gives a Stripe dispute's evidence to Stripe (and submits it with `submit`) through the card
 * processor; throws 503 when Stripe cannot answer or no Stripe processor runs here, 409
 * `DISPUTE_STATE_ERROR` when Stripe refuses it.
 */
export async function sendEvidenceToStripe(d: DisputeRecord, sent: Evidence, submit: boolean, cards: CardProcessor): Promise<void> {
  const update = cards.provider?.updateDispute?.bind(cards.provider);
  if (!update || !d.providerDisputeId)
    throw unavailable('This dispute is Stripe’s, and the Stripe card processor is not configured here; nothing was saved.');
  const evidence: Record<string, string> = {};
  for (const field of EVIDENCE_FIELDS) if (sent[field] !== undefined) evidence[field] = sent[field]!;
  let answer: Awaited<ReturnType<typeof update>>;
  try {
    answer = await update(d.providerDisputeId, evidence, submit, evidenceCallKey(d, sent, submit));
  } catch (err) {
    if (err instanceof CardProviderUnavailable)
      throw unavailable('Stripe is unavailable; the evidence was neither sent nor saved. Try again shortly.');
    throw err;
  }
  if (!answer.ok)
    throw new AppError('invalid_state', `Stripe did not take the evidence (${answer.reason}); nothing was saved.`, {
      codes: ['DISPUTE_STATE_ERROR'],
      payload: disputeView(d),
    });
}
