/**
 * The `provider-event.apply` command: acts on one stored provider event with its handler
 * (provider-event-handlers.ts), in one transaction with the event's row locked. An event once
 * `applied` is never handed to its handler again, so a duplicate delivery, a replay or a job
 * run twice changes nothing; an `ignored` or `failed` one is tried again by a replay (its
 * handler may exist now). Commands a handler submitted are named in the result's `next`, for
 * the worker to enqueue once the transaction committed. The result names the event and its outcome, which the queue
 * dashboard shows as the job's return value.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import { inCommandTransaction } from '../commands/command.service.js';
import { success } from '../envelope.js';
import { AppError } from '../errors.js';
import { providerEventHandlers } from './provider-event-handlers.js';
import { lockProviderEvent, recordProviderEventOutcome } from './provider-event.repository.js';
import { type Outcome, outcomeReason, providerEventView } from './provider-event.rules.js';

/** Runs a provider event's command. */
export async function runProviderEventApply(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const event = await lockProviderEvent(db, command.target_id);
    if (!event) throw AppError.notFound('PROVIDER_EVENT_NOT_FOUND', 'No such provider event.');
    const { payload: _payload, ...summary } = event;
    if (event.outcome === 'applied') return { status: 200, body: success(providerEventView(summary)) };
    const handler = providerEventHandlers.find(event.provider, event.type);
    let outcome: Outcome = 'ignored';
    let reason: string | null = handler ? null : 'no handler';
    let next: CommandResult['next'];
    if (handler) {
      // A savepoint: a refusal undoes the handler's writes and still records the outcome.
      await db.execute('savepoint handler_work');
      try {
        const answer = await handler(db, event);
        outcome = typeof answer === 'string' ? answer : answer.outcome;
        next = typeof answer === 'string' ? undefined : answer.next;
        await db.execute('release savepoint handler_work');
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await db.execute('rollback to savepoint handler_work');
        outcome = 'failed';
        reason = outcomeReason(err.message);
      }
    }
    const at = await recordProviderEventOutcome(db, event.id, outcome, reason);
    return {
      status: 200,
      body: success(providerEventView({ ...summary, commandId: command.id, outcome, outcomeReason: reason, outcomeAt: at })),
      ...(next?.length ? { next } : {}),
    };
  });
}

/** The provider events module's runners, for the worker's registry. */
export const providerEventCommands: CommandRunners = {
  'provider-event.apply': runProviderEventApply,
};
