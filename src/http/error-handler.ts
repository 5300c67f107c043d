/**
 * Where errors become responses: body-parser errors and malformed paths are made AppErrors, and
 * every error is answered by `errorReply` (src/errors.ts: the one status map and envelope, which
 * command results use too), or as RFC 6749 §5.2 says on /token.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError, errorReply, ERROR_STATUS } from '../errors.js';
import { describeError } from '../runtime/describe-error.js';

const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
]);

/** Marks a route's errors as RFC 6749 §5.2 bodies instead of envelopes. */
export function useOAuthErrors(_req: Request, res: Response, next: () => void): void {
  res.locals.errorFormat = 'oauth';
  next();
}

interface BodyParserError {
  type?: string;
  /** http-errors' flags: a client error the parser found (a bad gzip stream, say). */
  status?: number;
  expose?: boolean;
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
  if (e?.type === 'parameters.too.many') {
    return new AppError('payload_too_large', 'The form body has more than 1000 parameters.', { codes: ['PAYLOAD_TOO_LARGE'] });
  }
  if (e?.type === 'request.aborted' || e?.type === 'stream.not.readable') {
    return AppError.invalid({ body: ['INVALID_VALUE'] }, 'The body could not be read.');
  }
  // Express's router, on a path segment that is not valid percent-encoding.
  if (err instanceof URIError && (err as URIError & { status?: number }).status === 400) {
    return AppError.invalid({ path: ['INVALID_VALUE'] }, 'The path is not valid percent-encoding.');
  }
  // Any other client error the body parser reports (a Content-Encoding whose stream does not
  // decode, a truncated one): the body could not be read. Its own message is not passed on.
  if (e?.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return AppError.invalid({ body: ['INVALID_VALUE'] }, 'The body could not be decoded (check its Content-Encoding).');
  }
  return undefined;
}

function sendOAuth(res: Response, status: number, err: AppError | undefined): void {
  const first = err?.details.codes?.[0];
  const error =
    first && OAUTH_ERRORS.has(first) ? first : status === 401 ? 'invalid_client' : status >= 500 ? 'server_error' : 'invalid_request';
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
      res
        .status(500)
        .type('application/json')
        .send(JSON.stringify(errorReply(undefined, req.id).body));
    }
  }
};

const respond: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    req.log?.warn({ err: describeError(err) }, 'error after the response started');
    return;
  }
  const appError = toAppError(err);
  if (!appError) {
    req.log?.error({ err: describeError(err) }, 'request failed');
  }
  if (res.locals.errorFormat === 'oauth') return sendOAuth(res, appError ? ERROR_STATUS[appError.kind] : 500, appError);
  for (const [name, value] of Object.entries(appError?.details.headers ?? {})) res.set(name, value);
  const reply = errorReply(appError ?? err, req.id);
  res.status(reply.status).json(reply.body);
};
