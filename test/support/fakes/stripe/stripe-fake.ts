/**
 * A local fake of Stripe for the test suite: an HTTP server on 127.0.0.1 that speaks Stripe's wire
 * format (form-encoded bodies in bracket notation, Bearer secret keys, JSON answers, Stripe's error
 * shape and statuses, Idempotency-Key replay) so the official `stripe` package is the client.
 * Its resources follow Stripe's OpenAPI description; see docs/testing.md for what it covers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import Stripe from 'stripe';
import { browserLibrarySource } from './browser-library.js';
import { parseStripeForm } from './form-body.js';
import { donePage, identityPage, threeDSecurePage } from './hosted-pages.js';
import { type IdentityOutcome, type RequestContext, StripeApi } from './stripe-api.js';
import { StripeError } from './stripe-error.js';
import { stripeId } from './stripe-ids.js';
import { type Delivery, type Forgery, type StripeEvent, type WebhookEndpoint, WebhookSender } from './webhook-sender.js';

export type { Delivery, Forgery, IdentityOutcome, StripeEvent, WebhookEndpoint };

export interface StripeFakeOptions {
  /** The secret key the fake accepts (default `sk_test_fake_holdfast`). */
  secretKey?: string;
  /** The publishable key the browser library uses (default `pk_test_fake_holdfast`). */
  publishableKey?: string;
  /** Webhook endpoints to send events to (more can be added with `addWebhookEndpoint`). */
  webhooks?: WebhookEndpoint[];
  /** `api_version` of the events (default: the `stripe` package's pinned version). */
  apiVersion?: string;
  /** How long after its creation a refund of `pm_card_refundFail` fails (default 200 ms). */
  refundFailureDelayMs?: number;
  /** Retries of a delivery answered non-2xx (default 3 attempts, 100 ms doubling). */
  webhookRetry?: { attempts: number; delayMs: number };
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Serve HTTPS with this key and certificate (PEM; test/support/fakes/tls.ts makes a self-signed one) instead of HTTP. */
  tls?: { key: string; cert: string };
}

/** One request the fake received, as a test counts them. */
export interface LoggedRequest {
  requestId: string;
  method: string;
  path: string;
  idempotencyKey: string | null;
  stripeVersion: string | null;
  /** The decoded form body (POST) or query (GET). */
  body: Record<string, any>;
  /** The status answered; undefined while unanswered or when a fault dropped it. */
  status?: number;
  /** Answered from the idempotency store (`Idempotent-Replayed: true`). */
  replayed: boolean;
  fault?: FaultMode;
  at: number;
}

/**
 * Faults of the provider:
 * - `error`: the API answers `status` (default 500, `api_error`) without doing anything;
 * - `hang`: the API reads the request and never answers (the client's timeout fires); nothing is done;
 * - `lose-response`: the API does the work (and stores it for idempotent replay) but the connection drops before the answer;
 * - `refuse`: the server stops listening, so connections are refused.
 */
export type FaultMode = 'error' | 'hang' | 'lose-response' | 'refuse';

export interface FaultOptions {
  /** How long the fault lasts (the only way to end `refuse`). */
  forMs?: number;
  /** Or: how many API requests it affects. */
  requests?: number;
  /** The status of `error` (default 500; 429 answers Stripe's rate-limit error). */
  status?: number;
  /** Only API requests whose path starts with this (or matches it) are affected and counted; default all. */
  path?: string | RegExp;
}

