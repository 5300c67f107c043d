/**
 * A local fake of PayPal's REST API for the suite, built from PayPal's published descriptions
 * (`paypal/paypal-rest-api-specifications`: payments_payouts_batch_v1, notifications_webhooks_v1,
 * and the OAuth 2.0 client-credentials token call). It speaks, on 127.0.0.1 and a free port:
 * - `POST /v1/oauth2/token` (HTTP Basic client id:secret, form `grant_type=client_credentials`);
 * - `POST /v1/payments/payouts`, `GET /v1/payments/payouts/{payout_batch_id}`,
 *   `GET /v1/payments/payouts-item/{payout_item_id}` (Bearer token);
 * - `POST /v1/notifications/verify-webhook-signature` (SUCCESS only for a transmission the fake
 *   itself signed, for its webhook id, over the exact event);
 * - `GET /v1/notifications/certs/{id}`: the public key of `PAYPAL-CERT-URL`.
 * Each item settles shortly after creation as its receiver says (outcomes.ts) and each state is
 * announced by a `PAYMENT.PAYOUTS-ITEM.*` event POSTed to `webhookUrl` with PayPal's transmission
 * headers. Test controls: faults, token expiry, held and reordered deliveries, redelivery, forged
 * events, settling an unclaimed item, and a log of every request.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { type ItemStatus, outcomeOf, type Step, stepTo } from './outcomes.js';
import { AUTH_ALGO, createSigner, type TransmissionHeaders } from './signing.js';

/** PayPal's currencies for payouts and their decimals (HUF, JPY and TWD take no decimals at PayPal). */
export const PAYPAL_DECIMALS: Record<string, number> = {
  AUD: 2,
  BRL: 2,
  CAD: 2,
  CNY: 2,
  CZK: 2,
  DKK: 2,
  EUR: 2,
  HKD: 2,
  HUF: 0,
  ILS: 2,
  JPY: 0,
  MYR: 2,
  MXN: 2,
  TWD: 0,
  NZD: 2,
  NOK: 2,
  PHP: 2,
  PLN: 2,
  GBP: 2,
  SGD: 2,
  SEK: 2,
  CHF: 2,
  THB: 2,
  USD: 2,
};

const DUPLICATE_WINDOW_MS = 30 * 24 * 3600 * 1000;

export interface PaypalFakeOptions {
  clientId?: string;
  clientSecret?: string;
  webhookId?: string;
  /** Where webhook events are POSTed; none are sent while unset (they are still recorded). */
  webhookUrl?: string;
  /** `expires_in` of each access token (PayPal: about 9 hours). */
  tokenTtlSeconds?: number;
  /** How long after creation an item leaves PENDING (and between two steps of an outcome). */
  settleAfterMs?: number;
  /** Sends a delivery the receiver did not answer 2xx again, up to this many times (PayPal retries for days; default 0). */
  deliveryRetries?: number;
  /** The wait before each such retry (default 200 ms). */
  deliveryRetryMs?: number;
  /** Serve HTTPS with this key and certificate (PEM; test/support/fakes/tls.ts makes a self-signed one) instead of HTTP. */
  tls?: { key: string; cert: string };
}

export interface LoggedRequest {
  method: string;
  path: string;
  /** The status answered; 0 when the fake hung up without an answer. */
  status: number;
  /** The request's `PayPal-Request-Id`, when it carried one. */
  requestId?: string;
  at: number;
  json?: any;
}

export interface Delivery {
  eventId: string;
  eventType: string;
  rawBody: string;
  headers: TransmissionHeaders;
  /** The receiver's status, 0 when it could not be reached, -1 while held or when no URL is set. */
  status: number;
  at: number;
  /** How many times this event was sent again after a failed delivery (0 for the first). */
  retries?: number;
}

export type Fault =
  /** Answer 500 INTERNAL_SERVER_ERROR; with `process` the request is carried out first (its answer is lost). */
  | { kind: '500'; ms: number; match?: string; process?: boolean }
  /** Hold the request without an answer until the window ends, then hang up; `process` as above. */
  | { kind: 'hang'; ms: number; match?: string; process?: boolean }
  /** Stop listening: connections are refused until the window ends. */
  | { kind: 'refuse'; ms: number };

