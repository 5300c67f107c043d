/**
 * The one error type of Holdfast. Services and rules throw it with a kind from a closed set;
 * the Express error middleware (src/http/error-handler.ts) maps each kind to a status and the
 * spec's envelope, and workers decide from the kind whether a retry can help.
 */
export type ErrorKind =
  | 'invalid_input'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'invalid_state'
  | 'idempotency_key_reused'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'declined';

/** Field name → error codes, as in `payload.errors` of a 400 (spec §7). */
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: {
      codes?: string[];
      payload?: unknown;
      fields?: FieldErrors;
      /** Extra response headers (Allow, WWW-Authenticate…). */
      headers?: Record<string, string>;
      /** Message and codes stay empty (spec §7's 409 for registrations). */
      bare?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  static invalid(fields: FieldErrors, message = 'The request is invalid.'): AppError {
    return new AppError('invalid_input', message, { codes: ['INPUT_ERROR'], fields });
  }

  static notFound(code: string, message: string): AppError {
    return new AppError('not_found', message, { codes: [code], payload: null });
  }
}

/**
 * An empty FieldErrors map. It has no prototype: field names come from clients, and a field
 * called `constructor` or `__proto__` must be an ordinary key.
 */
export function fieldErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

/** Adds one field's code to a FieldErrors map made by fieldErrors(). */
export function addFieldError(fields: FieldErrors, field: string, code: string): void {
  const list = Object.hasOwn(fields, field) ? fields[field] : (fields[field] = []);
  if (!list.includes(code)) list.push(code);
}
