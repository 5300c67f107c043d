/**
 * The Holdfast client SDK, for a browser or any JavaScript runtime with `fetch`. It
 * holds only user password tokens — the integrator's server obtains them (`POST
 * /v2/authorize/invoice` with the `api` mechanism, or `POST /authorize/user` with
 * `return_token`) and hands them over; the client credentials never leave that server. Its
 * types come from the OpenAPI documents (`npm run sdk:types`).
 *
 * Flows and their callbacks, as the spec names them:
 * - `checkout` (an authorized invoice and its password token): `completed(invoiceId, invoice)`,
 *   `update(invoice)`, `canceled()`, `error(code, messages)`. With `paymentMethods` it pays
 *   through the API; with a `container` (browser) it shows the hosted checkout there and the
 *   user chooses.
 * - `transactionHistory` (a password token): `completed(invoices)`, `canceled()`, `error`.
 * - `receipt` (an invoice id and a password token): `completed(invoice)`, `canceled()`, `error`.
 * - `getPaymentMethods`: `success(methods)` or `failure(code, messages)`, with the SDK's token
 *   unless another is given.
 * - `balances` (a password token): `completed(balances)` per currency, `error`.
 * - `statement` (a password token): `completed({total, entries})` — a page of the user's
 *   wallet entries with the balance after each — `error`.
 *
 * An `error`'s code is the HTTP status of the call that failed, 402 for a payment that was
 * refused (a declined card, not enough funds: the invoice is FAILED), 202 for one still being
 * processed after two minutes, 0 when Holdfast could not be reached; `messages` are the API's
 * messages (for a refused payment, its `failure_reason`). Nothing throws: every outcome is a callback.
 */
import type { components as AuthTypes } from './types/auth.js';
import type { components as InvoicingTypes } from './types/invoicing.js';
import type { components as PaymentTypes } from './types/payments.js';

export type Invoice = InvoicingTypes['schemas']['Invoice'];
export type PaymentMethodShare = InvoicingTypes['schemas']['PaymentMethodShare'];
export type PaymentMethod = PaymentTypes['schemas']['PaymentMethod'];
export type UserToken = AuthTypes['schemas']['UserToken'];
export type CurrencyBalance = PaymentTypes['schemas']['CurrencyBalance'];
export type StatementEntry = InvoicingTypes['schemas']['StatementEntry'];

/** A password token as the authorization call answered it, or its access token alone. */
export type PasswordToken = string | UserToken;

export interface CheckoutCallbacks {
  completed(invoiceId: string, invoice: Invoice): void;
  update?(invoice: Invoice): void;
  canceled?(): void;
  error(code: number, messages: string[]): void;
}

export interface FlowCallbacks<T> {
  completed(result: T): void;
  canceled?(): void;
  error(code: number, messages: string[]): void;
}

export interface PaymentMethodCallbacks {
  success(methods: PaymentMethod[]): void;
  failure(code: number, messages: string[]): void;
}

export interface CheckoutInput {
  authorizedInvoiceId: string;
  passwordToken: PasswordToken;
  /** The buyer's choice (as the payment-selection flow gives it): pay through the API. */
  paymentMethods?: PaymentMethodShare[];
  /** Browser only: where to show the hosted checkout, for the user to choose. */
  container?: { appendChild(node: unknown): unknown };
  /** The hosted checkout's `flowConfig` and `theme`. */
  flowConfig?: Record<string, unknown>;
  theme?: { backgroundColor?: string; primaryColor?: string };
}

class CallFailed extends Error {
  constructor(
    readonly code: number,
    readonly messages: string[],
  ) {
    super(messages.join(' '));
  }
}

const accessToken = (token: PasswordToken) => (typeof token === 'string' ? token : token.access_token);

