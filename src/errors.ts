/**
 * The one error type of Holdfast. Services, rules and command runners throw it with a kind from
 * a closed set; `errorReply` maps each kind to a status and the envelope, for the Express error
 * middleware (src/http/error-handler.ts) and for a command's stored result alike.
 */
import { failure, type Reply } from './envelope.js';

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
  | 'declined'
  | 'unavailable';

/** Field name → error codes, as in `payload.errors` of a 400. */
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
      /** Message and codes stay empty (the 409 of a repeated registration step). */
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

/** The one status map: each kind's HTTP status, for a response and a command's result alike. */
export const ERROR_STATUS: Readonly<Record<ErrorKind, number>> = {
  invalid_input: 400,
  unauthorized: 401,
  declined: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_state: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  unavailable: 503,
};

/**
 * The reply an error gets: an AppError its kind's status and its envelope; anything else a 500
 * that carries the request id and nothing internal. Headers an AppError asks for are the
 * caller's to send (`details.headers`).
 */
export function errorReply(err: unknown, requestId?: string): Reply {
  if (!(err instanceof AppError))
    return { status: 500, body: failure(['Internal server error.'], ['INTERNAL_ERROR'], { request_id: requestId }) };
  const { details } = err;
  const payload = details.payload !== undefined ? details.payload : details.fields ? { errors: details.fields } : null;
  return {
    status: ERROR_STATUS[err.kind],
    body: details.bare ? failure([], [], payload) : failure([err.message], details.codes ?? [], payload),
  };
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
  if (!Object.hasOwn(fields, field)) fields[field] = [];
  if (!fields[field].includes(code)) fields[field].push(code);
}
