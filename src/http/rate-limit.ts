/**
 * Rate limits (429 with `Retry-After`) where a client app, not an integrator's
 * server, is the caller — a user password token sits in a browser or an app, and card testing
 * (adding card after card to find one that works) is the abuse payment APIs see first:
 * - requests with a user password token, per account and minute;
 * - cards added to one account (`POST /v1/{account_id}/payment_methods`), by anyone, per hour.
 * A request spends an account's budget only once the caller is known to own that account, so
 * that nobody can spend another's budget with requests answered 404: a user token counts against
 * its own account and not at all when its path names another one (that answer is a 404 without
 * any work), and a card add counts once the path's account is the user token's own or, for a
 * client token, belongs to the caller's integrator (one indexed read, on card adds only).
 * - PayPal webhook verifications (`POST /hooks/paypal`): each delivery that passes the cheap
 *   checks costs a call to PayPal's verify-webhook-signature, so anyone posting there could make
 *   Holdfast call PayPal without end; all of them together get a budget per minute.
 * Counters live in Redis, shared by every web process. While Redis is unreachable each process
 * counts on its own (the same limits, per process) rather than refusing or letting all through.
 */
import type { NextFunction, Request, Response } from 'express';
import type { RedisConnection } from '../queues/connection.js';
import { match } from 'path-to-regexp';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Principal } from '../integrators/principal.js';
import { AppError } from '../errors.js';
import { httpMethods, type OpenApiDocument } from './openapi.js';

export interface RateLimits {
  /** Requests a user password token's account may make per minute. */
  userRequestsPerMinute: number;
  /** Cards that may be added to one account per hour. */
  cardAddsPerHour: number;
}

function limiter(redis: RedisConnection, keyPrefix: string, points: number, duration: number) {
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix,
    points,
    duration,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
  });
}

const CARD_ADD = /^\/v1\/([^/]+)\/payment_methods\/?$/i;

/** Whether the account belongs to the caller's integrator. */
export type AccountOwned = (req: Request, principal: Principal, accountId: string) => Promise<boolean>;

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const acceptsUserTokens = (op: { security?: Array<Record<string, string[]>> } | undefined) =>
  op?.security?.some((requirement) => 'user_auth' in requirement) ?? false;

/**
 * The `{account_id}` a request's path names, among the operations a user password token may call
 * (the only ones it gets past authentication on); matched as request validation matches paths.
 */
export function userPathAccount(doc: OpenApiDocument): (path: string) => string | undefined {
  const matchers = Object.entries(doc.paths)
    .filter(([template, item]) => template.includes('{account_id}') && httpMethods.some((m) => acceptsUserTokens(item[m])))
    .map(([template]) => match(template.replace(/\{([^}]+)\}/g, ':$1'), { decode: false, end: true, trailing: true, sensitive: false }));
  return (path) => {
    for (const m of matchers) {
      const found = m(path);
      if (found) return decoded(String(found.params.account_id));
    }
    return undefined;
  };
}

function tooMany(res: RateLimiterRes, what: string): AppError {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new AppError('rate_limited', `Too many ${what}; retry after ${seconds} s.`, {
    codes: ['RATE_LIMITED'],
    payload: null,
    headers: { 'Retry-After': String(seconds) },
  });
}

/**
 * Counts each authenticated request against the limits of the accounts its caller owns; over
 * one, 429 `RATE_LIMITED` with `Retry-After`. `doc` gives the paths that name an account,
 * `owns` the tenant check for a client token's card add.
 */
export function rateLimits(
  redis: RedisConnection,
  prefix: string,
  limits: RateLimits,
  scope: { doc: OpenApiDocument; owns: AccountOwned },
) {
  const pathAccount = userPathAccount(scope.doc);
  const users = limiter(redis, `${prefix}:rl:user`, limits.userRequestsPerMinute, 60);
  const cards = limiter(redis, `${prefix}:rl:card`, limits.cardAddsPerHour, 3600);
  const consume = async (l: RateLimiterRedis, key: string, what: string) => {
    try {
      await l.consume(key);
    } catch (rejected) {
      if (rejected instanceof RateLimiterRes) throw tooMany(rejected, what);
      throw rejected;
    }
  };
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const principal = req.principal;
    if (!principal) return next();
    if (principal.accountId) {
      // A path naming another account is answered 404 (principalOf): it spends nothing.
      const named = pathAccount(req.path);
      if (named !== undefined && named !== principal.accountId) return next();
      await consume(users, principal.accountId, 'requests for this account');
    }
    const card = req.method === 'POST' ? CARD_ADD.exec(req.path) : null;
    const cardAccount = card ? decoded(card[1]) : undefined;
    // A user token got here only for its own account; a client token's account is checked.
    if (
      cardAccount !== undefined &&
      (principal.accountId === cardAccount || (!principal.accountId && (await scope.owns(req, principal, cardAccount))))
    )
      await consume(cards, cardAccount, 'cards added to this account');
    next();
  };
}

/**
 * The budget of PayPal webhook verifications, `perMinute` for all web processes together: one
 * spent per call, a 429 `RATE_LIMITED` with `Retry-After` past it (PayPal delivers again later).
 */
export function paypalVerifyBudget(redis: RedisConnection, prefix: string, perMinute: number): () => Promise<void> {
  const budget = limiter(redis, `${prefix}:rl:paypal-verify`, perMinute, 60);
  return async () => {
    try {
      await budget.consume('all');
    } catch (rejected) {
      if (rejected instanceof RateLimiterRes) throw tooMany(rejected, 'PayPal webhook deliveries');
      throw rejected;
    }
  };
}
