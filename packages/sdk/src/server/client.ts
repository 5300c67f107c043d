/**
 * The integrator's server client: client credentials, a method per operation, retries and
 * typed errors.
 */
import { HoldfastError } from './errors.js';
import { OPERATIONS, OperationMethods, type OperationId } from './operations.js';
import type { CallOptions, InputOf, PayloadOf, TextStream } from './typing.js';

export interface HoldfastServerOptions {
  /** Holdfast's address, e.g. `https://holdfast.example.com`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Narrows the token to these scopes (default: every scope of the client). */
  scope?: string | string[];
  /** Retries of a call answered `429`, `503`, `409 IDEMPOTENCY_KEY_IN_USE` or not answered at all (default 3). */
  maxRetries?: number;
  /** The first retry's wait without `Retry-After`, doubling each time with jitter (default 500 ms). */
  retryBaseMs?: number;
  /** The longest wait between retries, `Retry-After` included (default 30 s). */
  maxRetryDelayMs?: number;
  /** A token is renewed this long before it expires (default 60 s). */
  refreshMarginMs?: number;
  /** Another `fetch` (a test double, a proxy agent's). */
  fetch?: typeof fetch;
}

/** A call's whole answer, from `request`. */
export interface HoldfastResponse<T> {
  status: number;
  headers: Headers;
  /** The body as answered (the envelope, a bare object, or undefined for none). */
  body: unknown;
  /** The envelope's `payload`, or the bare body. */
  payload: T;
}

interface Token {
  accessToken: string;
  expiresAt: number;
}

const RETRIED = new Set([429, 503]);
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

