/**
 * PayPal's REST API as Holdfast calls it, with `got` (PayPal's current Node server package does
 * not cover payouts): OAuth 2.0 client credentials, Payouts (`/v1/payments/payouts`) and the
 * webhook signature check (`/v1/notifications/verify-webhook-signature`). Shapes follow PayPal's
 * published specifications (payments_payouts_batch_v1, notifications_webhooks_v1).
 * A timeout, a refused connection, a 5xx or a 429 throws RailUnavailableError (the command is
 * retried later); another refusal throws PaypalApiError. Neither carries the secret, the access
 * token nor a got error (whose options hold the Authorization header).
 */
import got, { type Got, type Method, RequestError } from 'got';
import { PaypalApiError } from './paypal-api.error.js';
import type { PaypalAmount } from './paypal-amount.rules.js';
import { RailUnavailableError } from './rail-unavailable.error.js';

export interface PaypalClientOptions {
  clientId: string;
  clientSecret: string;
  /** The webhook's id in PayPal's developer dashboard (`PAYPAL_WEBHOOK_ID`). */
  webhookId: string;
  /** `https://api-m.paypal.com` (live) or `https://api-m.sandbox.paypal.com`. */
  apiBase: string;
  /** Each request's whole time limit. */
  timeoutMs?: number;
}

export interface PaypalPayoutItemRequest {
  recipient_type: 'EMAIL';
  amount: PaypalAmount;
  receiver: string;
  note?: string;
  sender_item_id?: string;
}

export interface PaypalCreatePayoutRequest {
  sender_batch_header: { sender_batch_id: string; email_subject?: string; email_message?: string };
  items: PaypalPayoutItemRequest[];
}

export type PaypalBatchStatus = 'DENIED' | 'PENDING' | 'PROCESSING' | 'SUCCESS' | 'CANCELED';

export interface PaypalBatchHeader {
  payout_batch_id: string;
  batch_status: PaypalBatchStatus;
  time_created?: string;
  sender_batch_header: { sender_batch_id?: string; email_subject?: string };
  [field: string]: unknown;
}

export interface PaypalPayoutItem {
  payout_item_id: string;
  payout_batch_id: string;
  /** SUCCESS, FAILED, PENDING, UNCLAIMED, RETURNED, ONHOLD, BLOCKED, REFUNDED, REVERSED (and DENIED in practice). */
  transaction_status?: string;
  transaction_id?: string;
  sender_batch_id?: string;
  payout_item: { amount: PaypalAmount; receiver: string; sender_item_id?: string; note?: string; [field: string]: unknown };
  errors?: { name?: string; message?: string };
  [field: string]: unknown;
}

export interface PaypalPayoutBatch {
  batch_header: PaypalBatchHeader;
  items?: PaypalPayoutItem[];
  [field: string]: unknown;
}

/** Headers as Node gives them (lower-case names). */
export type WebhookHeaders = Record<string, string | string[] | undefined>;

interface Token {
  value: string;
  /** When to fetch a new one: shortly before PayPal's `expires_in` runs out. */
  renewAt: number;
}

/** Refresh this long before a token expires: a tenth of its life, at most five minutes. */
function renewMargin(expiresInSeconds: number): number {
  return Math.min(300_000, expiresInSeconds * 100);
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

type Json = Record<string, unknown>;

/** The body as a JSON object, or undefined. */
function parse(body: string): Json | undefined {
  try {
    const json: unknown = JSON.parse(body);
    return json && typeof json === 'object' && !Array.isArray(json) ? (json as Json) : undefined;
  } catch {
    return undefined;
  }
}

function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => !!v && typeof v === 'object') : [];
}

/** A PayPal REST client for payouts and webhook verification. */
export class PaypalClient {
  private readonly http: Got;
  private token: Token | undefined;
  private pendingToken: Promise<string> | undefined;

  constructor(private readonly options: PaypalClientOptions) {
    this.http = got.extend({
      prefixUrl: options.apiBase,
      timeout: { request: options.timeoutMs ?? 15_000 },
      // Retries are the command pipeline's, with backoff: one attempt per call here.
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      responseType: 'text',
    });
  }

  /**
   * Creates a batch payout; answers PayPal's 201 body (`batch_header` with `payout_batch_id`,
   * `batch_status` PENDING). With `requestId`, the request carries it as `PayPal-Request-Id`
   * (PayPal keeps it 30 days): PayPal answers a repeat of it with the first request's answer.
   */
  async createPayout(
    request: PaypalCreatePayoutRequest,
    options: { requestId?: string } = {},
  ): Promise<{ batch_header: PaypalBatchHeader }> {
    return this.call('POST', 'v1/payments/payouts', request, options.requestId ? { 'paypal-request-id': options.requestId } : {});
  }

  /** A batch with its items. */
  async getPayoutBatch(payoutBatchId: string): Promise<PaypalPayoutBatch> {
    return this.call('GET', `v1/payments/payouts/${encodeURIComponent(payoutBatchId)}`);
  }

  /** One payout item, with its `transaction_status`. */
  async getPayoutItem(payoutItemId: string): Promise<PaypalPayoutItem> {
    return this.call('GET', `v1/payments/payouts-item/${encodeURIComponent(payoutItemId)}`);
  }