/** The account a user password token acts for (its `acct` claim); null for any other token. */
function tokenAccount(token: PasswordToken): string | null {
  try {
    const part = accessToken(token).split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = typeof atob === 'function' ? atob(part) : Buffer.from(part, 'base64').toString('binary');
    const account = (JSON.parse(json) as { acct?: unknown }).acct;
    return typeof account === 'string' ? account : null;
  } catch {
    return null;
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class HoldfastSdk {
  private token: PasswordToken | undefined;
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  /**
   * @param options.baseUrl - Holdfast's address (the spec's base, invoicing, payments and web URLs: one host).
   * @param options.token - The SDK's global token, used where a call is given none.
   */
  constructor(options: { baseUrl: string; token?: PasswordToken; fetch?: typeof fetch }) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Replaces the SDK's global token (after a refresh, say). */
  setToken(token: PasswordToken): void {
    this.token = token;
  }

  private async call<T>(
    method: string,
    path: string,
    token: PasswordToken | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; payload: T }> {
    if (!token) throw new CallFailed(401, ['A password token is needed.']);
    let res: Response;
    try {
      res = await this.fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${accessToken(token)}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      throw new CallFailed(0, [`Holdfast could not be reached: ${(err as Error).message}`]);
    }
    const text = await res.text();
    let data: { message?: string[]; payload?: unknown } | null = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) {
      const messages = data?.message?.length ? data.message : typeof data?.payload === 'string' ? [data.payload] : [`HTTP ${res.status}`];
      throw new CallFailed(res.status, messages);
    }
    return { status: res.status, payload: data?.payload as T };
  }

  /** Runs a flow's work, turning any failure into its `error` callback. */
  private async guarded(onError: (code: number, messages: string[]) => void, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (err instanceof CallFailed) onError(err.code, err.messages);
      else onError(0, [(err as Error).message]);
    }
  }

  /** Reports an invoice's outcome; one still being paid (a 202) is followed for up to two minutes, each look an `update`. */
  private async finish(invoiceId: string, token: PasswordToken, invoice: Invoice, callbacks: CheckoutCallbacks): Promise<void> {
    for (let looks = 0; invoice.state === 'OPEN' || invoice.state === 'PROCESSING'; looks++) {
      callbacks.update?.(invoice);
      if (looks === 240) return callbacks.error(202, ['The payment is still being processed; it completes on its own (see the receipt).']);
      await delay(500);
      invoice = (await this.call<Invoice>('GET', `/v2/invoice/${encodeURIComponent(invoiceId)}`, token)).payload;
    }
    if (invoice.state === 'SUCCESS') callbacks.completed(invoiceId, invoice);
    else callbacks.error(402, [invoice.failure_reason || `The invoice is ${invoice.state}.`]);
  }

  /** Checkout of an authorized invoice. */
  async checkout(input: CheckoutInput, callbacks: CheckoutCallbacks): Promise<void> {
    await this.guarded(
      (code, messages) => callbacks.error(code, messages),
      async () => {
        const id = encodeURIComponent(input.authorizedInvoiceId);
        if (input.paymentMethods) {
          const paid = await this.call<Invoice>(
            'POST',
            `/v2/invoice/${id}/pay`,
            input.passwordToken,
            { payment_methods: input.paymentMethods },
            {
              'idempotency-key': `sdk-${input.authorizedInvoiceId}-${input.paymentMethods.map((m) => `${m.payment_method_id}:${m.amount}`).join(',')}`,
            },
          );
          return this.finish(input.authorizedInvoiceId, input.passwordToken, paid.payload, callbacks);
        }
        if (!input.container || typeof document === 'undefined')
          throw new CallFailed(400, ['Give paymentMethods, or a container to show the hosted checkout in.']);
        await this.hostedCheckout(input, callbacks);
      },
    );
  }

  /** The hosted checkout in a frame of `container`: the user chooses and pays there. */
  private async hostedCheckout(input: CheckoutInput, callbacks: CheckoutCallbacks): Promise<void> {
    const account = tokenAccount(input.passwordToken);
    if (!account) throw new CallFailed(401, ['The password token is not a user token.']);
    const query = new URLSearchParams({ authorized_invoice_id: input.authorizedInvoiceId });
    if (input.flowConfig) query.set('config', JSON.stringify(input.flowConfig));
    if (input.theme) query.set('theme', JSON.stringify(input.theme));
    if (location.origin && location.origin !== 'null') query.set('origin', location.origin);
    const fragment = new URLSearchParams({ token: accessToken(input.passwordToken), account });
    const frame = document.createElement('iframe');
    frame.src = `${this.baseUrl}/ui/checkout?${query}#${fragment}`;
    frame.title = 'Checkout';
    frame.style.width = '100%';
    frame.style.height = '620px';
    frame.style.border = '0';
    input.container!.appendChild(frame);
    const origin = new URL(this.baseUrl, location.href).origin;
    const message = await new Promise<{ state?: string }>((resolve) => {
      const listen = (event: MessageEvent) => {
        if (event.source !== frame.contentWindow || event.origin !== origin || event.data?.source !== 'svc') return;
        if (event.data.event === 'svc.resize') {
          if (typeof event.data.height === 'number') frame.style.height = `${Math.min(Math.max(event.data.height, 200), 4000)}px`;
          return;
        }
        window.removeEventListener('message', listen);
        resolve(event.data);
      };
      window.addEventListener('message', listen);
    });
    frame.remove();
    if (message.state === 'cancel') return callbacks.canceled?.();
    const invoice = (await this.call<Invoice>('GET', `/v2/invoice/${encodeURIComponent(input.authorizedInvoiceId)}`, input.passwordToken))
      .payload;
    if (message.state === 'complete') return this.finish(input.authorizedInvoiceId, input.passwordToken, invoice, callbacks);
    callbacks.error(invoice.state === 'FAILED' ? 402 : 500, [invoice.failure_reason || 'The checkout ended with an error.']);
  }

  /** The user's invoices, newest first (transaction history); `limit` up to 100. */
  async transactionHistory(
    passwordToken: PasswordToken,
    callbacks: FlowCallbacks<Invoice[]>,
    options: { limit?: number } = {},
  ): Promise<void> {
    await this.guarded(
      (code, messages) => callbacks.error(code, messages),
      async () => {
        const account = tokenAccount(passwordToken);
        if (!account) throw new CallFailed(401, ['The password token is not a user token.']);
        const page = await this.call<{ invoices: Invoice[]; has_more: boolean }>(
          'GET',
          `/v1/${encodeURIComponent(account)}/invoices?limit=${options.limit ?? 20}`,
          passwordToken,
        );
        callbacks.completed(page.payload.invoices);
      },
    );
  }

  /** One invoice of the user (a receipt: a transaction id is an invoice id). */
  async receipt(transactionId: string, passwordToken: PasswordToken, callbacks: FlowCallbacks<Invoice>): Promise<void> {
    await this.guarded(
      (code, messages) => callbacks.error(code, messages),
      async () => {
        callbacks.completed((await this.call<Invoice>('GET', `/v2/invoice/${encodeURIComponent(transactionId)}`, passwordToken)).payload);
      },
    );
  }

  /** The user's payment methods, with `token` or the SDK's own. */
  async getPaymentMethods(callbacks: PaymentMethodCallbacks, token?: PasswordToken): Promise<void> {
    await this.guarded(
      (code, messages) => callbacks.failure(code, messages),
      async () => {
        const use = token ?? this.token;
        const account = use ? tokenAccount(use) : null;
        if (!use || !account) throw new CallFailed(401, ['A user password token is needed.']);
        callbacks.success((await this.call<PaymentMethod[]>('GET', `/v1/${encodeURIComponent(account)}/payment_methods`, use)).payload);
      },
    );
  }

  /** The user's balances per currency: spendable, convertible, held in escrow. */
  async balances(passwordToken: PasswordToken, callbacks: FlowCallbacks<CurrencyBalance[]>): Promise<void> {
    await this.guarded(
      (code, messages) => callbacks.error(code, messages),
      async () => {
        const account = tokenAccount(passwordToken);
        if (!account) throw new CallFailed(401, ['The password token is not a user token.']);
        const answer = await this.call<{ balances: CurrencyBalance[] }>(
          'GET',
          `/v1/${encodeURIComponent(account)}/balances`,
          passwordToken,
        );
        callbacks.completed(answer.payload.balances);
      },
    );
  }

  /** A page of the user's statement (newest first unless `sort: 'asc'`; `from`/`to` ISO 8601). */
  async statement(
    passwordToken: PasswordToken,
    callbacks: FlowCallbacks<{ total: number; entries: StatementEntry[] }>,
    options: { limit?: number; offset?: number; from?: string; to?: string; sort?: 'asc' | 'desc' } = {},
  ): Promise<void> {
    await this.guarded(
      (code, messages) => callbacks.error(code, messages),
      async () => {
        const account = tokenAccount(passwordToken);
        if (!account) throw new CallFailed(401, ['The password token is not a user token.']);
        const query = new URLSearchParams(
          Object.entries(options)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, String(v)]),
        );
        const answer = await this.call<{ total: number; entries: StatementEntry[] }>(
          'GET',
          `/v1/${encodeURIComponent(account)}/statement${query.size ? `?${query}` : ''}`,
          passwordToken,
        );
        callbacks.completed({ total: answer.payload.total, entries: answer.payload.entries });
      },
    );
  }
}
