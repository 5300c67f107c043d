import Stripe from 'stripe';
import { stripeId } from './stripe-ids.js';

/** A webhook endpoint registered on the fake: where events go and the secret that signs them. */
export interface WebhookEndpoint {
  url: string;
  secret: string;
  /** Event types sent there; all when absent (Stripe's `enabled_events: ['*']`). */
  enabledEvents?: string[];
}

/** An event in Stripe's Event shape. */
export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: Record<string, any>; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

/** One POST of an event to an endpoint, as the fake made it. */
export interface Delivery {
  eventId: string;
  type: string;
  url: string;
  attempt: number;
  /** The receiver's HTTP status, or undefined when the connection failed. */
  status?: number;
  error?: string;
  forged: boolean;
  at: number;
}

/** How a forged delivery is wrong. */
export type Forgery = 'wrong-secret' | 'tampered-body' | 'stale-timestamp' | 'no-signature';

/**
 * Sends events to the registered endpoints, signed with the `stripe` package's
 * `webhooks.generateTestHeaderString` so receivers verify them with `constructEvent` as in production.
 * Failed deliveries are retried a few times (Stripe retries for days; tests need seconds).
 * Stripe does not promise any order; the fake sends in emission order unless a test reorders.
 */
export class WebhookSender {
  readonly endpoints: WebhookEndpoint[] = [];
  readonly events: StripeEvent[] = [];
  readonly deliveries: Delivery[] = [];
  private held: StripeEvent[] | undefined;
  private inFlight = new Set<Promise<void>>();
  private queues = new Map<WebhookEndpoint, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly apiVersion: string,
    private readonly retry: { attempts: number; delayMs: number },
  ) {}

  /** Records an event and sends it (or holds it while events are held). */
  emit(type: string, object: Record<string, any>, request: StripeEvent['request'], previous?: Record<string, unknown>): StripeEvent {
    const event: StripeEvent = {
      id: stripeId('evt'),
      object: 'event',
      api_version: this.apiVersion,
      created: Math.floor(Date.now() / 1000),
      data: previous ? { object: structuredClone(object), previous_attributes: previous } : { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: this.endpointsFor(type).length,
      request,
      type,
    };
    this.events.push(event);
    if (this.held) this.held.push(event);
    else this.send(event);
    return event;
  }

  /** Holds every event from now on until `release`. */
  hold(): void {
    this.held ??= [];
  }

  /** Sends the held events, in the order given: as emitted, reversed, or a list of event ids (the others after). */
  release(order: 'emitted' | 'reversed' | string[] = 'emitted'): StripeEvent[] {
    const held = this.held ?? [];
    this.held = undefined;
    let sequence = held;
    if (order === 'reversed') sequence = [...held].reverse();
    else if (Array.isArray(order)) {
      const first = order.map((id) => held.find((e) => e.id === id)).filter((e): e is StripeEvent => !!e);
      sequence = [...first, ...held.filter((e) => !order.includes(e.id))];
    }
    for (const event of sequence) this.send(event);
    return sequence;
  }

  /** Sends an event again, as Stripe does when it is not sure a delivery arrived. */
  redeliver(eventId: string): void {
    const event = this.events.find((e) => e.id === eventId);
    if (!event) throw new Error(`stripe fake: no event ${eventId}`);
    this.send(event);
  }

  /** Posts an event whose signature does not verify against the endpoint's secret. */
  async forge(event: StripeEvent, how: Forgery = 'wrong-secret'): Promise<Delivery[]> {
    const sent: Delivery[] = [];
    for (const endpoint of this.endpoints) {
      const payload = JSON.stringify(event, null, 2);
      let header: string | undefined;
      let body = payload;
      if (how === 'wrong-secret') header = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_forged' });
      if (how === 'tampered-body') {
        header = Stripe.webhooks.generateTestHeaderString({ payload, secret: endpoint.secret });
        body = payload.replace(/"livemode": false/, '"livemode": true ');
      }
      if (how === 'stale-timestamp') {
        header = Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: endpoint.secret,
          timestamp: Math.floor(Date.now() / 1000) - 3600,
        });
      }
      sent.push(await this.post(endpoint, event, body, header, 1, true));
    }
    return sent;
  }

  /** Resolves once every delivery started so far (retries included) has finished. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Stops sending; deliveries under way finish. */
  stop(): void {
    this.stopped = true;
  }

  private endpointsFor(type: string): WebhookEndpoint[] {
    return this.endpoints.filter((e) => !e.enabledEvents || e.enabledEvents.includes('*') || e.enabledEvents.includes(type));
  }

  // First attempts go out one at a time per endpoint, in the order sent, so "out of order" is what a
  // test asks for and not a race; a retry is scheduled apart and does not hold the later events back.
  private send(event: StripeEvent): void {
    for (const endpoint of this.endpointsFor(event.type)) {
      const previous = this.queues.get(endpoint) ?? Promise.resolve();
      const next = previous.then(() => this.attempt(endpoint, event, 1));
      this.queues.set(endpoint, next);
      this.track(next);
    }
  }

  private async attempt(endpoint: WebhookEndpoint, event: StripeEvent, attempt: number): Promise<void> {
    if (this.stopped) return;
    // Signed at each attempt, as Stripe does: the timestamp is the attempt's.
    const payload = JSON.stringify(event, null, 2);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: endpoint.secret });
    const delivery = await this.post(endpoint, event, payload, header, attempt, false);
    const ok = delivery.status !== undefined && delivery.status >= 200 && delivery.status < 300;
    if (ok || attempt >= this.retry.attempts) return;
    this.track(
      new Promise<void>((resolve) => setTimeout(resolve, this.retry.delayMs * 2 ** (attempt - 1))).then(() =>
        this.attempt(endpoint, event, attempt + 1),
      ),
    );
  }

  private track(run: Promise<void>): void {
    const tracked = run.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async post(
    endpoint: WebhookEndpoint,
    event: StripeEvent,
    body: string,
    signature: string | undefined,
    attempt: number,
    forged: boolean,
  ): Promise<Delivery> {
    const delivery: Delivery = { eventId: event.id, type: event.type, url: endpoint.url, attempt, forged, at: Date.now() };
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    };
    if (signature) headers['stripe-signature'] = signature;
    try {
      const res = await fetch(endpoint.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      delivery.status = res.status;
    } catch (err) {
      delivery.error = (err as Error).message;
    }
    this.deliveries.push(delivery);
    return delivery;
  }
}