  /**
   * Whether PayPal vouches for a webhook delivery: its transmission headers and its raw body go to
   * verify-webhook-signature for the configured webhook id. The body is passed byte for byte
   * (PayPal checks the signature over it), so it is spliced in, not re-serialized. A delivery
   * missing a header, with a body that is not a JSON object, or that PayPal finds malformed (400,
   * 422) is refused; PayPal unreachable throws RailUnavailableError (the delivery should be
   * answered 5xx so that PayPal sends it again). The shape of the webhook inbox's `verifyPaypalWebhook`.
   */
  readonly verifyWebhookSignature = async (headers: WebhookHeaders, rawBody: string | Buffer): Promise<boolean> => {
    const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
    const fields = {
      auth_algo: header(headers, 'paypal-auth-algo'),
      cert_url: header(headers, 'paypal-cert-url'),
      transmission_id: header(headers, 'paypal-transmission-id'),
      transmission_sig: header(headers, 'paypal-transmission-sig'),
      transmission_time: header(headers, 'paypal-transmission-time'),
      webhook_id: this.options.webhookId,
    };
    if (Object.values(fields).some((v) => !v)) return false;
    if (!parse(body)) return false;
    try {
      const answer = await this.sendVerifyWebhookSignature(`${JSON.stringify(fields).slice(0, -1)},"webhook_event":${body}}`);
      return answer.verification_status === 'SUCCESS';
    } catch (err) {
      // A forged delivery's headers can be malformed: that is a refusal of the delivery, not an outage.
      if (err instanceof PaypalApiError && (err.status === 400 || err.status === 422)) return false;
      throw err;
    }
  };

  /** POSTs a verify-webhook-signature request body (JSON text, sent as is) and answers PayPal's answer. */
  async sendVerifyWebhookSignature(body: string): Promise<{ verification_status?: unknown }> {
    return this.call('POST', 'v1/notifications/verify-webhook-signature', body);
  }

  /** An access token: the cached one until shortly before it expires, else a new one (one request for concurrent callers). */
  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return this.token.value;
    this.pendingToken ??= this.fetchToken().finally(() => {
      this.pendingToken = undefined;
    });
    return this.pendingToken;
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`, 'utf8').toString('base64');
    const res = await this.send('POST', 'v1/oauth2/token', {
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'grant_type=client_credentials',
    });
    const json = parse(res.body);
    if (res.statusCode !== 200 || typeof json?.access_token !== 'string')
      throw this.refusal('POST', 'v1/oauth2/token', res.statusCode, json);
    const expiresIn = Number(json.expires_in) > 0 ? Number(json.expires_in) : 300;
    this.token = { value: json.access_token, renewAt: Date.now() + expiresIn * 1000 - renewMargin(expiresIn) };
    return json.access_token;
  }

  /** One authenticated call; a 401 (the token expired or was revoked early) fetches a new token and tries once more. */
  private async call<T>(method: Method, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.accessToken();
      const res = await this.send(method, path, {
        headers: {
          ...extraHeaders,
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const json = parse(res.body);
      if (res.statusCode === 401 && attempt === 1) {
        if (this.token?.value === token) this.token = undefined;
        continue;
      }
      if (res.statusCode >= 200 && res.statusCode < 300 && json !== undefined) return json as T;
      throw this.refusal(method, path, res.statusCode, json);
    }
  }

  /** Sends a request; a network failure or a timeout becomes RailUnavailableError, a 5xx or 429 too. */
  private async send(method: Method, path: string, options: { headers: Record<string, string>; body?: string }) {
    let res: { statusCode: number; body: string };
    try {
      res = await this.http(path, { method, headers: options.headers, body: options.body });
    } catch (err) {
      const code = err instanceof RequestError ? err.code : 'ERROR';
      throw new RailUnavailableError('payouts', `PayPal ${method} /${path} failed: ${code}`);
    }
    if (res.statusCode >= 500 || res.statusCode === 429) {
      const debugId = parse(res.body)?.debug_id;
      throw new RailUnavailableError(
        'payouts',
        `PayPal ${method} /${path} answered ${res.statusCode}${typeof debugId === 'string' ? ` (debug_id ${debugId})` : ''}`,
        res.statusCode,
      );
    }
    return res;
  }

  private refusal(method: Method, path: string, status: number, json: Json | undefined): PaypalApiError {
    const name = String(json?.name ?? json?.error ?? 'UNKNOWN');
    const details = objects(json?.details);
    const issues = details.map((d) => String(d.issue ?? '')).filter(Boolean);
    // The original batch of a repeated sender_batch_id is linked from the detail (or the error's links).
    const links = [...details.flatMap((d) => objects(d.link)), ...objects(json?.links)];
    const existing = links.map((l) => /\/v1\/payments\/payouts\/([^/?#]+)/.exec(String(l.href ?? ''))?.[1]).find((id) => id !== undefined);
    const debugId = typeof json?.debug_id === 'string' ? json.debug_id : undefined;
    const what = issues.length ? `: ${issues.join('; ')}` : json?.error_description ? `: ${json.error_description}` : '';
    return new PaypalApiError(
      status,
      name,
      `PayPal ${method} /${path} answered ${status} ${name}${what}`.slice(0, 300),
      debugId,
      issues,
      existing ? decodeURIComponent(existing) : undefined,
    );
  }
}
