/**
 * The escrow phase's two statements, the one place a statement spans modules: a phase (pay,
 * commit, cancel) changes the escrow, its invoices, the ledger, the outbox and the command
 * together. Each statement is composed from fragments the owning repositories export
 * (escrow, invoice, command, ledger postings, outbox, payment methods); this file names no table.
 *
 * `readPhaseCommands(db, commandIds)`
 *   takes: the ids of escrow commands (one array parameter).
 *   returns: per command found, its state and stored result, the database's clock, and — when
 *   its escrow exists — the escrow, its escrow invoice, for a pending pay or cancel the
 *   invoice's payment methods with their wallets' balances, for a pending pay or commit
 *   whether it would pay an account merged into another, for a pending commit whether an open
 *   dispute froze it, and for a pending cancel whether it gives back value a dispute traced
 *   into it. No locks are taken.
 *
 * `writePhasePlans(db, plans)`
 *   takes: one JSON parameter per kind of row, each read with `jsonb_to_recordset(...) as
 *   v (column type, ...)`, so every column is named — escrow moves (`id, prev, next,
 *   commit_invoice_id, cancel_invoice_id, at`), escrow invoice states, phase invoices, outbox
 *   events, command results, postings and their entries.
 *   returns: the ids of the commands whose result it stored.
 *
 * Why one statement: a phase must write the escrow's move, its invoice, its postings, its
 * outbox events and the command's result atomically, and the ledger rows every phase touches
 * (escrow holding, clearing, the publisher's wallet) are the most contended in the system. As
 * one statement without an explicit transaction, PostgreSQL commits it on its own: those rows
 * are locked only while it commits, never while this process decides. The write is guarded
 * instead of locked: each escrow moves only from the state it was read in, and everything else
 * a phase writes is written only with that move (`where … in (select id from moved)`); the
 * command's result is stored only while it is pending; postings are unique per escrow and
 * phase (`escrow:<id>:<phase>`, ON CONFLICT DO NOTHING), so a phase run twice moves no money
 * twice. A batch whose statement fails is rerun command by command by the caller.
 */
import { disputedByMethodJsonSql, escrowFrozenByDisputeSql, escrowReturnsDisputedValueSql } from '../disputes/dispute.repository.js';
import { commandsByIdsSql, finishCommandsSql } from '../commands/command.repository.js';
import type { CommandKind, CommandResult } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { newId } from '../ids.js';
import type { StoredCharge, StoredLineItem } from '../invoices/invoice.entity.js';
import {
  insertSucceededInvoicesSql,
  joinInvoiceSql,
  paysMergedAccountSql,
  setInvoiceStatesSql,
  succeededInvoiceRow,
} from '../invoices/invoice.repository.js';
import type { InvoiceRecord } from '../invoices/invoice.rules.js';
import type { ChargeMethod } from '../invoices/settlement.service.js';
import { insertPostingsCtes } from '../ledger/ledger.repository.js';
import { mergeEntries, postingProblems } from '../ledger/ledger.rules.js';
import type { Posting } from '../ledger/ledger.service.js';
import { chargeMethodsSql } from '../payment-methods/payment-method.repository.js';
import { outboxInsertSql } from '../webhooks/outbox.repository.js';
import type { EventName } from '../webhooks/webhook.rules.js';
import { escrowColumnsSql, joinEscrowSql, moveEscrowsSql } from './escrow.repository.js';
import { escrowFromRow, type EscrowRecord, type EscrowRow, type EscrowStatus } from './escrow.rules.js';
import { currentTraceparent } from '../runtime/tracing-hooks.js';

export interface Loaded {
  escrow: EscrowRecord;
  invoice: InvoiceRecord;
  /** The escrow invoice's payment methods (pay and cancel only). */
  methods: ChargeMethod[];
  /** Their wallets' balances when read. */
  balances: Map<string, number>;
  /** Whether it would pay an account that was merged into another (pay and commit only). */
  paysMergedAccount: boolean;
  /** Whether an open dispute traced value into it (commit only): it is not committed while the dispute is open. */
  frozenByDispute: boolean;
  /** What open and lost disputes took of each card charge (cancel only): not refunded to the card again. */
  disputed: Map<string, number>;
  /**
   * Whether a dispute traced value into it that a cancel gives back to the buyer's wallet
   * (cancel only; an open dispute's or a lost one's `escrowed` hold): that cancel runs in a
   * transaction of its own, which holds (or claws back) what it gives back.
   */
  returnsDisputedValue: boolean;
}

export interface ReadCommand {
  id: string;
  kind: CommandKind;
  /** Its stored result, once done. */
  result: CommandResult | null;
  /** The database's clock when read: the `updated` of what this phase changes. */
  now: Date;
  loaded: Loaded | null;
}