interface Item {
  payout_item_id: string;
  transaction_id?: string;
  activity_id?: string;
  transaction_status: ItemStatus;
  payout_item_fee: { currency: string; value: string };
  payout_batch_id: string;
  sender_batch_id: string;
  payout_item: Record<string, unknown> & { amount: { currency: string; value: string }; receiver: string };
  time_processed?: string;
  errors?: { name: string; message: string; information_link: string; details: unknown[] };
}

interface Batch {
  payout_batch_id: string;
  batch_status: 'PENDING' | 'PROCESSING' | 'SUCCESS' | 'DENIED';
  time_created: string;
  time_completed?: string;
  sender_batch_header: Record<string, unknown>;
  createdAt: number;
  items: Item[];
}

export interface PaypalFake {
  /** The API base, e.g. `http://127.0.0.1:41234` (`https://` with the `tls` option; give it as `PAYPAL_API_BASE`). */
  url: string;
  clientId: string;
  clientSecret: string;
  webhookId: string;
  webhookUrl: string | undefined;
  requests: LoggedRequest[];
  /** Every event the fake made, in order. */
  events: any[];
  deliveries: Delivery[];
  batches: Map<string, Batch>;
  /** How many requests matched `method` and a path starting with `pathPrefix` (`POST`, `/v1/payments/payouts`). */
  count(method: string, pathPrefix: string): number;
  /** The item of a batch created with `senderBatchId` (its first), or undefined. */
  itemOfSenderBatch(senderBatchId: string): Item | undefined;
  fault(fault: Fault): void;
  /**
   * How a repeated `sender_batch_id` is refused: `linked` (PayPal's documented 400 naming it and
   * linking the original batch, the default), `unlinked` (the same without the link) or `opaque`
   * (a 422 that names no duplicate: a form Holdfast must not take for a failure).
   */
  repeatAnswer: 'linked' | 'unlinked' | 'opaque';
  /** Whether a repeated `PayPal-Request-Id` answers the first request's answer (PayPal keeps them 30 days; default true). */
  requestIdReplay: boolean;
  /** Forgets every access token issued: the next call with one answers 401 `invalid_token`. */
  expireTokens(): void;
  /** Holds deliveries until `releaseDeliveries`. */
  holdDeliveries(): void;
  /** Sends the held deliveries, in order or reversed (out of order). */
  releaseDeliveries(options?: { reverse?: boolean }): Promise<void>;
  /** Sends an event again, with a new transmission (id, time, signature), as PayPal's resend does. */
  redeliver(eventId: string): Promise<Delivery>;
  /**
   * Delivers an event PayPal did not send: signed by another key (`bad-signature`), signed for
   * another webhook id (`other-webhook`), or signed and then altered (`tampered`).
   */
  forge(event: any, how?: 'bad-signature' | 'other-webhook' | 'tampered'): Promise<Delivery>;
  /** Headers PayPal would send with `rawBody` (for tests posting to `/hooks/paypal` themselves). */
  sign(rawBody: string, webhookId?: string): TransmissionHeaders;
  /** Moves an item to a new state now, with its event (an unclaimed item claimed, or returned). */
  settle(payoutItemId: string, status: 'SUCCESS' | 'RETURNED' | 'FAILED'): Promise<void>;
  /** Resolves once `predicate` holds (polls every 20 ms). */
  until(predicate: () => boolean, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
function pid(length = 13): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join('');
}

function debugId(): string {
  return randomBytes(7).toString('hex');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

interface Answer {
  status: number;
  json: unknown;
}

function validation(field: string, issue: string): Answer {
  return {
    status: 400,
    json: {
      name: 'VALIDATION_ERROR',
      message: 'Invalid request - see details',
      debug_id: debugId(),
      information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/#errors',
      details: [{ field, location: 'body', issue }],
      links: [],
    },
  };
}

function notFound(): Answer {
  return {
    status: 404,
    json: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', debug_id: debugId(), details: [], links: [] },
  };
}

/** Starts a PayPal fake on 127.0.0.1 and a free port. */
export async function startPaypalFake(options: PaypalFakeOptions = {}): Promise<PaypalFake> {
  const signer = createSigner();
  const stranger = createSigner();
  const tokens = new Map<string, number>();
  const bySender = new Map<string, Batch>();
  const byRequestId = new Map<string, Answer>();
  const header = (req: IncomingMessage, name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const items = new Map<string, Item>();
  const timers = new Set<NodeJS.Timeout>();
  const hung = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const faults: (Fault & { until: number })[] = [];
  let held: Delivery[] | null = null;
  let port = 0;
  let stopped = false;
  const ttl = options.tokenTtlSeconds ?? 32_400;
  const settleAfterMs = options.settleAfterMs ?? 50;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!stopped) fn();
    }, ms);
    timers.add(t);
  };

  const certUrl = () => `${fake.url}/v1/notifications/certs/CERT-360caa42-fca2a594-fake`;

  const itemView = (item: Item) => ({
    ...item,
    links: [
      { href: `${fake.url}/v1/payments/payouts-item/${item.payout_item_id}`, rel: 'item', method: 'GET' },
      { href: `${fake.url}/v1/payments/payouts/${item.payout_batch_id}`, rel: 'batch', method: 'GET' },
    ],
  });

  const batchView = (batch: Batch) => {
    const currency = batch.items[0].payout_item.amount.currency;
    const decimals = PAYPAL_DECIMALS[currency];
    const total = batch.items.reduce((sum, i) => sum + minor(i.payout_item.amount.value, decimals), 0n);
    return {
      batch_header: {
        payout_batch_id: batch.payout_batch_id,
        batch_status: batch.batch_status,
        time_created: batch.time_created,
        ...(batch.time_completed ? { time_completed: batch.time_completed } : {}),
        sender_batch_header: batch.sender_batch_header,
        amount: { currency, value: decimal(total, decimals) },
        fees: { currency, value: decimal(0n, decimals) },
      },
      items: batch.items.map(itemView),
      links: [{ href: `${fake.url}/v1/payments/payouts/${batch.payout_batch_id}?page_size=1000&page=1`, rel: 'self', method: 'GET' }],
    };
  };

  const deliver = async (delivery: Delivery): Promise<Delivery> => {
    fake.deliveries.push(delivery);
    if (held) {
      held.push(delivery);
      return delivery;
    }
    return send(delivery);
  };

  const send = async (delivery: Delivery): Promise<Delivery> => {
    delivery.at = Date.now();
    if (!fake.webhookUrl) return delivery;
    try {
      const res = await fetch(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...delivery.headers },
        body: delivery.rawBody,
        signal: AbortSignal.timeout(10_000),
      });
      delivery.status = res.status;
      await res.arrayBuffer();
    } catch {
      delivery.status = 0;
    }
    if ((delivery.status < 200 || delivery.status > 299) && (delivery.retries ?? 0) < (options.deliveryRetries ?? 0)) {
      later(options.deliveryRetryMs ?? 200, () => {
        const event = fake.events.find((e) => e.id === delivery.eventId);
        const rawBody = event ? JSON.stringify(event) : delivery.rawBody;
        void deliver({
          ...delivery,
          rawBody,
          headers: signer.headers(rawBody, fake.webhookId, certUrl()),
          status: -1,
          retries: (delivery.retries ?? 0) + 1,
        });
      });
    }
    return delivery;
  };

  const transmit = (event: any, rawBody: string, headers: TransmissionHeaders): Promise<Delivery> =>
    deliver({ eventId: event.id, eventType: event.event_type, rawBody, headers, status: -1, at: Date.now() });

  const announce = (item: Item, step: Step) => {
    const id = `WH-${pid(17)}-${pid(17)}`;
    const event = {
      id,
      event_version: '1.0',
      create_time: new Date().toISOString(),
      resource_type: 'payouts_item',
      event_type: step.eventType,
      summary: step.summary,
      resource: itemView(item),
      links: [
        { href: `${fake.url}/v1/notifications/webhooks-events/${id}`, rel: 'self', method: 'GET' },
        { href: `${fake.url}/v1/notifications/webhooks-events/${id}/resend`, rel: 'resend', method: 'POST' },
      ],
    };
    fake.events.push(event);
    const rawBody = JSON.stringify(event);
    return transmit(event, rawBody, signer.headers(rawBody, fake.webhookId, certUrl()));
  };

  const apply = (item: Item, step: Step) => {
    item.transaction_status = step.status;
    item.time_processed = new Date().toISOString();
    item.transaction_id ??= pid(17);
    item.activity_id ??= pid(17);
    if (step.error) {
      item.errors = {
        ...step.error,
        information_link: `https://developer.paypal.com/docs/api/payments.payouts-batch/#errors`,
        details: [],
      };
    } else delete item.errors;
    const batch = fake.batches.get(item.payout_batch_id)!;
    if (batch.batch_status === 'PENDING' || batch.batch_status === 'PROCESSING') {
      batch.batch_status = batch.items.every((i) => i.transaction_status === 'DENIED') ? 'DENIED' : 'SUCCESS';
      batch.time_completed = new Date().toISOString();
    }
    return announce(item, step);
  };

  const schedule = (item: Item, steps: Step[]) => {
    if (!steps.length) return;
    later(settleAfterMs, () => {
      void apply(item, steps[0]);
      schedule(item, steps.slice(1));
    });
  };

  const bearer = (req: IncomingMessage): Answer | null => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expires = token ? tokens.get(token) : undefined;
    if (!token) return { status: 401, json: { error: 'invalid_token', error_description: 'No permission for the requested operation' } };
    if (expires === undefined || expires < Date.now())
      return { status: 401, json: { error: 'invalid_token', error_description: 'Access Token not found in cache' } };
    return null;
  };

  const issueToken = (req: IncomingMessage, body: string): Answer => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(/:(.*)/s) : [];
    if (id !== fake.clientId || secret !== fake.clientSecret)
      return { status: 401, json: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    if (!/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? ''))
      return { status: 415, json: { name: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported media type', debug_id: debugId() } };
    const grant = new URLSearchParams(body).get('grant_type');
    if (grant !== 'client_credentials')
      return { status: 400, json: { error: 'unsupported_grant_type', error_description: `Grant Type is ${grant ?? 'NULL'}` } };
    const token = `A21AA${randomBytes(24).toString('base64url')}`;
    tokens.set(token, Date.now() + ttl * 1000);
    return {
      status: 200,
      json: {
        scope: 'https://uri.paypal.com/services/payments/payouts https://uri.paypal.com/payments/payouts',
        access_token: token,
        token_type: 'Bearer',
        app_id: 'APP-80W284485P519543T',
        expires_in: ttl,
        nonce: `${new Date().toISOString()}${randomBytes(8).toString('hex')}`,
      },
    };
  };

  const createPayout = (json: any): Answer => {
    const header = json?.sender_batch_header;
    const senderBatchId = header?.sender_batch_id;
    if (typeof senderBatchId !== 'string' || !senderBatchId || senderBatchId.length > 256)
      return validation('sender_batch_header.sender_batch_id', 'Sender batch id is required (up to 256 characters).');
    if (!Array.isArray(json.items) || json.items.length < 1 || json.items.length > 15_000)
      return validation('items', 'Between 1 and 15000 items are required.');
    for (const [n, it] of json.items.entries()) {
      const type = it?.recipient_type ?? header.recipient_type;
      if (type !== 'EMAIL') return validation(`items[${n}].recipient_type`, 'The fake pays EMAIL receivers only.');
      if (typeof it.receiver !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(it.receiver) || it.receiver.length > 127)
        return validation(`items[${n}].receiver`, 'Receiver is invalid or does not match with type.');
      const currency = it.amount?.currency;
      if (!(currency in PAYPAL_DECIMALS)) return validation(`items[${n}].amount.currency`, 'Currency is not supported.');
      const value = it.amount?.value;
      const decimals = PAYPAL_DECIMALS[currency];
      const shape = decimals ? new RegExp(`^\\d{1,10}(\\.\\d{1,${decimals}})?$`) : /^\d{1,13}$/;
      if (typeof value !== 'string' || !shape.test(value) || minor(value, decimals) <= 0n)
        return validation(`items[${n}].amount.value`, `Amount is invalid for ${currency}.`);
    }
    const earlier = bySender.get(senderBatchId);
    if (earlier && Date.now() - earlier.createdAt < DUPLICATE_WINDOW_MS) {
      if (fake.repeatAnswer === 'opaque')
        return {
          status: 422,
          json: {
            name: 'UNPROCESSABLE_ENTITY',
            message: 'The requested action could not be performed, semantically incorrect, or failed business validation.',
            debug_id: debugId(),
            details: [{ issue: 'INVALID_REQUEST', description: 'Request is not well-formed.' }],
            links: [],
          },
        };
      // What PayPal answers a repeated sender_batch_id: a 400 naming the field, linking the original batch.
      return {
        status: 400,
        json: {
          name: 'USER_BUSINESS_ERROR',
          message: 'User business error.',
          debug_id: debugId(),
          information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/#errors',
          details: [
            {
              field: 'SENDER_BATCH_ID',
              location: 'body',
              issue: 'Batch with given sender_batch_id already exists',
              link:
                fake.repeatAnswer === 'unlinked'
                  ? []
                  : [{ href: `${fake.url}/v1/payments/payouts/${earlier.payout_batch_id}`, rel: 'self', method: 'GET' }],
            },
          ],
          links: [],
        },
      };
    }
    const now = new Date().toISOString();
    const batch: Batch = {
      payout_batch_id: pid(),
      batch_status: 'PENDING',
      time_created: now,
      sender_batch_header: {
        sender_batch_id: senderBatchId,
        ...(header.email_subject !== undefined ? { email_subject: header.email_subject } : {}),
        ...(header.email_message !== undefined ? { email_message: header.email_message } : {}),
      },
      createdAt: Date.now(),
      items: [],
    };
    for (const it of json.items) {
      const decimals = PAYPAL_DECIMALS[it.amount.currency];
      const item: Item = {
        payout_item_id: pid(),
        transaction_status: 'PENDING',
        payout_item_fee: { currency: it.amount.currency, value: decimal(0n, decimals) },
        payout_batch_id: batch.payout_batch_id,
        sender_batch_id: senderBatchId,
        payout_item: {
          recipient_type: 'EMAIL',
          amount: { currency: it.amount.currency, value: it.amount.value },
          ...(it.note !== undefined ? { note: it.note } : {}),
          receiver: it.receiver,
          ...(it.sender_item_id !== undefined ? { sender_item_id: it.sender_item_id } : {}),
          recipient_wallet: 'PAYPAL',
        },
      };
      batch.items.push(item);
      items.set(item.payout_item_id, item);
      schedule(item, outcomeOf(it.receiver));
    }
    fake.batches.set(batch.payout_batch_id, batch);
    bySender.set(senderBatchId, batch);
    return {
      status: 201,
      json: {
        batch_header: {
          payout_batch_id: batch.payout_batch_id,
          batch_status: 'PENDING',
          sender_batch_header: batch.sender_batch_header,
        },
        links: [{ href: `${fake.url}/v1/payments/payouts/${batch.payout_batch_id}`, rel: 'self', method: 'GET' }],
      },
    };
  };

  const verifySignature = (json: any): Answer => {
    const required = ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id', 'webhook_event'];
    const missing = required.find((f) => json?.[f] === undefined || json[f] === null || json[f] === '');
    if (missing) return validation(missing, 'A required field is missing.');
    // The published request schema's patterns and formats.
    if (!/^[a-zA-Z0-9]{1,100}$/.test(String(json.auth_algo))) return validation('auth_algo', 'Does not match the pattern.');
    if (!/^[a-zA-Z0-9]{1,50}$/.test(String(json.webhook_id))) return validation('webhook_id', 'Does not match the pattern.');
    if (!/^(?!\d+$)\w+\S+$/.test(String(json.transmission_id)) || String(json.transmission_id).length > 50)
      return validation('transmission_id', 'Does not match the pattern.');
    if (!/^(?!\d+$)\w+\S+$/.test(String(json.transmission_sig)) || String(json.transmission_sig).length > 500)
      return validation('transmission_sig', 'Does not match the pattern.');
    if (Number.isNaN(Date.parse(String(json.transmission_time)))) return validation('transmission_time', 'Must be a date-time.');
    if (!URL.canParse(String(json.cert_url))) return validation('cert_url', 'Must be a URI.');
    if (typeof json.webhook_event !== 'object' || Array.isArray(json.webhook_event))
      return validation('webhook_event', 'Must be an event.');
    // PayPal checks the signature over the event it is given: the receiver must pass the body it got, unchanged.
    const ok =
      json.webhook_id === fake.webhookId &&
      json.auth_algo === AUTH_ALGO &&
      json.cert_url === certUrl() &&
      signer.check({
        transmissionId: String(json.transmission_id),
        transmissionTime: String(json.transmission_time),
        webhookId: String(json.webhook_id),
        rawBody: JSON.stringify(json.webhook_event),
        sig: String(json.transmission_sig),
      });
    return { status: 200, json: { verification_status: ok ? 'SUCCESS' : 'FAILURE' } };
  };

  const route = (req: IncomingMessage, path: string, body: string): Answer => {
    if (req.method === 'POST' && path === '/v1/oauth2/token') return issueToken(req, body);
    if (req.method === 'GET' && path.startsWith('/v1/notifications/certs/')) return { status: 200, json: signer.publicKeyPem };
    const unauthorized = bearer(req);
    if (unauthorized) return unauthorized;
    let json: any;
    if (req.method === 'POST') {
      try {
        json = JSON.parse(body);
      } catch {
        return {
          status: 400,
          json: { name: 'MALFORMED_REQUEST', message: 'Incoming JSON request does not map to API request', debug_id: debugId() },
        };
      }
    }
    if (req.method === 'POST' && path === '/v1/payments/payouts') {
      // PayPal-Request-Id: a repeat answers what the first request was answered (a success; a refusal is not kept).
      const requestId = header(req, 'paypal-request-id');
      const replay = requestId && fake.requestIdReplay ? byRequestId.get(requestId) : undefined;
      if (replay) return replay;
      const answer = createPayout(json);
      if (requestId && answer.status === 201) byRequestId.set(requestId, answer);
      return answer;
    }
    if (req.method === 'POST' && path === '/v1/notifications/verify-webhook-signature') return verifySignature(json);
    const batchMatch = /^\/v1\/payments\/payouts\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && batchMatch) {
      const batch = fake.batches.get(decodeURIComponent(batchMatch[1]));
      return batch ? { status: 200, json: batchView(batch) } : notFound();
    }
    const itemMatch = /^\/v1\/payments\/payouts-item\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && itemMatch) {
      const item = items.get(decodeURIComponent(itemMatch[1]));
      return item ? { status: 200, json: itemView(item) } : notFound();
    }
    return notFound();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const entry: LoggedRequest = { method: req.method ?? '', path, status: 0, at: Date.now() };
    if (typeof req.headers['paypal-request-id'] === 'string') entry.requestId = req.headers['paypal-request-id'];
    try {
      entry.json = body && req.headers['content-type']?.startsWith('application/json') ? JSON.parse(body) : undefined;
    } catch {
      entry.json = undefined;
    }
    fake.requests.push(entry);
    const now = Date.now();
    const fault = faults.find(
      (f): f is Extract<Fault, { match?: string }> & { until: number } =>
        f.kind !== 'refuse' && f.until > now && (!f.match || path.startsWith(f.match)),
    );
    if (fault?.kind === 'hang') {
      if (fault.process) route(req, path, body);
      hung.add(res);
      later(fault.until - now, () => {
        hung.delete(res);
        res.destroy();
      });
      return;
    }
    if (fault?.kind === '500') {
      if (fault.process) route(req, path, body);
      entry.status = 500;
      res.writeHead(500, { 'content-type': 'application/json', 'paypal-debug-id': debugId() });
      res.end(JSON.stringify({ name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error has occurred.', debug_id: debugId() }));
      return;
    }
    const answer = route(req, path, body);
    entry.status = answer.status;
    const text = typeof answer.json === 'string';
    res.writeHead(answer.status, { 'content-type': text ? 'text/plain' : 'application/json', 'paypal-debug-id': debugId() });
    res.end(text ? (answer.json as string) : JSON.stringify(answer.json));
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
  const server: Server | HttpsServer = options.tls ? createHttpsServer({ ...options.tls }, handler) : createServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (p: number) => new Promise<void>((resolve, reject) => server.listen(p, '127.0.0.1', resolve).once('error', reject));
  await listen(0);
  port = (server.address() as AddressInfo).port;

  const fake: PaypalFake = {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    clientId: options.clientId ?? `fake-client-${pid(8)}`,
    clientSecret: options.clientSecret ?? `fake-secret-${randomBytes(16).toString('hex')}`,
    webhookId: options.webhookId ?? pid(17),
    webhookUrl: options.webhookUrl,
    requests: [],
    events: [],
    deliveries: [],
    batches: new Map(),
    repeatAnswer: 'linked',
    requestIdReplay: true,
    count: (method, prefix) => fake.requests.filter((r) => r.method === method && r.path.startsWith(prefix)).length,
    itemOfSenderBatch: (senderBatchId) => bySender.get(senderBatchId)?.items[0],
    fault(f) {
      faults.push({ ...f, until: Date.now() + f.ms });
      if (f.kind === 'refuse') {
        server.close();
        for (const s of sockets) s.destroy();
        later(f.ms, () => {
          void listen(port);
        });
      }
    },
    expireTokens: () => tokens.clear(),
    holdDeliveries() {
      held ??= [];
    },
    async releaseDeliveries({ reverse = false } = {}) {
      const list = held ?? [];
      held = null;
      for (const d of reverse ? [...list].reverse() : list) await send(d);
    },
    async redeliver(eventId) {
      const event = fake.events.find((e) => e.id === eventId);
      if (!event) throw new Error(`paypal fake: no event ${eventId}`);
      const rawBody = JSON.stringify(event);
      return transmit(event, rawBody, signer.headers(rawBody, fake.webhookId, certUrl()));
    },
    async forge(event, how = 'bad-signature') {
      const rawBody = JSON.stringify(event);
      if (how === 'bad-signature') return transmit(event, rawBody, stranger.headers(rawBody, fake.webhookId, certUrl()));
      if (how === 'other-webhook') return transmit(event, rawBody, signer.headers(rawBody, pid(17), certUrl()));
      const headers = signer.headers(rawBody, fake.webhookId, certUrl());
      const altered = JSON.stringify({
        ...event,
        resource: { ...event.resource, transaction_status: 'SUCCESS' },
        summary: `${event.summary}.`,
      });
      return transmit(event, altered, headers);
    },
    sign: (rawBody, webhookId = fake.webhookId) => signer.headers(rawBody, webhookId, certUrl()),
    async settle(payoutItemId, status) {
      const item = items.get(payoutItemId);
      if (!item) throw new Error(`paypal fake: no item ${payoutItemId}`);
      await apply(item, stepTo(status));
    },
    async until(predicate, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error('paypal fake: timed out waiting');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const res of hung) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
  };
  return fake;
}

/** A decimal string with `decimals` places → an integer of minor units (the fake's own check). */
function minor(value: string, decimals: number): bigint {
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

function decimal(units: bigint, decimals: number): string {
  if (!decimals) return units.toString();
  const s = units.toString().padStart(decimals + 1, '0');
  return `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}