function isEnvelope(body: unknown): body is { status: string; message?: string[]; codes: string[]; payload: unknown } {
  return typeof body === 'object' && body !== null && Array.isArray((body as { codes?: unknown }).codes) && 'payload' in body;
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined. */
function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

type Page = Record<string, unknown>;
type ArrayItem<T> = T extends readonly (infer I)[] ? I : never;
/** The items of a list operation's page (the payload's array). */
export type ItemOf<K extends OperationId> = { [P in keyof PayloadOf<K>]: ArrayItem<PayloadOf<K>[P]> }[keyof PayloadOf<K>];
/** The operations that page (`limit`/`offset` or a `starting_after` cursor). */
export type PagedOperationId = {
  [K in OperationId]: InputOf<K> extends { query?: infer Q }
    ? Q extends { offset?: unknown } | { starting_after?: unknown }
      ? K
      : never
    : never;
}[OperationId];

/**
 * Holdfast for an integrator's server. Every operation of the API is a method named after its
 * operationId (`registerAccount`, `createEscrow`, `refundInvoice`, `requestPayout`, `listEvents`…),
 * taking `{path, query, body}` as the OpenAPI documents name them and answering the envelope's
 * `payload`; a refusal throws a `HoldfastError`.
 */
export class HoldfastServer extends OperationMethods {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly options: Required<Omit<HoldfastServerOptions, 'fetch' | 'scope' | 'baseUrl'>> & { scope?: string };
  private cached: Token | undefined;
  private pending: Promise<Token> | undefined;

  constructor(options: HoldfastServerOptions) {
    super();
    if (!options.baseUrl || !options.clientId || !options.clientSecret)
      throw new TypeError('baseUrl, clientId and clientSecret are required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.options = {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      scope: Array.isArray(options.scope) ? options.scope.join(' ') : options.scope,
      maxRetries: options.maxRetries ?? 3,
      retryBaseMs: options.retryBaseMs ?? 500,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
      refreshMarginMs: options.refreshMarginMs ?? 60_000,
    };
  }

  /** The client token (`POST /token`, client credentials), cached and renewed before it expires; concurrent callers share one request. */
  async accessToken(options: { signal?: AbortSignal } = {}): Promise<string> {
    if (this.cached && this.cached.expiresAt - this.options.refreshMarginMs > Date.now()) return this.cached.accessToken;
    this.pending ??= this.issueToken(options.signal).finally(() => {
      this.pending = undefined;
    });
    return (await this.pending).accessToken;
  }

  /** Forgets the cached token: the next call asks for a new one. */
  clearToken(): void {
    this.cached = undefined;
  }

  private async issueToken(signal?: AbortSignal): Promise<Token> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
    });
    if (this.options.scope) form.set('scope', this.options.scope);
    const res = await this.send('issueToken', `${this.baseUrl}/token`, () => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal,
    }));
    const body = (await this.read(res)) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (!res.ok || !body?.access_token) {
      throw new HoldfastError({
        status: res.status,
        codes: body?.error ? [body.error] : [],
        messages: body?.error_description ? [body.error_description] : [],
        payload: body,
        operationId: 'issueToken',
        requestId: res.headers.get('x-request-id') ?? undefined,
      });
    }
    const token = { accessToken: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
    this.cached = token;
    return token;
  }

  /** Sends with retries: `429`/`503` (honouring `Retry-After`), `409 IDEMPOTENCY_KEY_IN_USE` and network failures. */
  private async send(
    operationId: string,
    url: string,
    init: () => RequestInit | Promise<RequestInit>,
    signal?: AbortSignal,
  ): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let res: Response | undefined;
      let failure: unknown;
      // Outside the try: a refused token request is an answer, not a lost connection.
      const request = await init();
      try {
        res = await this.fetch(url, request);
      } catch (err) {
        if (signal?.aborted) throw err;
        failure = err;
      }
      const last = attempt >= this.options.maxRetries;
      if (res && !RETRIED.has(res.status) && !(res.status === 409 && (await this.keyInUse(res)))) return res;
      if (last) {
        if (res) return res;
        throw new HoldfastError({ status: 0, messages: [String((failure as Error)?.message ?? failure)], operationId, cause: failure });
      }
      const asked = res ? retryAfterMs(res.headers.get('retry-after')) : undefined;
      const backoff = this.options.retryBaseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
      await res?.body?.cancel().catch(() => undefined);
      await sleep(Math.min(asked ?? backoff, this.options.maxRetryDelayMs), signal);
    }
  }

  private async keyInUse(res: Response): Promise<boolean> {
    const body = await res
      .clone()
      .json()
      .catch(() => null);
    return isEnvelope(body) && body.codes.includes('IDEMPOTENCY_KEY_IN_USE');
  }

  private async read(res: Response): Promise<unknown> {
    const text = await res.text();
    if (!text) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }

  private url<K extends OperationId>(id: K, input: InputOf<K>): string {
    const info = OPERATIONS[id];
    const params = (input.path ?? {}) as Record<string, string | number>;
    const path = info.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (params[name] === undefined || params[name] === '') throw new TypeError(`${id}: path parameter ${name} is required`);
      return encodeURIComponent(String(params[name]));
    });
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined && value !== null) query.set(key, String(value));
    }
    return `${this.baseUrl}${path}${query.size ? `?${query}` : ''}`;
  }

  private async fetchOperation<K extends OperationId>(id: K, input: InputOf<K>, options: CallOptions = {}): Promise<Response> {
    const info = OPERATIONS[id];
    const url = this.url(id, input);
    const key = info.idempotent ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
    const body = input.body as unknown;
    let renewed = false;
    for (;;) {
      const res = await this.send(
        id,
        url,
        async () => ({
          method: info.method,
          headers: {
            accept: info.text ? '*/*' : 'application/json',
            authorization: `Bearer ${await this.accessToken({ signal: options.signal })}`,
            ...(body === undefined ? {} : { 'content-type': info.form ? 'application/x-www-form-urlencoded' : 'application/json' }),
            ...(key ? { 'idempotency-key': key } : {}),
            ...options.headers,
          },
          body:
            body === undefined
              ? undefined
              : info.form
                ? new URLSearchParams(body as Record<string, string>).toString()
                : JSON.stringify(body),
          signal: options.signal,
        }),
        options.signal,
      );
      // A token revoked or signed with a rotated key: one new token, the same request (and key).
      if (res.status === 401 && !renewed && this.cached) {
        renewed = true;
        this.clearToken();
        await res.body?.cancel().catch(() => undefined);
        continue;
      }
      return res;
    }
  }

  private async failure(id: string, res: Response): Promise<HoldfastError> {
    const body = await this.read(res);
    const envelope = isEnvelope(body) ? body : undefined;
    const payload = envelope ? envelope.payload : body;
    const errors = (payload as { errors?: unknown } | undefined)?.errors;
    const retryAfter = retryAfterMs(res.headers.get('retry-after'));
    return new HoldfastError({
      status: res.status,
      codes: envelope?.codes ?? [],
      messages: envelope?.message ?? (typeof body === 'string' && body ? [body] : []),
      fields: errors && typeof errors === 'object' && !Array.isArray(errors) ? (errors as Record<string, string[]>) : {},
      payload,
      operationId: id,
      requestId: res.headers.get('x-request-id') ?? undefined,
      retryAfter: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
    });
  }

  /** Calls an operation by its operationId and answers the whole response (status, headers, body and payload); throws a `HoldfastError` for a non-2xx. */
  async request<K extends OperationId>(id: K, input: InputOf<K>, options?: CallOptions): Promise<HoldfastResponse<PayloadOf<K>>> {
    const res = await this.fetchOperation(id, input, options);
    if (!res.ok) throw await this.failure(id, res);
    const body = await this.read(res);
    return { status: res.status, headers: res.headers, body, payload: (isEnvelope(body) ? body.payload : body) as PayloadOf<K> };
  }

  protected async invoke<K extends OperationId>(id: K, input: InputOf<K>, options?: CallOptions): Promise<PayloadOf<K>> {
    return (await this.request(id, input, options)).payload;
  }

  protected async stream<K extends OperationId>(id: K, input: InputOf<K>, options?: CallOptions): Promise<TextStream> {
    const res = await this.fetchOperation(id, input, options);
    if (!res.ok) throw await this.failure(id, res);
    const contentType = res.headers.get('content-type') ?? 'application/octet-stream';
    async function* chunks(): AsyncGenerator<string> {
      if (!res.body) return;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const text = decoder.decode(value, { stream: true });
          if (text) yield text;
        }
        const rest = decoder.decode();
        if (rest) yield rest;
      } finally {
        reader.releaseLock();
      }
    }
    const iterator = chunks();
    return {
      contentType,
      [Symbol.asyncIterator]: () => iterator,
      async text() {
        let all = '';
        for await (const chunk of iterator) all += chunk;
        return all;
      },
    };
  }

  /**
   * Every item of a list operation, page after page, as far as the API pages (`limit`/`offset`
   * up to the operation's largest offset, or the `starting_after` cursor while `has_more`).
   * `query.limit` sets the page size (default 100); `query.offset` where to start.
   */
  async *paginate<K extends PagedOperationId>(id: K, input: InputOf<K>, options?: CallOptions): AsyncGenerator<ItemOf<K>, void, undefined> {
    const info = OPERATIONS[id];
    const query = { ...((input.query ?? {}) as Record<string, unknown>) };
    query.limit ??= 100;
    let offset = Number(query.offset ?? 0);
    for (;;) {
      if (info.paging === 'offset') query.offset = offset;
      const page = (await this.invoke(id, { ...input, query } as InputOf<K>, options)) as Page;
      const items = (Object.values(page ?? {}).find(Array.isArray) ?? []) as ItemOf<K>[];
      for (const item of items) yield item;
      if (items.length === 0) return;
      if (info.paging === 'cursor') {
        if (!page.has_more) return;
        const last = items[items.length - 1] as Record<string, unknown>;
        query.starting_after = last.invoice_id ?? last.id;
      } else {
        offset += items.length;
        const total = typeof page.total === 'number' ? page.total : undefined;
        if ((total !== undefined && offset >= total) || items.length < Number(query.limit)) return;
        if (info.maxOffset !== undefined && offset > info.maxOffset) return;
      }
    }
  }
}
