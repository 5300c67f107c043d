/** `holdfast provider-events list|replay`: the providers' webhooks Holdfast took in, and running one's command again. */
import { CommandBus } from '../queues/command-bus.js';
import { isProvider, PROVIDERS, type Provider } from '../provider-events/provider-event.rules.js';
import { listProviderEvents, replayProviderEvent } from '../provider-events/provider-event.service.js';
import { type Command, UsageError, onlyArgument, orNotFound, print, redisUrl, table, withOrm, stderr, cliConfig } from './cli-support.js';

/** How long `replay` waits for the command's outcome before saying it is still running. */
const REPLAY_WAIT_MS = 15_000;

function providerOption(v: Record<string, unknown>): Provider | undefined {
  if (v.provider === undefined) return undefined;
  const value = String(v.provider).trim();
  if (!isProvider(value)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
  return value;
}

/** The `provider-events` group: list and replay. */
export const providerEventsCommands: Record<string, Command> = {
  'provider-events list': {
    summary: "list the providers' webhook events taken in, newest first",
    usage: `holdfast provider-events list [--provider stripe|paypal] [--limit N] [--json]

Lists the events Stripe and PayPal sent to /hooks/stripe and /hooks/paypal, newest first (the
order they arrived in, reversed): Holdfast's id, the provider, the provider's event id and type,
when it arrived, the command that acts on it (its latest, after a replay) and its outcome —
applied, ignored (no handler, or nothing to do), failed (with the handler's reason), or "-"
while its command has not run. Only reads: a missing or unmigrated database is an error.
  --provider   only this provider's events
  --limit N    at most N events (1 to 1000; default 50)
  --json       print {"events":[{"id","provider","provider_event_id","type","received_at","command_id",
               "outcome","outcome_reason","outcome_at"}]}`,
    options: { provider: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    async run(v) {
      const provider = providerOption(v);
      const limitText = typeof v.limit === 'string' ? v.limit.trim() : '50';
      if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 1000)
        throw new UsageError('--limit must be a whole number from 1 to 1000');
      const events = await withOrm({ read: 'provider-events list' }, (orm) =>
        listProviderEvents(orm.em.fork(), { provider, limit: Number(limitText) }),
      );
      const rows = events.map((e) => [
        e.id,
        e.provider,
        e.provider_event_id,
        e.type,
        e.received_at,
        e.command_id ?? '-',
        e.outcome ? `${e.outcome}${e.outcome_reason ? ` (${e.outcome_reason})` : ''}` : '-',
      ]);
      const header = ['ID', 'PROVIDER', 'PROVIDER EVENT', 'TYPE', 'RECEIVED', 'COMMAND', 'OUTCOME'];
      print(v.json === true, { events }, rows.length ? table(header, rows) : 'no provider events');
    },
  },
  'provider-events replay': {
    summary: "run a provider event's command again",
    usage: `holdfast provider-events replay EVENT_ID [--provider stripe|paypal] [--json]

Runs the command of provider event EVENT_ID again — Holdfast's id (pev_…) or the provider's
event id (evt_… for Stripe, WH-… for PayPal; --provider settles an id both used): its pending
command when it has one, else a new provider-event.apply command, run by a worker. An event
already applied is not applied again (its outcome stays applied); an ignored or failed one goes
to its handler, which may exist now. Waits up to ${REPLAY_WAIT_MS / 1000} s for the outcome and prints it;
a command still running then finishes on its own (provider-events list shows it). An unknown
event is an error (exit 1).
  --json   print {"event":{…as list…},"command_id","finished"}`,
    options: { provider: { type: 'string' }, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const id = onlyArgument(positionals, 'EVENT_ID');
      const provider = providerOption(v);
      const config = cliConfig();
      const bus = new CommandBus(await redisUrl(), config.queuePrefix);
      try {
        const replayed = await orNotFound(
          'provider event',
          id,
          withOrm({ read: 'provider-events replay' }, (orm) =>
            replayProviderEvent(orm.em.fork(), bus, id, {
              provider,
              waitMs: REPLAY_WAIT_MS,
              onQueueError: () =>
                stderr().write(
                  'holdfast: warning: Redis (REDIS_URL) did not take the job; the command is pending and the sweeper runs it\n',
                ),
            }),
          ),
        );
        const payload = (replayed.result?.body as { payload?: { outcome?: string; outcome_reason?: string | null } } | undefined)?.payload;
        const event = payload?.outcome ? { ...replayed.event, ...payload } : replayed.event;
        const said = payload?.outcome
          ? `${payload.outcome}${payload.outcome_reason ? ` (${payload.outcome_reason})` : ''}`
          : 'still running (holdfast provider-events list shows its outcome)';
        print(
          v.json === true,
          { event, command_id: replayed.commandId, finished: replayed.result !== null },
          `provider event ${event.id} (${event.provider} ${event.provider_event_id} ${event.type}): command ${replayed.commandId}: ${said}`,
        );
      } finally {
        await bus.close();
      }
    },
  },
};
