import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** How far an integrator has moved its staging test clock ahead of real time (no row: real time). */
export const SandboxClock = defineEntity({
  name: 'SandboxClock',
  tableName: 'sandbox_clock',
  properties: {
    integratorId: p.string().primary().length(36),
    offsetSeconds: p.bigint('number'),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type ISandboxClock = InferEntity<typeof SandboxClock>;