export interface StripeFake {
  /** `http://127.0.0.1:<port>` (`https://` with the `tls` option) — what `STRIPE_API_BASE` is set to. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly protocol: 'http' | 'https';
  readonly secretKey: string;
  readonly publishableKey: string;
  /** The browser library stand-in (`STRIPE_JS_URL`). */
  readonly jsUrl: string;
  readonly apiVersion: string;
  /** Options for `new Stripe(secretKey, { ...fake.clientOptions(), … })`. */
  clientOptions(): { host: string; port: number; protocol: 'http' | 'https' };
  /** The objects the fake holds (maps by id), for assertions. */
  readonly api: StripeApi;
  /** Every request received, in order. */
  readonly requests: LoggedRequest[];
  /** The requests to a method and path (a string prefix or a pattern). */
  requestsTo(method: string, path: string | RegExp): LoggedRequest[];
  /** Every event created, in order. */
  readonly events: StripeEvent[];
  /** Every webhook POST made (retries and forgeries included). */
  readonly deliveries: Delivery[];
  /** Registers an endpoint; the function returned removes it. */
  addWebhookEndpoint(endpoint: WebhookEndpoint): () => void;
  /** Resolves with the first event of `type` (matching `where`) — already sent or still to come. */
  waitForEvent(type: string, where?: (event: StripeEvent) => boolean, ms?: number): Promise<StripeEvent>;
  /** Resolves once every webhook delivery started so far has finished. */
  eventsDelivered(): Promise<void>;
  /** Holds events (they are created but not sent) until `releaseEvents`. */
  holdEvents(): void;
  /** Sends the held events: as emitted, reversed, or the listed ids first. */
  releaseEvents(order?: 'emitted' | 'reversed' | string[]): StripeEvent[];
  /** Sends an event again (a duplicate delivery). */
  redeliver(eventId: string): void;
  /** Emits a new event (a new id) of an event's type and object, as Stripe may notify one change twice; returns it. */
  resend(eventId: string): StripeEvent;
  /** Emits a signed event of `type` about an object the fake need not hold (a charge made elsewhere, a malformed object). */
  emitEvent(type: string, object: Record<string, any>): StripeEvent;
  /** Posts an event (an existing one, or a new one of `type` about `object`) with a signature that does not verify. */
  sendForged(event: StripeEvent | { type: string; object: Record<string, any> }, how?: Forgery): Promise<Delivery[]>;
  /** Completes or fails the 3-D Secure challenge of a PaymentIntent (as `POST /3ds/<id>?outcome=` does). */
  authenticate(paymentIntentId: string, outcome: 'complete' | 'fail'): Record<string, any>;
  /** Moves a VerificationSession to an outcome, sending its event; `requires_input` takes a `last_error` code. */
  settleVerification(sessionId: string, outcome: IdentityOutcome, errorCode?: string): Record<string, any>;
  /** Lets an uncaptured authorization lapse (Stripe: after seven days): canceled `automatic`, event `charge.expired`. */
  expireAuthorization(paymentIntentId: string): Record<string, any>;
  /** Fails a refund now, as Stripe does later for a card that cannot be refunded. */
  failRefund(refundId: string, reason?: string): Record<string, any>;
  /**
   * Opens a dispute on a PaymentIntent's captured charge (`charge.dispute.created`; an inquiry
   * with `inquiry`), then, unless `withdraw: false` or an inquiry, Stripe takes the money
   * (`charge.dispute.funds_withdrawn`). The events are signed and sent like any other.
   */
  openDispute(
    paymentIntentId: string,
    options?: { reason?: string; amount?: number; inquiry?: boolean; withdraw?: boolean; dueInDays?: number },
  ): Record<string, any>;
  /** Stripe takes a dispute's money now (`charge.dispute.funds_withdrawn`), if it has not. */
  withdrawDisputeFunds(disputeId: string): Record<string, any>;
  /** The bank escalates an inquiry to a chargeback on the same dispute (`needs_response`, `charge.dispute.updated`); no money moves yet. */
  escalateInquiry(disputeId: string, dueInDays?: number): Record<string, any>;
  /** The network decides a dispute (`charge.dispute.closed`; for `won` with the money taken, `charge.dispute.funds_reinstated` after it). */
  closeDispute(disputeId: string, outcome: 'won' | 'lost' | 'warning_closed'): Record<string, any>;
  /** Starts a fault of the provider. */
  fault(mode: FaultMode, options: FaultOptions): void;
  /** Ends any fault now (listening again after `refuse`). */
  clearFault(): Promise<void>;
  stop(): Promise<void>;
}

interface Stored {
  requestId: string;
  method: string;
  path: string;
  params: string;
  status: number;
  body: string;
}

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** Open to the publishable key (the browser library's calls). */
  publishable?: boolean;
  run: (params: Record<string, any>, ctx: RequestContext, id: string) => Record<string, any>;
}

