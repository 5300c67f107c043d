import { Migration } from '@mikro-orm/migrations';

/**
 * The audit trail: one `audit_record` per operator action, written in the transaction of the
 * change it records, and sealed after the commit into one hash chain per integrator.
 *
 * - `audit_record`: who (`actor_kind` console | cli | client, `actor_id`, `actor_name`), what
 *   (`action`, `target_type`, `target_id`, `before`, `after`), why (`reason`), and the request
 *   it came from. Sealing sets `seq` (1, 2, … per integrator), `prev_hash` (the previous
 *   record's hash, null for the first), `hash` and `sealed_at`, together and once.
 * - `audit_chain`: each integrator's chain head (the last sealed `seq` and `hash`), so that
 *   removing the newest sealed records is seen too; its row is what a sealing run locks.
 * - Append-only, enforced by triggers: a DELETE or TRUNCATE of either table is refused; the one
 *   UPDATE of an audit record allowed is its sealing (an unsealed row gets all four sealing
 *   columns, every other column unchanged); a chain head only moves forward.
 * - `command.audit`: the actor, reason and request id a command carries from the request that
 *   submitted it to the runner that records the action in the command's transaction.
 */
export class Migration20261128230000AuditTrail extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table audit_record (
        id varchar(36) primary key,
        integrator_id varchar(36) not null,
        at timestamptz not null default now(),
        actor_kind varchar(16) not null check (actor_kind in ('console', 'cli', 'client')),
        actor_id varchar(255) not null,
        actor_name varchar(255) not null,
        action varchar(64) not null,
        target_type varchar(32) not null,
        target_id varchar(255) not null,
        reason varchar(1000) null,
        before jsonb null,
        after jsonb null,
        request_id varchar(128) null,
        seq bigint null check (seq >= 1),
        prev_hash varchar(64) null,
        hash varchar(64) null,
        sealed_at timestamptz null,
        constraint audit_record_seq_once unique (integrator_id, seq),
        check ((seq is null) = (hash is null) and (seq is null) = (sealed_at is null)),
        check (seq is not null or prev_hash is null)
      );`);
    this.addSql('create index audit_record_integrator_at_idx on audit_record (integrator_id, at, id);');
    this.addSql('create index audit_record_target_idx on audit_record (integrator_id, target_id);');
    this.addSql('create index audit_record_unsealed_idx on audit_record (integrator_id, at, id) where seq is null;');
    this.addSql(`
      create table audit_chain (
        integrator_id varchar(36) primary key,
        seq bigint not null default 0 check (seq >= 0),
        hash varchar(64) null,
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`
      create function audit_record_append_only() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'UPDATE' then
          raise exception 'audit_record is append-only: % refused', lower(tg_op) using errcode = '42501';
        end if;
        if old.seq is not null then
          raise exception 'audit record % is sealed: it never changes', old.id using errcode = '42501';
        end if;
        if new.seq is null or new.hash is null or new.sealed_at is null then
          raise exception 'audit record %: only its sealing updates it', old.id using errcode = '42501';
        end if;
        if (to_jsonb(new) - array['seq', 'prev_hash', 'hash', 'sealed_at']) is distinct from
           (to_jsonb(old) - array['seq', 'prev_hash', 'hash', 'sealed_at']) then
          raise exception 'audit record %: sealing cannot change what it records', old.id using errcode = '42501';
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger audit_record_append_only before update or delete on audit_record
        for each row execute function audit_record_append_only();`);
    this.addSql(`
      create trigger audit_record_no_truncate before truncate on audit_record
        for each statement execute function audit_record_append_only();`);
    this.addSql(`
      create function audit_chain_forward_only() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'UPDATE' then
          raise exception 'audit_chain is append-only: % refused', lower(tg_op) using errcode = '42501';
        end if;
        if new.integrator_id <> old.integrator_id or new.seq <= old.seq or new.hash is null then
          raise exception 'the audit chain of % only moves forward', old.integrator_id using errcode = '42501';
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger audit_chain_forward_only before update or delete on audit_chain
        for each row execute function audit_chain_forward_only();`);
    this.addSql(`
      create trigger audit_chain_no_truncate before truncate on audit_chain
        for each statement execute function audit_chain_forward_only();`);
    this.addSql('alter table command add column audit jsonb null;');
  }
}
