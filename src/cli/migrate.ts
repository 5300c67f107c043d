/** `holdfast migrate`: the release step — create the database when missing and apply the migrations. */
import { type Command, withOrm, stdout } from './cli-support.js';

export const migrateCommands: Record<string, Command> = {
  migrate: {
    summary: 'create the database and apply migrations',
    usage: `holdfast migrate

Creates the database when missing and applies every pending checked-in migration.`,
    options: {},
    async run() {
      const applied = await withOrm('write', async (_orm, names) => names);
      stdout().write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
    },
  },
};