/** Starts the Stripe fake on 127.0.0.1; stop it with `stop()`. */
export async function startStripeFake(options: StripeFakeOptions = {}): Promise<StripeFake> {
  const secretKey = options.secretKey ?? 'sk_test_fake_holdfast';
  const publishableKey = options.publishableKey ?? 'pk_test_fake_holdfast';
  const apiVersion = options.apiVersion ?? Stripe.API_VERSION;
  const host = '127.0.0.1';
  let port = options.port ?? 0;
  const protocol = options.tls ? 'https' : 'http';
  const baseUrl = () => `${protocol}://${host}:${port}`;

  const webhooks = new WebhookSender(apiVersion, options.webhookRetry ?? { attempts: 3, delayMs: 100 });
  for (const endpoint of options.webhooks ?? []) webhooks.endpoints.push(endpoint);
  const api = new StripeApi(webhooks, baseUrl, options.refundFailureDelayMs ?? 200);
  const requests: LoggedRequest[] = [];
  const idempotency = new Map<string, Stored>();
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  let fault: { mode: FaultMode; until?: number; remaining?: number; status: number; path?: string | RegExp } | undefined;
  let reopenTimer: NodeJS.Timeout | undefined;
  let listening = false;

  const routes: Route[] = [
    { method: 'POST', pattern: /^\/v1\/customers$/, run: (p, ctx) => api.createCustomer(p, ctx) },
    { method: 'GET', pattern: /^\/v1\/customers\/([^/]+)$/, run: (_p, _ctx, id) => api.customer(id) },
    { method: 'POST', pattern: /^\/v1\/payment_methods$/, publishable: true, run: (p, ctx) => api.createPaymentMethod(p, ctx) },
    { method: 'GET', pattern: /^\/v1\/payment_methods$/, run: (p) => api.listPaymentMethods(p.customer, p) },
    { method: 'GET', pattern: /^\/v1\/customers\/([^/]+)\/payment_methods$/, run: (p, _ctx, id) => api.listPaymentMethods(id, p) },
    { method: 'GET', pattern: /^\/v1\/payment_methods\/([^/]+)$/, run: (_p, _ctx, id) => api.paymentMethod(id) },
    { method: 'POST', pattern: /^\/v1\/payment_methods\/([^/]+)\/detach$/, run: (_p, ctx, id) => api.detachPaymentMethod(id, ctx) },
    { method: 'POST', pattern: /^\/v1\/payment_methods\/([^/]+)\/attach$/, run: (p, ctx, id) => api.attachPaymentMethod(id, p, ctx) },
    { method: 'POST', pattern: /^\/v1\/payment_intents$/, run: (p, ctx) => api.createPaymentIntent(p, ctx) },
    { method: 'GET', pattern: /^\/v1\/payment_intents\/([^/]+)$/, publishable: true, run: (p, ctx, id) => api.paymentIntent(id, p, ctx) },
    { method: 'POST', pattern: /^\/v1\/payment_intents\/([^/]+)$/, run: (p, _ctx, id) => api.updatePaymentIntent(id, p) },
    {
      method: 'POST',
      pattern: /^\/v1\/payment_intents\/([^/]+)\/confirm$/,
      publishable: true,
      run: (p, ctx, id) => api.confirmPaymentIntent(id, p, ctx),
    },
    { method: 'POST', pattern: /^\/v1\/payment_intents\/([^/]+)\/cancel$/, run: (p, ctx, id) => api.cancelPaymentIntent(id, p, ctx) },
    { method: 'POST', pattern: /^\/v1\/payment_intents\/([^/]+)\/capture$/, run: (p, ctx, id) => api.capturePaymentIntent(id, p, ctx) },
    { method: 'GET', pattern: /^\/v1\/charges\/([^/]+)$/, run: (_p, _ctx, id) => api.charge(id) },
    { method: 'POST', pattern: /^\/v1\/refunds$/, run: (p, ctx) => api.createRefund(p, ctx) },
    { method: 'GET', pattern: /^\/v1\/refunds\/([^/]+)$/, run: (_p, _ctx, id) => api.refund(id) },
    { method: 'GET', pattern: /^\/v1\/disputes\/([^/]+)$/, run: (_p, _ctx, id) => api.dispute(id) },
    { method: 'POST', pattern: /^\/v1\/disputes\/([^/]+)$/, run: (p, ctx, id) => api.updateDispute(id, p, ctx) },
    { method: 'POST', pattern: /^\/v1\/disputes\/([^/]+)\/close$/, run: (_p, ctx, id) => api.acceptDispute(id, ctx) },
    { method: 'POST', pattern: /^\/v1\/identity\/verification_sessions$/, run: (p, ctx) => api.createVerificationSession(p, ctx) },
    { method: 'GET', pattern: /^\/v1\/identity\/verification_sessions\/([^/]+)$/, run: (_p, _ctx, id) => api.verificationSession(id) },
    {
      method: 'POST',
      pattern: /^\/v1\/identity\/verification_sessions\/([^/]+)\/cancel$/,
      run: (_p, ctx, id) => api.cancelVerificationSession(id, ctx),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/events\/([^/]+)$/,
      run: (_p, _ctx, id) => {
        const event = webhooks.events.find((e) => e.id === id);
        if (!event) throw StripeError.missing('event', id);
        return event;
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/events$/,
      run: (p) => {
        const limit = Math.min(Number(p.limit ?? 10) || 10, 100);
        const matching = webhooks.events.filter((e) => !p.type || e.type === p.type).reverse();
        return { object: 'list', data: matching.slice(0, limit), has_more: matching.length > limit, url: '/v1/events' };
      },
    },
  ];

  /** The active fault for an API request, counting it down. */
  const activeFault = (path: string): typeof fault => {
    if (!fault) return undefined;
    if (fault.path !== undefined && !(typeof fault.path === 'string' ? path.startsWith(fault.path) : fault.path.test(path)))
      return undefined;
    if (fault.until !== undefined && Date.now() >= fault.until) {
      fault = undefined;
      return undefined;
    }
    if (fault.remaining !== undefined) {
      if (fault.remaining <= 0) {
        fault = undefined;
        return undefined;
      }
      fault.remaining -= 1;
    }
    return fault;
  };

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*', ...headers });
    res.end(body);
  };

  const handleApi = (req: IncomingMessage, res: ServerResponse, raw: string, url: URL) => {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const header = (name: string) => {
      const v = req.headers[name];
      return (Array.isArray(v) ? v[0] : v) ?? null;
    };
    const requestId = stripeId('req', 14);
    const idempotencyKey = method === 'POST' ? header('idempotency-key') : null;
    const params = method === 'POST' ? parseStripeForm(raw) : parseStripeForm(url.search.slice(1));
    const entry: LoggedRequest = {
      requestId,
      method,
      path,
      idempotencyKey,
      stripeVersion: header('stripe-version'),
      body: params,
      replayed: false,
      at: Date.now(),
    };
    requests.push(entry);
    const answer = (status: number, body: string, extra: Record<string, string> = {}) => {
      entry.status = status;
      const headers: Record<string, string> = { 'request-id': requestId, 'stripe-version': entry.stripeVersion ?? apiVersion, ...extra };
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      send(res, status, body, headers);
    };
    const error = (e: StripeError) => answer(e.status, JSON.stringify({ error: { ...e.body, request_log_url: undefined } }, null, 2));

    const active = activeFault(path);
    if (active?.mode === 'error') {
      entry.fault = 'error';
      return error(
        active.status === 429
          ? new StripeError(429, {
              type: 'invalid_request_error',
              code: 'rate_limit',
              message: 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.',
            })
          : new StripeError(active.status, { type: 'api_error', message: 'An unknown error occurred (Stripe fake: injected fault).' }),
      );
    }
    if (active?.mode === 'hang') {
      entry.fault = 'hang';
      hung.add(res);
      res.on('close', () => hung.delete(res));
      return;
    }

    // Authentication: a secret key everywhere; the publishable key only where Stripe.js may call.
    const auth = header('authorization') ?? '';
    const key = auth.startsWith('Bearer ')
      ? auth.slice(7).trim()
      : auth.startsWith('Basic ')
        ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0]
        : '';
    const route = routes.find((r) => r.method === method && r.pattern.test(path));
    if (!key) {
      return error(
        new StripeError(401, {
          type: 'invalid_request_error',
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        }),
      );
    }
    const publishable = key === publishableKey;
    if (key !== secretKey && !publishable) {
      return error(
        new StripeError(401, {
          type: 'invalid_request_error',
          message: `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`,
        }),
      );
    }
    if (!route) {
      return error(
        new StripeError(404, {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path}). The Stripe fake serves only the operations listed in docs/testing.md.`,
        }),
      );
    }
    if (publishable && !route.publishable) {
      return error(
        new StripeError(401, {
          type: 'invalid_request_error',
          message: 'This API call cannot be made with a publishable API key. Please use a secret API key.',
        }),
      );
    }

    const paramsKey = canonical(params);
    if (idempotencyKey) {
      const stored = idempotency.get(idempotencyKey);
      if (stored) {
        if (stored.method !== method || stored.path !== path) {
          return error(
            new StripeError(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${stored.method} ${stored.path}' vs '${method} ${path}'). Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            }),
          );
        }
        if (stored.params !== paramsKey) {
          return error(
            new StripeError(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            }),
          );
        }
        entry.replayed = true;
        return answer(stored.status, stored.body, { 'idempotent-replayed': 'true', 'original-request': stored.requestId });
      }
    }

    const ctx: RequestContext = { requestId, idempotencyKey, publishable };
    const id = decodeURIComponent(path.match(route.pattern)?.[1] ?? '');
    let status = 200;
    let body: string;
    let replayable = true;
    try {
      const result = route.run(params, ctx, id);
      body = JSON.stringify(api.expand(result, params.expand), null, 2);
    } catch (e) {
      if (!(e instanceof StripeError)) throw e;
      status = e.status;
      replayable = e.replayable;
      body = JSON.stringify({ error: e.body }, null, 2);
    }
    if (idempotencyKey && method === 'POST' && replayable) {
      idempotency.set(idempotencyKey, { requestId, method, path, params: paramsKey, status, body });
    }
    if (active?.mode === 'lose-response') {
      entry.fault = 'lose-response';
      res.socket?.destroy();
      return;
    }
    answer(status, body);
  };

  const handlePages = (res: ServerResponse, url: URL) => {
    const html = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(text);
    };
    const redirect = (location: string) => {
      res.writeHead(303, { location });
      res.end();
    };
    const outcome = url.searchParams.get('outcome');
    const threeDs = url.pathname.match(/^\/3ds\/([^/]+)$/);
    const identity = url.pathname.match(/^\/identity\/([^/]+)$/);
    const ctx: RequestContext = { requestId: '', idempotencyKey: null, publishable: false };
    try {
      if (url.pathname === '/v3/' || url.pathname === '/v3') {
        res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8', 'access-control-allow-origin': '*' });
        res.end(browserLibrarySource(baseUrl()));
        return;
      }
      if (threeDs) {
        const intent = api.paymentIntent(threeDs[1]);
        if (!outcome) return html(200, threeDSecurePage(intent.id, intent.amount, intent.currency));
        if (outcome !== 'complete' && outcome !== 'fail') return html(400, donePage('Bad outcome', 'outcome is complete or fail'));
        const returnUrl = intent.next_action?.redirect_to_url?.return_url as string | null;
        const done = api.completeAuthentication(intent.id, outcome, ctx);
        if (!returnUrl) return html(200, donePage('Authentication done', done.status));
        const back = new URL(returnUrl);
        back.searchParams.set('payment_intent', done.id);
        back.searchParams.set('payment_intent_client_secret', done.client_secret);
        // Stripe says `succeeded` of an authorized payment too (requires_capture, captured later).
        back.searchParams.set('redirect_status', ['succeeded', 'requires_capture'].includes(done.status) ? 'succeeded' : 'failed');
        return redirect(back.toString());
      }
      if (identity) {
        const session = api.verificationSession(identity[1]);
        if (!outcome) return html(200, identityPage(session.id));
        if (!['processing', 'verified', 'requires_input', 'canceled'].includes(outcome)) {
          return html(400, donePage('Bad outcome', 'outcome is processing, verified, requires_input or canceled'));
        }
        const code = url.searchParams.get('code') ?? undefined;
        // A user who submits goes through processing first, as on Stripe's page; one who gives up does not.
        const submitted = outcome === 'verified' || (outcome === 'requires_input' && code !== 'abandoned');
        if (submitted && session.status !== 'processing') api.settleVerificationSession(session.id, 'processing');
        api.settleVerificationSession(session.id, outcome as IdentityOutcome, code);
        const back = api.returnUrls.get(session.id);
        return back ? redirect(back) : html(200, donePage('Verification submitted', outcome));
      }
      html(404, donePage('Not found', url.pathname));
    } catch (e) {
      if (!(e instanceof StripeError)) throw e;
      html(e.status, donePage('Stripe fake', e.message));
    }
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', baseUrl());
      if (req.method === 'OPTIONS') {
        // The browser library calls the API cross-origin, as Stripe.js does.
        res.writeHead(204, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': 'authorization, content-type, idempotency-key, stripe-version',
        });
        res.end();
        return;
      }
      try {
        if (url.pathname.startsWith('/v1/')) handleApi(req, res, raw, url);
        else handlePages(res, url);
      } catch (e) {
        send(res, 500, JSON.stringify({ error: { type: 'api_error', message: `Stripe fake bug: ${(e as Error).message}` } }));
      }
    });
  };
  const server: Server | HttpsServer = options.tls ? createHttpsServer({ ...options.tls }, handler) : createServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        port = (server.address() as AddressInfo).port;
        listening = true;
        resolve();
      });
    });
  const close = () =>
    new Promise<void>((resolve) => {
      listening = false;
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  const endHangs = () => {
    for (const res of hung) res.socket?.destroy();
    hung.clear();
  };

  await listen();

  const fake: StripeFake = {
    get url() {
      return baseUrl();
    },
    host,
    get port() {
      return port;
    },
    protocol,
    secretKey,
    publishableKey,
    get jsUrl() {
      return `${baseUrl()}/v3/`;
    },
    apiVersion,
    clientOptions: () => ({ host, port, protocol }),
    api,
    requests,
    requestsTo: (method, path) =>
      requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path.startsWith(path) : path.test(r.path))),
    events: webhooks.events,
    deliveries: webhooks.deliveries,
    addWebhookEndpoint: (endpoint) => {
      webhooks.endpoints.push(endpoint);
      return () => {
        const at = webhooks.endpoints.indexOf(endpoint);
        if (at >= 0) webhooks.endpoints.splice(at, 1);
      };
    },
    async waitForEvent(type, where = () => true, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = webhooks.events.find((e) => e.type === type && where(e));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`stripe fake: no ${type} event within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    eventsDelivered: () => webhooks.settled(),
    holdEvents: () => webhooks.hold(),
    releaseEvents: (order) => webhooks.release(order),
    redeliver: (eventId) => webhooks.redeliver(eventId),
    emitEvent: (type, object) => webhooks.emit(type, object, { id: null, idempotency_key: null }),
    resend: (eventId) => {
      const event = webhooks.events.find((e) => e.id === eventId);
      if (!event) throw new Error(`stripe fake: no event ${eventId}`);
      return webhooks.emit(event.type, event.data.object, event.request, event.data.previous_attributes);
    },
    sendForged: (event, how) => {
      const full: StripeEvent =
        'id' in event
          ? event
          : {
              id: stripeId('evt'),
              object: 'event',
              api_version: apiVersion,
              created: Math.floor(Date.now() / 1000),
              data: { object: event.object },
              livemode: false,
              pending_webhooks: 1,
              request: { id: null, idempotency_key: null },
              type: event.type,
            };
      return webhooks.forge(full, how);
    },
    authenticate: (id, outcome) => api.completeAuthentication(id, outcome, { requestId: '', idempotencyKey: null, publishable: false }),
    settleVerification: (id, outcome, code) => api.settleVerificationSession(id, outcome, code),
    failRefund: (id, reason) => api.failRefund(id, reason),
    openDispute: (id, o = {}) => {
      const dispute = api.openDispute(id, o);
      return o.inquiry || o.withdraw === false ? dispute : api.withdrawDisputeFunds(dispute.id);
    },
    withdrawDisputeFunds: (id) => api.withdrawDisputeFunds(id),
    escalateInquiry: (id, days) => api.escalateInquiry(id, days),
    closeDispute: (id, outcome) => api.closeDisputeAs(id, outcome),
    expireAuthorization: (id) => api.expireAuthorization(id),
    fault(mode, o) {
      if (o.forMs === undefined && o.requests === undefined) throw new Error('stripe fake: a fault needs forMs or requests');
      if (mode === 'refuse') {
        if (o.forMs === undefined) throw new Error('stripe fake: refuse needs forMs');
        clearTimeout(reopenTimer);
        void close();
        reopenTimer = setTimeout(() => {
          reopenTimer = undefined;
          listen().catch((e) => console.error(`stripe fake: could not listen again on ${port}: ${e.message}`));
        }, o.forMs);
        return;
      }
      fault = {
        mode,
        until: o.forMs === undefined ? undefined : Date.now() + o.forMs,
        remaining: o.requests,
        status: o.status ?? 500,
        path: o.path,
      };
      if (mode === 'hang' && o.forMs !== undefined) setTimeout(endHangs, o.forMs).unref();
    },
    async clearFault() {
      fault = undefined;
      endHangs();
      clearTimeout(reopenTimer);
      reopenTimer = undefined;
      if (!listening) await listen();
    },
    async stop() {
      clearTimeout(reopenTimer);
      api.stop();
      webhooks.stop();
      endHangs();
      if (listening) await close();
    },
  };
  return fake;
}

/** Parameters as a stable string (sorted keys), to compare a replay's body with the first. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
