/** `holdfast webhooks replay`: send deliveries again, of one event or of an endpoint since a time. */
import { createRedis } from '../queues/connection.js';
import { WebhookBus } from '../queues/webhook-bus.js';
import { type DeliveryQueue, endpointExists, eventExists, replayAndEnqueue } from '../webhooks/relay.service.js';
import {
  type Command,
  UsageError,
  auditOptions,
  auditUsage,
  cliAuditContext,
  notFound,
  print,
  redisUrl,
  withOrm,
  cliConfig,
} from './cli-support.js';

/** The webhooks queue, reached only when deliveries are to be enqueued. */
const deliveryQueue: DeliveryQueue = {
  async enqueue(deliveries) {
    const redis = createRedis(await redisUrl(), 'producer');
    const bus = new WebhookBus(redis, cliConfig().queuePrefix);
    try {
      return await bus.enqueue(deliveries);
    } finally {
      await bus.close();
      redis.disconnect();
    }
  },
};

export const webhooksCommands: Record<string, Command> = {
  'webhooks replay': {
    summary: 'send webhook deliveries again (an event, or an endpoint since a time)',
    usage: `holdfast webhooks replay (--event ID | --endpoint ID --since TIME) [--reason TEXT] [--actor NAME] [--json]

Sends webhooks again: every delivery of event ID, or every event of endpoint ID created at or
after TIME (ISO 8601, e.g. 2026-11-26T00:00:00Z) — dead-lettered and delivered ones alike, and
those the endpoint never got (it was added later or disabled). Each starts a fresh retry
schedule. Deliveries still being retried are left as they are. The endpoint must be enabled.
An unknown event or endpoint is an error (exit 1); so is a missing or unmigrated database (never created).
A replay that sends something is recorded in the audit trail.
${auditUsage(false)}
  --json          print {"replayed"}`,
    options: {
      event: { type: 'string' },
      endpoint: { type: 'string' },
      since: { type: 'string' },
      ...auditOptions,
      json: { type: 'boolean' },
    },
    async run(v) {
      const event = typeof v.event === 'string' ? v.event : undefined;
      const endpoint = typeof v.endpoint === 'string' ? v.endpoint : undefined;
      if (!!event === !!endpoint) throw new UsageError('give either --event ID or --endpoint ID --since TIME');
      let since: Date | undefined;
      if (endpoint) {
        since = typeof v.since === 'string' ? new Date(v.since) : undefined;
        if (!since || Number.isNaN(since.getTime())) throw new UsageError('--endpoint needs --since TIME (ISO 8601)');
      }
      const audit = cliAuditContext(v, false);
      const sent = await withOrm({ read: 'webhooks replay' }, async (orm) => {
        if (event && !(await eventExists(orm.em.fork(), event))) throw notFound('event', event);
        if (endpoint && !(await endpointExists(orm.em.fork(), endpoint))) throw notFound('webhook endpoint', endpoint);
        // Redis is found only once the rows are written: if it refuses then, they are pending and the delivery sweeper sends them.
        const filter = event ? { eventId: event } : { endpointId: endpoint!, since: since! };
        return (await replayAndEnqueue(orm.em.fork(), deliveryQueue, filter, { context: audit, action: 'webhook.replay' })).length;
      });
      print(v.json === true, { replayed: sent }, `re-sending ${sent} deliver${sent === 1 ? 'y' : 'ies'}`);
    },
  },
};
