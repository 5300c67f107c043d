/**
 * Which adapter each money rail runs on (pure). Holdfast reaches card processing, identity
 * checks and payouts through three ports; each has a `sandbox` adapter (deterministic test
 * cards, the last-name verifier, payouts that go nowhere) and a real one. Staging and the
 * embedded start default to the sandbox; production refuses to start while any rail is on it.
 */

export const RAILS = {
  cards: { variable: 'CARD_PROCESSOR', adapters: ['sandbox', 'stripe'] },
  identity: { variable: 'IDENTITY_VERIFIER', adapters: ['sandbox', 'stripe'] },
  payouts: { variable: 'PAYOUT_RAIL', adapters: ['sandbox', 'paypal'] },
} as const;

export type Rail = keyof typeof RAILS;
export type RailAdapter<R extends Rail> = (typeof RAILS)[R]['adapters'][number];
export type RailChoice = { [R in Rail]: RailAdapter<R> };

/** The variables of the rails left on their sandbox adapter, in the ports' order. */
export function sandboxRails(choice: RailChoice): string[] {
  return (Object.keys(RAILS) as Rail[]).filter((rail) => choice[rail] === 'sandbox').map((rail) => RAILS[rail].variable);
}
