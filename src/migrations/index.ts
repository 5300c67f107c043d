import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125000000Foundation } from './Migration20261125000000Foundation.js';

/** Every checked-in migration, oldest first; listed statically so tsx and dist/ load the same set. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261125000000Foundation', class: Migration20261125000000Foundation },
];
