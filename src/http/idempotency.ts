/**
 * Idempotency-Key for every POST, PUT and DELETE of an authenticated client.
 * The key row is claimed with one INSERT … ON CONFLICT, so of two concurrent requests with
 * the same key exactly one runs; the response is stored before it is sent, so a retry that
 * arrives right after the first response always finds it. 5xx responses are forgotten. An
 * answer that carries a secret is never stored: its route keeps only what a retry needs
 * (`keepForReplay`), and a replay runs the route again on that.
 */
import { principalOf } from '../http/auth.js';
import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.js';
import { db } from '../db/sql.js';
import {
  claimKey,
  findKey,
  forgetKey,
  IDEMPOTENCY_KEEP_HOURS as KEEP_HOURS,
  storeResponse,
} from '../idempotency/idempotency.repository.js';

const MUTATING = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** JSON with object keys sorted, so the same request always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A JSON `null` body and no body are one request (the validation made both absent; canonical writes `null`). */
function requestHash(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n${canonical(req.body)}`)
    .digest('hex');
}

/**
 * For a route whose answer carries a secret (a token, a nonce): keep `kept` for an
 * Idempotency-Key replay instead of the answer. A replay then runs the route again with
 * `req.idempotentReplay` set to it (the route answers from it with fresh secrets, making
 * nothing twice).
 */
export function keepForReplay(res: Response, kept: unknown): void {
  res.locals.idempotentKept = kept;
}

export function idempotency() {
  const handle = async (req: Request, res: Response, next: NextFunction, key: string): Promise<void> => {
    const keys = db(req.em);
    // Keys belong to the caller: the client, or — for a user password token — the one account
    // it acts for (ids of both kinds never collide). A user must never be handed a response
    // stored for the integrator's server, or for another user, under a key it guessed.
    const principal = principalOf(req);
    const clientId = principal.accountId ?? principal.clientId;
    const hash = requestHash(req);
    // Claim the key, or take over one older than the retention window.
    if (!(await claimKey(keys, clientId, key, hash, KEEP_HOURS, principal.integratorId))) {
      const row = await findKey(keys, clientId, key);
      if (!row) {
        throw new AppError('conflict', 'A request with this Idempotency-Key just failed; retry it.', { codes: ['IDEMPOTENCY_KEY_IN_USE'] });
      }
      if (row.requestHash !== hash) {
        throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.', {
          codes: ['IDEMPOTENCY_KEY_REUSED'],
        });
      }
      if (row.state === 'running') {
        throw new AppError('conflict', 'A request with this Idempotency-Key is still running; retry later.', {
          codes: ['IDEMPOTENCY_KEY_IN_USE'],
          headers: { 'Retry-After': '1' },
        });
      }
      res.set('Idempotent-Replayed', 'true');
      if (row.reissue) {
        req.idempotentReplay = row.responseBody;
        return next();
      }
      res.status(row.responseStatus ?? 200).json(row.responseBody);
      return;
    }

    // Store the response before it leaves, then send it.
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      const status = res.statusCode;
      const reissue = status < 400 && res.locals.idempotentKept !== undefined;
      const store =
        status >= 500
          ? forgetKey(keys, clientId, key)
          : storeResponse(keys, clientId, key, status, reissue ? res.locals.idempotentKept : body, reissue);
      store.then(
        () => send(body),
        (err: unknown) => {
          req.log.error({ err: { type: (err as Error).name } }, 'could not store the idempotent response');
          res.status(500);
          send({ status: 'Failure', message: ['Internal server error.'], codes: ['INTERNAL_ERROR'], payload: { request_id: req.id } });
        },
      );
      return res;
    };
    next();
  };
  return (req: Request, res: Response, next: NextFunction): void | Promise<void> => {
    const key = MUTATING.has(req.method) && req.principal ? req.headers['idempotency-key'] : undefined;
    if (typeof key !== 'string' || key === '') return next();
    return handle(req, res, next, key);
  };
}
