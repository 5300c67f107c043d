/**
 * The escrow phases a worker runs for a command: pay, commit, cancel. This is the hot path,
 * and it is built for few round trips and short locks:
 *
 * - Commands that reach the worker together (the same turn of the event loop) run as one
 *   batch: one statement reads them all (their escrows, invoices and payment methods), one
 *   statement writes every phase's outcome.
 * - Neither statement runs inside an explicit transaction. The write is guarded instead: each
 *   escrow moves only if it is still in the state it was read in, and everything else a phase
 *   writes (its invoice, outbox events, ledger postings, the command's result) is written only
 *   with that move — all in the one statement, which PostgreSQL commits on its own. The
 *   ledger rows every phase touches (escrow holding, clearing, the publisher's wallet) are so
 *   locked only while that statement commits, never while this process works.
 * - A command whose escrow moved meanwhile is read again and decided again; a batch whose write
 *   fails (a wallet spent meanwhile: the database refuses the overdraft) is rerun command by
 *   command, so one command's failure is never another's.
 *
 * Postings are unique per escrow and phase, and a command's result is stored once: a job that
 * runs twice (or two jobs for one escrow) cannot move money twice.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorProfile } from '../auth/auth.service.js';
import type { CommandKind, CommandResult } from '../commands/command.registry.js';
import { batchedPerPool } from '../db/batch.js';
import { autocommit, type Executor } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import type { StoredCharge, StoredLineItem } from '../invoices/invoice.entity.js';
import { invoiceView, type InvoiceRecord } from '../invoices/invoice.rules.js';
import { CHARGE_METHOD_COLUMNS, evaluateCharges, paymentFailure, settle, type ChargeMethod } from '../invoices/settlement.service.js';
import { isOverdraft, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { mergeEntries, postingProblems } from '../ledger/ledger.rules.js';
import { failpoint } from '../runtime/failpoints.js';
import type { EventName } from '../webhooks/webhook.rules.js';
import {
  escrowFromRow,
  escrowStateConflict,
  escrowView,
  transitionDecision,
  TRANSITION_TARGET,
  type EscrowRecord,
  type EscrowStatus,
  type EscrowTransition,
} from './escrow.rules.js';

const TRANSITIONS: Partial<Record<CommandKind, EscrowTransition>> = {
  'escrow.pay': 'pay',
  'escrow.commit': 'commit',
  'escrow.cancel': 'cancel',
};

/** Rounds of read-decide-write before a batch gives up (its jobs then retry with backoff). */
const MAX_ROUNDS = 20;

interface Loaded {
  escrow: EscrowRecord;
  invoice: InvoiceRecord;
  /** The escrow invoice's payment methods (pay and cancel only). */
  methods: ChargeMethod[];
  /** Their wallets' balances when read. */
  balances: Map<string, number>;
}

interface ReadCommand {
  id: string;
  kind: CommandKind;
  /** Its stored result, once done. */
  result: CommandResult | null;
  /** The database's clock when read: the `updated` of what this phase changes. */
  now: Date;
  loaded: Loaded | null;
}

/**
 * Reads commands with their escrows, escrow invoices and, for
 * pay and cancel, payment methods and wallet balances: one statement, no locks held.
 */
async function readCommands(db: Executor, ids: string[]): Promise<Map<string, ReadCommand>> {
  const rows = await db.execute<Array<Record<string, any>>>(
    `with c as (select id, kind, target_id, state, result_status, result_body from command where id = any (?::varchar[]))
     select c.id as command_id, c.kind as command_kind, c.state as command_state, c.result_status, c.result_body, now() as tx_now,
            e.id, e.integrator_id, e.account_id, e.status, e.currency, e.total_amount, e.escrow_invoice_id, e.commit_invoice_id,
            e.cancel_invoice_id, e.metadata, e.created_at, e.updated_at,
            i.invoice_type, i.state, i.reference_type, i.reference_id, i.description, i.metadata as invoice_metadata,
            i.failure_reason, i.payment_methods, i.line_items, i.created_at as invoice_created_at, i.updated_at as invoice_updated_at,
            case when c.state = 'pending' and c.kind in ('escrow.pay', 'escrow.cancel') then (
              select coalesce(json_agg(json_build_object('method', to_jsonb(m), 'balance', m.balance::text)), '[]'::json)
                from (select ${CHARGE_METHOD_COLUMNS}, la.balance
                        from payment_method pm left join ledger_account la on la.payment_method_id = pm.id
                       where pm.id in (select x ->> 'payment_method_id' from jsonb_array_elements(i.payment_methods) x)) m
            ) end as methods
       from c
       left join escrow e on e.id = c.target_id
       left join invoice i on i.id = e.escrow_invoice_id`,
    [ids],
  );
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
      command.loaded = { escrow: escrowFromRow(r), invoice, methods: found.map((f) => f.method), balances };
    }
    read.set(command.id, command);
  }
  return read;
}

