/**
 * What a hosted flow may be asked, checked before a session nonce is spent: the
 * flow, its `flowConfig`, the `theme`, and where callbacks may go. Pure: no I/O. Besides the
 * checkout and payment-selection flows, the hosted pages show the user's transaction history and a
 * receipt, take the account's identity (KYC) data, and choose or add its payout destination.
 */

export type Flow = 'checkout' | 'payment-selection' | 'transaction-history' | 'receipt' | 'kyc' | 'payout';

export const FLOWS: readonly Flow[] = ['checkout', 'payment-selection', 'transaction-history', 'receipt', 'kyc', 'payout'];

/**
 * The scopes a flow's session cannot work without, where the flow would otherwise fail only
 * once the user has typed into it: the KYC flow reads and submits the check, the payout flow
 * lists and adds payment methods. A session carries the scopes of the token that opened it.
 */
export const FLOW_SCOPES: Partial<Record<Flow, readonly string[]>> = {
  kyc: ['read_kyc', 'write_process_credits'],
  payout: ['read_payment_methods', 'write_payment_methods'],
};

/** The scopes `flow` needs that a session's `held` scopes lack (none: the flow may open). */
export function missingFlowScopes(flow: Flow, held: readonly string[]): string[] {
  return (FLOW_SCOPES[flow] ?? []).filter((scope) => !held.includes(scope));
}

export interface FlowOptions {
  flow: Flow;
  authorizedInvoiceId?: string;
  /** The receipt's invoice. */
  invoiceId?: string;
  config: Record<string, unknown>;
  theme: { backgroundColor?: string; primaryColor?: string };
  /** Where a top-level page (no parent window) sends the user back with the callback's fields. */
  postOAuthURLOverride?: string;
}

export type FlowProblem = 'invalid_flow' | 'invalid_config' | 'redirect_not_allowed';

const CHECKOUT_KEYS: Record<string, 'boolean' | 'object' | 'string'> = {
  hideUserWallets: 'boolean',
  hideSKUs: 'boolean',
  showInvoiceReferenceInfo: 'boolean',
  selectButton: 'object',
  postOAuthURLOverride: 'string',
};
const SELECTION_KEYS: Record<string, 'boolean' | 'object' | 'string'> = {
  transactionDetails: 'object',
  selectButton: 'object',
  postOAuthURLOverride: 'string',
};
const VIEW_KEYS: Record<string, 'boolean' | 'object' | 'string'> = { hideSKUs: 'boolean', postOAuthURLOverride: 'string' };
const ACCOUNT_KEYS: Record<string, 'boolean' | 'object' | 'string'> = { postOAuthURLOverride: 'string' };
const KEYS: Record<Flow, Record<string, 'boolean' | 'object' | 'string'>> = {
  checkout: CHECKOUT_KEYS,
  'payment-selection': SELECTION_KEYS,
  'transaction-history': VIEW_KEYS,
  receipt: VIEW_KEYS,
  kyc: ACCOUNT_KEYS,
  payout: ACCOUNT_KEYS,
};
const ID = /^[A-Za-z0-9_-]{1,36}$/;

/** A CSS colour we pass on as it is: hex, rgb()/rgba()/hsl()/hsla() of numbers, or a colour keyword. */
export function isColor(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length <= 40 && /^(#[0-9a-f]{3,8}|(rgb|rgba|hsl|hsla)\(\s*[\d.%\s,/]+\)|[a-z]{3,20})$/i.test(value)
  );
}

/**
 * Whether `url` may receive the user back: https (http only for localhost), and a host that one
 * of the operator's patterns allows (`example.com`, or `*.example.com` for its subdomains).
 */
export function redirectAllowed(url: string, patterns: string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const local = parsed.hostname === 'localhost' || parsed.hostname === '127.0.0.1';
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && local)) return false;
  if (parsed.username || parsed.password) return false;
  const host = parsed.hostname.toLowerCase();
  return patterns.some((p) => {
    const pattern = p.trim().toLowerCase();
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
    return pattern !== '' && host === pattern;
  });
}

/** Where a page's messages may go: an http(s) origin, or none given (then `*`: the messages carry no secret). */
export function isOrigin(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return true;
  try {
    const url = new URL(raw);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === raw;
  } catch {
    return false;
  }
}