/** What one command writes: its result, and — when its phase runs — the escrow's move and all that goes with it. */
export interface Plan {
  commandId: string;
  result: CommandResult;
  move?: {
    escrowId: string;
    from: EscrowStatus;
    to: EscrowStatus;
    commitInvoiceId: string | null;
    cancelInvoiceId: string | null;
    at: Date;
    /** The escrow invoice's new state (pay). */
    invoice?: { id: string; state: string; failureReason: string | null };
    /** The phase invoice made (commit, cancel). */
    phaseInvoice?: InvoiceRecord;
    events: Array<{ integratorId: string; name: EventName; message: unknown }>;
    postings: Posting[];
  };
}

/** One row of the read: the command's columns, the escrow's, and its invoice's (prefixed where names clash). */
// biome-ignore lint/suspicious/noExplicitAny: a row of many modules' columns, each read by name just below
type PhaseRow = EscrowRow & Record<string, any>;

const READ_SQL = `with c as (${commandsByIdsSql('?::varchar[]')})
     select c.id as command_id, c.kind as command_kind, c.state as command_state, c.result_status, c.result_body, now() as tx_now,
            ${escrowColumnsSql('e')},
            i.invoice_type, i.state, i.reference_type, i.reference_id, i.description, i.metadata as invoice_metadata,
            i.failure_reason, i.payment_methods, i.line_items, i.created_at as invoice_created_at, i.updated_at as invoice_updated_at,
            case when c.state = 'pending' and c.kind in ('escrow.pay', 'escrow.cancel') then (
              select coalesce(json_agg(json_build_object('method', to_jsonb(m), 'balance', m.balance::text)), '[]'::json)
                from (${chargeMethodsSql(`select x ->> 'payment_method_id' from jsonb_array_elements(i.payment_methods) x`)}) m
            ) end as methods,
            case when c.state = 'pending' and c.kind in ('escrow.pay', 'escrow.commit') then ${paysMergedAccountSql('i')} else false end as pays_merged,
            case when c.state = 'pending' and c.kind = 'escrow.commit' then ${escrowFrozenByDisputeSql('e.id')} else false end as frozen,
            case when c.state = 'pending' and c.kind = 'escrow.cancel' then ${escrowReturnsDisputedValueSql('e.id')} else false end as returns_disputed,
            case when c.kind = 'escrow.cancel' then ${disputedByMethodJsonSql('i.id')} end as disputed
       from c
       ${joinEscrowSql('e', 'c.target_id')}
       ${joinInvoiceSql('i', 'e.escrow_invoice_id')}`;

/** Reads commands with their escrows, escrow invoices and, for pay and cancel, payment methods and wallet balances. */
export async function readPhaseCommands(db: Db, ids: string[]): Promise<Map<string, ReadCommand>> {
  const rows = await db.execute<PhaseRow[]>(READ_SQL, [ids]);
  const read = new Map<string, ReadCommand>();
  for (const r of rows) {
    const command: ReadCommand = {
      id: r.command_id,
      kind: r.command_kind,
      result: r.command_state === 'done' ? { status: r.result_status, body: r.result_body } : null,
      now: new Date(r.tx_now),
      loaded: null,
    };
    if (r.id !== null) {
      const invoice: InvoiceRecord = {
        id: r.escrow_invoice_id,
        integratorId: r.integrator_id,
        accountId: r.account_id,
        escrowId: r.id,
        invoiceType: r.invoice_type,
        state: r.state,
        referenceType: r.reference_type,
        referenceId: r.reference_id,
        description: r.description,
        metadata: r.invoice_metadata,
        currency: r.currency,
        totalAmount: Number(r.total_amount),
        failureReason: r.failure_reason,
        paymentMethods: r.payment_methods as StoredCharge[],
        lineItems: r.line_items as StoredLineItem[],
        createdAt: new Date(r.invoice_created_at),
        updatedAt: new Date(r.invoice_updated_at),
      };
      const found = (r.methods ?? []) as Array<{ method: ChargeMethod & { balance: unknown }; balance: string | null }>;
      const balances = new Map<string, number>();
      for (const f of found) if (f.method.wallet && f.balance !== null) balances.set(f.method.wallet, Number(f.balance));
      command.loaded = {
        escrow: escrowFromRow(r),
        invoice,
        methods: found.map((f) => f.method),
        balances,
        paysMergedAccount: r.pays_merged === true,
        frozenByDispute: r.frozen === true,
        returnsDisputedValue: r.returns_disputed === true,
        disputed: new Map(Object.entries((r.disputed ?? {}) as Record<string, number | string>).map(([k, v]) => [k, Number(v)])),
      };
    }
    read.set(command.id, command);
  }
  return read;
}

/** `jsonb_to_recordset(?::jsonb) as v (<columns>)`: one parameter's rows, every column named and typed. */
const rowsOf = (columns: string) => `select * from jsonb_to_recordset(?::jsonb) as v (${columns})`;

/** Rows that go with a move are written only when the escrow moved (`moved`: the ids the guarded update returned). */
const MOVED = 'v.escrow_id in (select id from moved)';

