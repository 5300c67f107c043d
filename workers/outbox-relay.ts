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
import { relayOutbox } from '../src/webhooks/relay.service.js';
import { failpoint } from '../src/runtime/failpoints.js';

const POLL_MS = 1000;
const BATCH = 500;
/**
 * A notification starts a relay this long after it: the events committed meanwhile go in the
 * same statement (under load, one relay per many transactions instead of one each).
 */
const COALESCE_MS = 10;

export interface OutboxRelay {
  /** Relays until the outbox is empty (also what each notification and poll runs). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startOutboxRelay(orm: MikroORM, databaseUrl: string | undefined, bus: WebhookBus, logger: Logger): Promise<OutboxRelay> {
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const relayAll = async () => {
    for (;;) {
      const { events, deliveries } = await relayOutbox(orm.em.fork(), BATCH);
      if (deliveries.length) failpoint('webhooks.relay.after-commit');
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

  const listener = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : null;
  if (listener) {
    listener.on('error', (err) => logger.warn({ err: describeError(err) }, 'outbox listener lost; polling'));
    let soon: NodeJS.Timeout | null = null;
    listener.on('notification', () => {
      soon ??= setTimeout(() => {
        soon = null;
        void drain();
      }, COALESCE_MS);
    });
    try {
      await listener.connect();
      await listener.query('listen holdfast_outbox');
    } catch (err) {
      logger.warn({ err: describeError(err) }, 'outbox listener unavailable; polling');
    }
  }
  const timer = setInterval(() => void drain(), POLL_MS);
  void drain();

  return {
    drain,
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
      await listener?.end().catch(() => undefined);
    },
  };
}