/** A JSON object from the query (`{}` when absent), or null when it is not one. */
function parseJson(raw: string | undefined): Record<string, unknown> | null {
  if (raw === undefined || raw === '') return {};
  if (raw.length > 4096) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The flow a hosted link asks for, from its query (`flow`, `authorized_invoice_id`, `config`,
 * `theme` — the last two JSON, as the widget sends them — and `origin`, where the page's
 * messages go). Checkout needs an authorized invoice;
 * unknown config keys, wrong types, colours that are not colours and a `postOAuthURLOverride`
 * off the allowed list are refused.
 */
export function flowOptions(
  query: Record<string, string | undefined>,
  redirectPatterns: string[],
): { ok: true; options: FlowOptions } | { ok: false; problem: FlowProblem } {
  const authorized = query.authorized_invoice_id || undefined;
  const flow = (query.flow || (authorized ? 'checkout' : 'payment-selection')) as Flow;
  if (!FLOWS.includes(flow)) return { ok: false, problem: 'invalid_flow' };
  if (flow === 'checkout' && (!authorized || !ID.test(authorized))) return { ok: false, problem: 'invalid_flow' };
  if (flow === 'receipt' && (!query.invoice_id || !ID.test(query.invoice_id))) return { ok: false, problem: 'invalid_flow' };
  const config = parseJson(query.config);
  const theme = parseJson(query.theme);
  if (config === null || theme === null || !isOrigin(query.origin)) return { ok: false, problem: 'invalid_config' };
  const keys = KEYS[flow];
  for (const [key, value] of Object.entries(config)) {
    const type = keys[key];
    if (!type || typeof value !== type || value === null) return { ok: false, problem: 'invalid_config' };
  }
  const label = (config.selectButton as { label?: unknown } | undefined)?.label;
  if (config.selectButton && (typeof label !== 'string' || label.length > 60)) return { ok: false, problem: 'invalid_config' };
  const details = config.transactionDetails as { transaction_amount?: unknown; currency?: unknown } | undefined;
  if (
    details &&
    !(
      Number.isSafeInteger(details.transaction_amount) &&
      (details.transaction_amount as number) > 0 &&
      typeof details.currency === 'string' &&
      /^[A-Z]{3}$/.test(details.currency)
    )
  )
    return { ok: false, problem: 'invalid_config' };
  for (const [key, value] of Object.entries(theme)) {
    if ((key !== 'backgroundColor' && key !== 'primaryColor') || !isColor(value)) return { ok: false, problem: 'invalid_config' };
  }
  const override = config.postOAuthURLOverride as string | undefined;
  if (override !== undefined && !redirectAllowed(override, redirectPatterns)) return { ok: false, problem: 'redirect_not_allowed' };
  return {
    ok: true,
    options: {
      flow,
      authorizedInvoiceId: authorized,
      invoiceId: query.invoice_id || undefined,
      config,
      theme: theme as FlowOptions['theme'],
      postOAuthURLOverride: override,
    },
  };
}

/**
 * Where a page opened at top level may send the user back: the `postOAuthURLOverride` of the
 * page's `config` query once the operator's list allows it, as the URL parser writes it — or
 * undefined. The server writes only this value into a page; the page never follows its own
 * query's, so a hand-made `/ui/<flow>?config=…` link cannot send anyone elsewhere.
 */
export function checkedReturnUrl(config: unknown, patterns: string[]): string | undefined {
  if (typeof config !== 'string') return undefined;
  const override = parseJson(config)?.postOAuthURLOverride;
  if (typeof override !== 'string' || !redirectAllowed(override, patterns)) return undefined;
  return new URL(override).href;
}

/** Text made safe inside a double-quoted HTML attribute. */
export function htmlAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Whether a browser's POST comes from a page of this very origin: by `Sec-Fetch-Site` when the
 * browser sends it (only `same-origin`), else by `Origin`, which must name this host (`Host`)
 * or the configured public address. A post that shows neither is not taken: every browser sends
 * `Origin` with a POST, so only a hand-made request lacks both.
 */
export function sameOriginPost(request: { secFetchSite?: string; origin?: string; host?: string; publicOrigin?: string }): boolean {
  if (request.secFetchSite !== undefined) return request.secFetchSite === 'same-origin';
  if (!request.origin || request.origin === 'null') return false;
  let origin: URL;
  try {
    origin = new URL(request.origin);
  } catch {
    return false;
  }
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:') return false;
  if (request.publicOrigin && origin.origin === request.publicOrigin) return true;
  return request.host !== undefined && origin.host === request.host.toLowerCase();
}

/** Stripe's browser library as the hosted pages load it (CARD_PROCESSOR=stripe): its URL, Stripe's API origin and the publishable key. */
export interface HostedStripe {
  /** STRIPE_JS_URL. */
  jsUrl: string;
  /** The origin of STRIPE_API_BASE: the library's calls go there. */
  apiOrigin: string;
  /** STRIPE_PUBLISHABLE_KEY; unset, the pages cannot add a card. */
  publishableKey?: string;
}

/**
 * The hosted pages' Content-Security-Policy: their own script and styles, this origin only, framed
 * by `ancestors`; with `frames` (the demo shop) they may frame this origin. With `stripe` (only
 * when the Stripe card processor is on) Stripe's browser library may load (script-src), frame
 * its own pages (frame-src: its origin, and hooks.stripe.com for Stripe's own) and call Stripe
 * (connect-src); the sandbox pages allow none of it.
 */
export function hostedPagePolicy(ancestors: string, opts: { frames?: boolean; stripe?: HostedStripe } = {}): string {
  const js = opts.stripe ? new URL(opts.stripe.jsUrl).origin : undefined;
  const connect = ["'self'", ...(js ? [js] : []), ...(opts.stripe && opts.stripe.apiOrigin !== js ? [opts.stripe.apiOrigin] : [])];
  const frames = [
    ...(opts.frames ? ["'self'"] : []),
    ...(js ? [js] : []),
    ...(js === 'https://js.stripe.com' ? ['https://hooks.stripe.com'] : []),
  ];
  return (
    `default-src 'none'; script-src 'self'${js ? ` ${js}` : ''}; style-src 'self'; img-src 'self' data:; connect-src ${connect.join(' ')}; ` +
    `base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}${frames.length ? `; frame-src ${frames.join(' ')}` : ''}`
  );
}