/** What one command writes: its result, and — when its phase runs — the escrow's move and all that goes with it. */
interface Plan {
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

/** The invoice of a commit or cancel phase (SUCCESS), copied from the escrow invoice. */
function phaseInvoice(escrow: EscrowRecord, from: InvoiceRecord, type: string, charges: StoredCharge[], at: Date): InvoiceRecord {
  return {
    ...from,
    id: newId('inv'),
    invoiceType: `${type}${escrow.currency === 'USD' ? '' : '_virtual'}`,
    state: 'SUCCESS',
    failureReason: null,
    paymentMethods: charges,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Decides one command from what was read: its answer, and what its phase writes. `balances`
 * is shared by the batch (money one pay spends is gone for the next). A refusal is not thrown:
 * it is a result of the batch's one write, made from its AppError by `errorReply`.
 */
async function plan(em: EntityManager, command: ReadCommand, balances: Map<string, number>): Promise<Plan> {
  const transition = TRANSITIONS[command.kind];
  if (!transition) throw new Error(`command ${command.id} (${command.kind}) is not an escrow command`);
  if (!command.loaded) return { commandId: command.id, result: errorReply(AppError.notFound('ESCROW_GET_ERROR', 'Escrow not found.')) };
  const { escrow: read, invoice: escrowInvoice, methods } = command.loaded;
  const integrator = (await integratorProfile(em, read.integratorId)).name;
  const decision = transitionDecision(read.status, transition);
  if (decision === 'already') return { commandId: command.id, result: { status: 200, body: success(escrowView(read, integrator)) } };
  if (decision === 'conflict') return { commandId: command.id, result: errorReply(escrowStateConflict(read, transition, integrator)) };
  // An authorized escrow whose buyer has not named its payment methods (the invoice's pay does): nothing to charge yet.
  if (transition === 'pay' && escrowInvoice.paymentMethods.length === 0) {
    return {
      commandId: command.id,
      result: errorReply(escrowStateConflict(read, transition, integrator, 'its buyer has not chosen the payment methods yet')),
    };
  }

  const escrow = { ...read, updatedAt: command.now };
  const { integratorId, currency, totalAmount } = escrow;
  const holding = await systemAccount(em, integratorId, 'escrow_holding', currency);
  const postings: Posting[] = [];
  let invoiceChange: { id: string; state: string; failureReason: string | null } | undefined;
  let made: InvoiceRecord | undefined;
  if (transition === 'pay') {
    for (const [wallet, balance] of command.loaded.balances) if (!balances.has(wallet)) balances.set(wallet, balance);
    const sources = await evaluateCharges(em, integratorId, currency, escrowInvoice.paymentMethods, methods, balances);
    const reason = paymentFailure(sources);
    if (reason) {
      // All or nothing: decided before any posting. Money a failing pay set aside goes back.
      for (const s of sources) if (s.outcome.ok && balances.has(s.account)) balances.set(s.account, balances.get(s.account)! + s.amount);
      escrow.status = 'ESCROW-FAILED';
    } else {
      escrow.status = 'ESCROWED';
      postings.push({
        integratorId,
        reference: `escrow:${escrow.id}:pay`,
        description: `escrow ${escrow.id} pay`,
        entries: [
          ...sources.map((s) => ({ account: s.account, currency, amount: -s.amount })),
          { account: holding, currency, amount: totalAmount },
        ],
      });
    }
    invoiceChange = { id: escrowInvoice.id, state: reason ? 'FAILED' : 'SUCCESS', failureReason: reason ?? null };
  } else if (transition === 'commit') {
    made = phaseInvoice(escrow, escrowInvoice, 'user_purchase_commit_escrow', [], command.now);
    escrow.commitInvoiceId = made.id;
    escrow.status = 'COMMITTED';
    postings.push(
      ...(await settle(autocommit(em), em, {
        integratorId,
        currency,
        reference: `escrow:${escrow.id}:commit`,
        description: `escrow ${escrow.id} commit`,
        from: [{ account: holding, currency, amount: -totalAmount }],
        lineItems: escrowInvoice.lineItems,
      })),
    );
  } else {
    // A refund goes back to where each charge came from; what wallets hold now does not matter.
    const sources = await evaluateCharges(em, integratorId, currency, escrowInvoice.paymentMethods, methods, new Map());
    made = phaseInvoice(escrow, escrowInvoice, 'user_purchase_refund_escrow', escrowInvoice.paymentMethods, command.now);
    escrow.cancelInvoiceId = made.id;
    escrow.status = 'CANCELLED';
    postings.push({
      integratorId,
      reference: `escrow:${escrow.id}:cancel`,
      description: `escrow ${escrow.id} refund`,
      entries: [
        { account: holding, currency, amount: -totalAmount },
        ...sources.map((s) => ({ account: s.account, currency, amount: s.amount })),
      ],
    });
  }
  if (transition !== 'pay' && escrow.status !== TRANSITION_TARGET[transition])
    throw new Error(`escrow ${escrow.id} did not reach ${TRANSITION_TARGET[transition]}`);
  const view = escrowView(escrow, integrator);
  const events: Array<{ integratorId: string; name: EventName; message: unknown }> = [
    { integratorId, name: 'escrow-transaction-update', message: view },
  ];
  if (invoiceChange) {
    const completed: InvoiceRecord = {
      ...escrowInvoice,
      state: invoiceChange.state as InvoiceRecord['state'],
      failureReason: invoiceChange.failureReason,
      updatedAt: command.now,
    };
    events.push({ integratorId, name: 'invoice-completed', message: invoiceView(completed) });
  }
  return {
    commandId: command.id,
    result: { status: 200, body: success(view) },
    move: {
      escrowId: escrow.id,
      from: read.status,
      to: escrow.status,
      commitInvoiceId: escrow.commitInvoiceId ?? null,
      cancelInvoiceId: escrow.cancelInvoiceId ?? null,
      at: command.now,
      invoice: invoiceChange,
      phaseInvoice: made,
      events,
      postings,
    },
  };
}

/**
 * Every plan's writes in one statement (fixed text, arrays as parameters, so it is prepared
 * once; each row is also found by `id = any (…)`, so the planner looks it up by its key rather
 * than scanning the table to join the arrays). Each escrow moves only from the state it was
 * read in; what goes with a move is written only when it happened. The balance trigger updates
 * each account the entries touch once, in account order. Returns the commands whose result
 * was stored.
 */
async function writePlans(db: Executor, plans: Plan[]): Promise<Set<string>> {
  const moves = plans.flatMap((p) => (p.move ? [p.move] : [])).sort((a, b) => (a.escrowId < b.escrowId ? -1 : 1));
  const postings = moves.flatMap((m) =>
    m.postings.map((posting) => {
      const problems = postingProblems(posting.entries);
      if (problems.length) throw new Error(`unbalanced or malformed posting ${posting.reference}: ${problems.join('; ')}`);
      return { escrowId: m.escrowId, id: newId('pst'), posting };
    }),
  );
  const entries = postings.flatMap((p) => mergeEntries(p.posting.entries).map((e) => ({ postingId: p.id, ...e })));
  const invoices = moves.flatMap((m) => (m.invoice ? [{ escrowId: m.escrowId, at: m.at, ...m.invoice }] : []));
  const made = moves.flatMap((m) => (m.phaseInvoice ? [m.phaseInvoice] : []));
  const events = moves.flatMap((m) => m.events.map((e) => ({ escrowId: m.escrowId, ...e })));
  const rows = await db.execute<Array<{ id: string }>>(
    `with g as (
       update escrow e set status = v.next, commit_invoice_id = v.commit_invoice_id, cancel_invoice_id = v.cancel_invoice_id, updated_at = v.at
         from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::timestamptz[]) as v (id, prev, next, commit_invoice_id, cancel_invoice_id, at)
        where e.id = any (?::varchar[]) and e.id = v.id and e.status = v.prev
       returning e.id
     ), invoice_updates as (
       update invoice i set state = v.state, failure_reason = v.failure_reason, updated_at = v.at
         from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::timestamptz[]) as v (escrow_id, id, state, failure_reason, at)
        where i.id = any (?::varchar[]) and i.id = v.id and v.escrow_id in (select id from g)
     ), invoice_inserts as (
       insert into invoice (id, integrator_id, account_id, escrow_id, invoice_type, state, reference_type, reference_id, description,
                            metadata, currency, total_amount, failure_reason, payment_methods, line_items, created_at, updated_at)
       select v.id, v.integrator_id, v.account_id, v.escrow_id, v.invoice_type, 'SUCCESS', v.reference_type, v.reference_id, v.description,
              v.metadata::jsonb, v.currency, v.total_amount, null, v.payment_methods::jsonb, v.line_items::jsonb, v.at, v.at
         from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::text[],
                     ?::varchar[], ?::bigint[], ?::text[], ?::text[], ?::timestamptz[])
           as v (id, integrator_id, account_id, escrow_id, invoice_type, reference_type, reference_id, description, metadata, currency, total_amount,
                 payment_methods, line_items, at)
        where v.escrow_id in (select id from g)
     ), events as (
       insert into outbox (id, integrator_id, event_name, message)
       select v.id, v.integrator_id, v.event_name, v.message::jsonb
         from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::text[]) with ordinality as v (escrow_id, id, integrator_id, event_name, message, ord)
        where v.escrow_id in (select id from g)
        order by v.ord
     ), done as (
       update command c set state = 'done', result_status = v.status, result_body = v.body::jsonb, updated_at = now()
         from unnest(?::varchar[], ?::varchar[], ?::int[], ?::text[]) as v (id, escrow_id, status, body)
        where c.id = any (?::varchar[]) and c.id = v.id and c.state = 'pending' and (v.escrow_id is null or v.escrow_id in (select id from g))
       returning c.id
     ), p as (
       insert into ledger_posting (id, integrator_id, reference, description)
       select v.id, v.integrator_id, v.reference, v.description
         from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[]) as v (escrow_id, id, integrator_id, reference, description)
        where v.escrow_id in (select id from g)
       on conflict (reference) do nothing
       returning id
     ), entries as (
       insert into ledger_entry (posting_id, ledger_account_id, currency, amount)
       select v.posting_id, v.account, v.currency, v.amount
         from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::bigint[]) as v (posting_id, account, currency, amount)
        where v.posting_id in (select id from p)
     )
     select id from done`,
    [
      moves.map((m) => m.escrowId),
      moves.map((m) => m.from),
      moves.map((m) => m.to),
      moves.map((m) => m.commitInvoiceId),
      moves.map((m) => m.cancelInvoiceId),
      moves.map((m) => m.at.toISOString()),
      moves.map((m) => m.escrowId),
      invoices.map((i) => i.escrowId),
      invoices.map((i) => i.id),
      invoices.map((i) => i.state),
      invoices.map((i) => i.failureReason),
      invoices.map((i) => i.at.toISOString()),
      invoices.map((i) => i.id),
      made.map((i) => i.id),
      made.map((i) => i.integratorId),
      made.map((i) => i.accountId),
      made.map((i) => i.escrowId),
      made.map((i) => i.invoiceType),
      made.map((i) => i.referenceType),
      made.map((i) => i.referenceId),
      made.map((i) => i.description),
      made.map((i) => JSON.stringify(i.metadata)),
      made.map((i) => i.currency),
      made.map((i) => String(i.totalAmount)),
      made.map((i) => JSON.stringify(i.paymentMethods)),
      made.map((i) => JSON.stringify(i.lineItems)),
      made.map((i) => i.createdAt.toISOString()),
      events.map((e) => e.escrowId),
      events.map(() => newId('evt')),
      events.map((e) => e.integratorId),
      events.map((e) => e.name),
      events.map((e) => JSON.stringify(e.message)),
      plans.map((p) => p.commandId),
      plans.map((p) => p.move?.escrowId ?? null),
      plans.map((p) => p.result.status),
      plans.map((p) => JSON.stringify(p.result.body)),
      plans.map((p) => p.commandId),
      postings.map((p) => p.escrowId),
      postings.map((p) => p.id),
      postings.map((p) => p.posting.integratorId),
      postings.map((p) => p.posting.reference),
      postings.map((p) => p.posting.description.slice(0, 200)),
      entries.map((e) => e.postingId),
      entries.map((e) => e.account),
      entries.map((e) => e.currency),
      entries.map((e) => String(e.amount)),
    ],
  );
  return new Set(rows.map((r) => r.id));
}

/** A write refused because of what others did meanwhile: worth deciding again. */
function isContention(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return isOverdraft(err) || code === '40P01' || code === '40001';
}

/** What running a command came to: its result (null: no such command), or the error that stopped it. */
type Outcome = CommandResult | null | Error;

/**
 * Runs escrow commands to their end; each command's outcome. A command that cannot be run (a
 * broken row, a write the database refuses for a reason other than contention) fails alone: the
 * others of its batch still finish.
 */
async function runEscrowCommands(em: EntityManager, ids: string[]): Promise<Map<string, Outcome>> {
  const db = autocommit(em);
  const results = new Map<string, Outcome>();
  let pending = [...new Set(ids)];
  for (let round = 0; pending.length; round++) {
    if (round === MAX_ROUNDS) {
      for (const id of pending) results.set(id, new Error(`escrow command ${id} still contended after ${MAX_ROUNDS} rounds`));
      break;
    }
    const read = await readCommands(db, pending);
    const plans: Plan[] = [];
    const again: string[] = [];
    const escrows = new Set<string>();
    const balances = new Map<string, number>();
    for (const id of pending) {
      const command = read.get(id);
      if (!command) results.set(id, null);
      else if (command.result) results.set(id, command.result);
      else if (command.loaded && escrows.has(command.loaded.escrow.id))
        again.push(id); // one move per escrow per write
      else {
        if (command.loaded) escrows.add(command.loaded.escrow.id);
        try {
          plans.push(await plan(em, command, balances));
        } catch (err) {
          results.set(id, err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
    if (plans.length) {
      if (plans.some((p) => p.move?.to === 'ESCROWED')) failpoint('escrow.pay.before-charge');
      try {
        const stored = await writePlans(db, plans);
        for (const p of plans) {
          if (stored.has(p.commandId)) results.set(p.commandId, p.result);
          else again.push(p.commandId); // its escrow moved, or another run finished it: read again
        }
        if (plans.some((p) => stored.has(p.commandId) && p.move?.to === 'ESCROWED')) failpoint('escrow.pay.after-charge');
      } catch (err) {
        if (plans.length > 1) {
          // One command's failure is not the others': each alone.
          const alone = await Promise.all(plans.map((p) => runEscrowCommands(em, [p.commandId])));
          for (const m of alone) for (const [id, r] of m) results.set(id, r);
        } else if (isContention(err)) {
          again.push(plans[0].commandId);
        } else {
          results.set(plans[0].commandId, err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
    pending = again;
  }
  return results;
}

/** The commands of a turn of the event loop run together (one batch per connection pool). */
const runBatched = batchedPerPool(async (em: EntityManager, commandIds: string[]): Promise<Outcome[]> => {
  const results = await runEscrowCommands(em, commandIds);
  return commandIds.map((id) => results.get(id) ?? null);
}, 64);

/**
 * Runs one escrow command to its end (the worker's job). Safe to run any number of times: a
 * finished command returns its stored result; an escrow already past the phase is answered as
 * it stands; postings are unique per escrow and phase. Rejects when the command could not be
 * run (its job then retries with backoff).
 */
export async function runEscrowCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  const outcome = await runBatched(em, commandId);
  if (outcome instanceof Error) throw outcome;
  return outcome;
}
