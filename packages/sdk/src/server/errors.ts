/** The errors the server entry throws. */

/**
 * Holdfast refused a call, or could not be reached (`status` 0). `codes` are the envelope's
 * machine-readable codes (`INPUT_ERROR`, `ESCROW_STATE_ERROR`…; for `POST /token`, the OAuth
 * `error`), `messages` its human-readable lines, and `fields` names every offending field of a
 * `400 INPUT_ERROR` with its codes (`{ 'email.address': ['INVALID_FORMAT'] }`).
 */
export class HoldfastError extends Error {
  override readonly name = 'HoldfastError';
  /** The HTTP status; 0 when no answer came (network failure, timeout). */
  readonly status: number;
  /** The first of `codes`, or `undefined`. */
  readonly code: string | undefined;
  readonly codes: string[];
  readonly messages: string[];
  /** Field name → error codes (`payload.errors` of a `400`); empty otherwise. */
  readonly fields: Record<string, string[]>;
  /** The envelope's payload as answered (the escrow of an `ESCROW_STATE_ERROR`, say). */
  readonly payload: unknown;
  /** The operation that failed (`createEscrow`), or `issueToken`. */
  readonly operationId: string;
  /** The `X-Request-Id` of the answer, for Holdfast's logs. */
  readonly requestId: string | undefined;
  /** Seconds the answer asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;

  constructor(init: {
    status: number;
    codes?: string[];
    messages?: string[];
    fields?: Record<string, string[]>;
    payload?: unknown;
    operationId: string;
    requestId?: string;
    retryAfter?: number;
    cause?: unknown;
  }) {
    const codes = init.codes ?? [];
    const messages = init.messages ?? [];
    const fields = init.fields ?? {};
    const named = Object.keys(fields);
    super(
      `${init.operationId}: ${init.status === 0 ? 'Holdfast could not be reached' : `HTTP ${init.status}`}` +
        `${codes.length ? ` ${codes.join(', ')}` : ''}${messages.length ? ` — ${messages.join(' ')}` : ''}` +
        `${named.length ? ` (${named.map((f) => `${f}: ${fields[f].join(', ')}`).join('; ')})` : ''}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.status = init.status;
    this.codes = codes;
    this.code = codes[0];
    this.messages = messages;
    this.fields = fields;
    this.payload = init.payload;
    this.operationId = init.operationId;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

/** A webhook delivery whose signature or timestamp does not check out. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
