/**
 * The one place errors become responses: AppError kinds, body-parser errors and malformed paths map to a
 * status and the spec's envelope (or RFC 6749 §5.2 on /token). Anything else is a 500 that carries the request id and nothing internal.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError, type ErrorKind } from '../errors.js';
import { describeError } from '../runtime/describe-error.js';
import { failure } from './envelope.js';

const STATUS: Record<ErrorKind, number> = {
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
};

const OAUTH_ERRORS = new Set([
  'invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope',
]);

/** Marks a route's errors as RFC 6749 §5.2 bodies instead of envelopes. */
export function useOAuthErrors(_req: Request, res: Response, next: () => void): void {
  res.locals.errorFormat = 'oauth';
  next();
}

interface BodyParserError {
  type?: string;
}

/** Translates anything thrown into an AppError, or undefined for a true server error. */
export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as BodyParserError;
  // body-parser errors
  if (e?.type === 'entity.parse.failed') {
    return AppError.invalid({ body: ['MALFORMED_JSON'] }, 'The body is not valid JSON.');
  }
  if (e?.type === 'entity.too.large') {
    return new AppError('payload_too_large', 'The body is larger than 1 MiB.', { codes: ['PAYLOAD_TOO_LARGE'] });
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new AppError('unsupported_media_type', 'The body encoding is not supported.', { codes: ['UNSUPPORTED_MEDIA_TYPE'] });
  }
  if (e?.type === 'request.aborted' || e?.type === 'stream.not.readable') {
    return AppError.invalid({ body: ['INVALID_VALUE'] }, 'The body could not be read.');
  }
  // Express's router, on a path segment that is not valid percent-encoding.
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) {
    return AppError.invalid({ path: ['INVALID_VALUE'] }, 'The path is not valid percent-encoding.');
  }
  return undefined;
}

function sendOAuth(res: Response, status: number, err: AppError | undefined): void {
  const first = err?.details.codes?.[0];
  const error = first && OAUTH_ERRORS.has(first) ? first : status === 401 ? 'invalid_client' : status >= 500 ? 'server_error' : 'invalid_request';
  // A page's script that says so (Swagger UI's Authorize at /docs does) gets no Basic challenge,
  // on which the browser would open its own login prompt over the page.
  if (status === 401 && res.req.get('x-requested-with') !== 'XMLHttpRequest') res.set('WWW-Authenticate', 'Basic realm="holdfast"');
  res.set('Cache-Control', 'no-store');
  res.status(status).json({ error, error_description: err?.message ?? 'The server could not issue a token.' });
}

/** Maps any error to a response; if that itself fails, a bare 500 envelope still goes out. */
export const errorHandler: ErrorRequestHandler = (err, req, res, next) => {
  try {
    respond(err, req, res, next);
  } catch (failure2) {
    req.log?.error({ err: describeError(failure2) }, 'error handler failed');
    if (!res.headersSent) {
      res.status(500).type('application/json').send(JSON.stringify(failure(['Internal server error.'], ['INTERNAL_ERROR'], { request_id: req.id })));
    }
  }
};

const respond: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    req.log?.warn({ err: describeError(err) }, 'error after the response started');
    return;
  }
  const appError = toAppError(err);
  const status = appError ? STATUS[appError.kind] : 500;
  if (!appError) {
    req.log?.error({ err: describeError(err) }, 'request failed');
  }
  if (res.locals.errorFormat === 'oauth') return sendOAuth(res, status, appError);
  if (!appError) {
    res.status(500).json(failure(['Internal server error.'], ['INTERNAL_ERROR'], { request_id: req.id }));
    return;
  }
  const { details } = appError;
  for (const [name, value] of Object.entries(details.headers ?? {})) res.set(name, value);
  const payload = details.payload !== undefined ? details.payload : details.fields ? { errors: details.fields } : null;
  res.status(status).json(details.bare ? failure([], [], payload) : failure([appError.message], details.codes ?? [], payload));
};