const WRITE_SQL = `with moves as (${rowsOf('id varchar, prev varchar, next varchar, commit_invoice_id varchar, cancel_invoice_id varchar, at timestamptz')}),
     invoice_states as (${rowsOf('escrow_id varchar, id varchar, state varchar, failure_reason varchar, at timestamptz')}),
     phase_invoices as (${rowsOf(
       `id varchar, integrator_id varchar, account_id varchar, escrow_id varchar, invoice_type varchar, reference_type varchar,
        reference_id varchar, description varchar, metadata jsonb, currency varchar, total_amount bigint, payment_methods jsonb,
        line_items jsonb, at timestamptz`,
     )}),
     events as (${rowsOf('ord int, escrow_id varchar, id varchar, integrator_id varchar, event_name varchar, message jsonb, traceparent varchar')}),
     results as (${rowsOf('id varchar, escrow_id varchar, status int, body jsonb')}),
     postings as (${rowsOf('escrow_id varchar, id varchar, integrator_id varchar, reference varchar, description varchar')}),
     entries as (${rowsOf('posting_id varchar, ledger_account_id varchar, currency varchar, amount bigint')}),
     moved as (${moveEscrowsSql('moves')}),
     invoice_updates as (${setInvoiceStatesSql('invoice_states', MOVED)}),
     invoice_inserts as (${insertSucceededInvoicesSql('phase_invoices', MOVED)}),
     outbox_inserts as (${outboxInsertSql(`select v.id, v.integrator_id, v.event_name, v.message, v.traceparent from events v where ${MOVED} order by v.ord`)}),
     done as (${finishCommandsSql('results', `v.escrow_id is null or ${MOVED}`)}),
     ${insertPostingsCtes(
       'phase',
       `select v.id, v.integrator_id, v.reference, v.description from postings v where ${MOVED}`,
       'select v.posting_id, v.ledger_account_id, v.currency, v.amount from entries v',
     )}
     select id from done`;

/**
 * Every plan's writes in one statement (fixed text, so it is prepared once). Each escrow moves
 * only from the state it was read in; what goes with a move is written only when it happened.
 * The balance trigger updates each account the entries touch once, in account order. Returns
 * the commands whose result was stored.
 */
export async function writePhasePlans(db: Db, plans: Plan[]): Promise<Set<string>> {
  const moves = plans.flatMap((p) => (p.move ? [p.move] : [])).sort((a, b) => (a.escrowId < b.escrowId ? -1 : 1));
  const postings = moves.flatMap((m) =>
    m.postings.map((posting) => {
      const problems = postingProblems(posting.entries);
      if (problems.length) throw new Error(`unbalanced or malformed posting ${posting.reference}: ${problems.join('; ')}`);
      return { escrowId: m.escrowId, id: newId('pst'), posting };
    }),
  );
  // The events join the trace the statement runs in (tracing on): with several commands in one
  // statement, that of the command whose run wrote it.
  const traceparent = currentTraceparent();
  const rows = await db.execute<Array<{ id: string }>>(WRITE_SQL, [
    JSON.stringify(
      moves.map((m) => ({
        id: m.escrowId,
        prev: m.from,
        next: m.to,
        commit_invoice_id: m.commitInvoiceId,
        cancel_invoice_id: m.cancelInvoiceId,
        at: m.at,
      })),
    ),
    JSON.stringify(
      moves.flatMap((m) =>
        m.invoice
          ? [{ escrow_id: m.escrowId, id: m.invoice.id, state: m.invoice.state, failure_reason: m.invoice.failureReason, at: m.at }]
          : [],
      ),
    ),
    JSON.stringify(moves.flatMap((m) => (m.phaseInvoice ? [succeededInvoiceRow(m.phaseInvoice)] : []))),
    JSON.stringify(
      moves
        .flatMap((m) =>
          m.events.map((e) => ({
            escrow_id: m.escrowId,
            id: newId('evt'),
            integrator_id: e.integratorId,
            event_name: e.name,
            message: e.message,
            traceparent,
          })),
        )
        .map((e, i) => ({ ord: i + 1, ...e })),
    ),
    JSON.stringify(
      plans.map((p) => ({ id: p.commandId, escrow_id: p.move?.escrowId ?? null, status: p.result.status, body: p.result.body })),
    ),
    JSON.stringify(
      postings.map((p) => ({
        escrow_id: p.escrowId,
        id: p.id,
        integrator_id: p.posting.integratorId,
        reference: p.posting.reference,
        description: p.posting.description.slice(0, 200),
      })),
    ),
    JSON.stringify(
      postings.flatMap((p) =>
        mergeEntries(p.posting.entries).map((e) => ({
          posting_id: p.id,
          ledger_account_id: e.account,
          currency: e.currency,
          amount: e.amount,
        })),
      ),
    ),
  ]);
  return new Set(rows.map((r) => r.id));
}
