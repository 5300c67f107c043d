import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The database's environment, recorded once: the single row every process compares its own with. */
export const Environment = defineEntity({
  name: 'Environment',
  tableName: 'environment',
  properties: {
    onlyRow: p.boolean().primary().default(true),
    name: p.enum(['staging', 'production']).columnType('varchar(16)'),
    recordedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    recordedBy: p.string().length(200),
  },
});
export type IEnvironment = InferEntity<typeof Environment>;
