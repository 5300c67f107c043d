import { Migration } from '@mikro-orm/migrations';

/**
 * Balances are applied at commit (a deferred constraint trigger) instead of at each entry
 * insert: the rows every posting touches (escrow holding, clearing, the integrator's default
 * wallet) are then locked only while the transaction commits, not for the rest of it. The
 * no-overdraft check still holds: it is the balance row's CHECK, evaluated by those updates.
 */
export class Migration20261126030000DeferredBalances extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop trigger ledger_entry_apply on ledger_entry;`);
    this.addSql(`
      create constraint trigger ledger_entry_apply after insert on ledger_entry
        deferrable initially deferred for each row execute function ledger_apply_entry();`);
  }
}
