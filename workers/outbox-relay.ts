/**
 * The outbox relay loop of a worker process: relays as soon as PostgreSQL notifies an outbox
 * insert (LISTEN holdfast_outbox), and every second anyway (a missed notification, a relay that
 * stopped halfway). One relay at a time per process; several processes share the work through
 * SKIP LOCKED. Deliveries are enqueued after their rows commit.
 */
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../src/runtime/logger.js';
import { describeError } from '../src/runtime/describe-error.js';
import type { WebhookBus } from '../src/queues/webhook-bus.js';
import { relayOutbox, type NewDelivery } from '../src/webhooks/relay.service.js';
import { currentTraceparent, inSpan, tracingHooks } from '../src/runtime/tracing-hooks.js';
import { failpoint } from '../src/runtime/failpoints.js';

const POLL_MS = 1000;
const BATCH = 500;
/**
 * A notification starts a relay this long after it: the events committed meanwhile go in the
 * same statement (under load, one relay per many transactions instead of one each).
 */
const COALESCE_MS = 10;
/** After the listening connection is lost (a PostgreSQL restart, a failover), how often it is tried again; the poll covers the gap. */
export const LISTEN_RETRY_MS = 5000;
/** The listening connection's `application_name` (how it shows in `pg_stat_activity`). */
export const LISTENER_NAME = 'holdfast-outbox-listener';

export interface OutboxRelay {
  /** Relays until the outbox is empty (also what each notification and poll runs). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Tracing on: a span `outbox relay` in each relayed event's trace, and each delivery's job
 * carries that span as the parent of its attempts.
 */
async function traceRelay(deliveries: NewDelivery[]): Promise<void> {
  const byTrace = new Map<string, NewDelivery[]>();
  for (const d of deliveries) if (d.traceparent) byTrace.set(d.traceparent, [...(byTrace.get(d.traceparent) ?? []), d]);
  for (const [traceparent, group] of byTrace) {
    await inSpan('outbox relay', traceparent, { 'holdfast.deliveries': group.length }, async () => {
      const relay = currentTraceparent();
      for (const d of group) d.traceparent = relay;
    });
  }
}

export async function startOutboxRelay(
  orm: MikroORM,
  databaseUrl: string | undefined,
  bus: WebhookBus,
  logger: Logger,
): Promise<OutboxRelay> {
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const relayAll = async () => {
    for (;;) {
      const { events, deliveries } = await relayOutbox(orm.em.fork(), BATCH);
      if (deliveries.length) failpoint('webhooks.relay.after-commit');
      if (tracingHooks()) await traceRelay(deliveries);
      await bus.enqueue(deliveries);
      if (events) logger.debug({ events, deliveries: deliveries.length }, 'outbox relayed');
      if (events < BATCH) return;
    }
  };
  const drain = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await relayAll();
        } catch (err) {
          if (!closed) logger.error({ err: describeError(err) }, 'outbox relay failed');
        }
      } while (again && !closed);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  let soon: NodeJS.Timeout | null = null;
  const notified = () => {
    soon ??= setTimeout(() => {
      soon = null;
      void drain();
    }, COALESCE_MS);
  };
  // The listening connection: when it is lost the relay polls, and a new one is tried every
  // LISTEN_RETRY_MS until one listens again. The loss and the return are logged, once each.
  let listener: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let lostSince: number | null = null;
  const listen = async (): Promise<void> => {
    if (!databaseUrl || closed) return;
    const client = new pg.Client({ connectionString: databaseUrl, application_name: LISTENER_NAME });
    let gone = false;
    const lost = (err?: unknown) => {
      if (gone) return;
      gone = true;
      if (listener === client) listener = null;
      void client.end().catch(() => undefined);
      if (closed) return;
      if (lostSince === null) {
        lostSince = Date.now();
        logger.warn({ err: err === undefined ? undefined : describeError(err) }, 'outbox listener lost; polling until it is back');
      }
      retry ??= setTimeout(() => {
        retry = null;
        void listen();
      }, LISTEN_RETRY_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', notified);
    try {
      await client.connect();
      await client.query('listen holdfast_outbox');
    } catch (err) {
      lost(err);
      return;
    }
    if (closed) lost(); // closed while connecting: this connection ends too
    if (gone) return;
    listener = client;
    if (lostSince !== null) {
      logger.info({ down_s: Math.round((Date.now() - lostSince) / 1000) }, 'outbox listener back');
      lostSince = null;
      void drain();
    }
  };
  await listen();
  const timer = setInterval(() => void drain(), POLL_MS);
  void drain();

  return {
    drain,
    async close() {
      closed = true;
      clearInterval(timer);
      if (retry) clearTimeout(retry);
      if (soon) clearTimeout(soon);
      await running;
      await listener?.end().catch(() => undefined);
    },
  };
}
