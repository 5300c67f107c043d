/**
 * Rate limits (429 with `Retry-After`) where a client app, not an integrator's
 * server, is the caller — a user password token sits in a browser or an app, and card testing
 * (adding card after card to find one that works) is the abuse payment APIs see first:
 * - requests with a user password token, per account and minute;
 * - cards added to one account (`POST /v1/{account_id}/payment_methods`), by anyone, per hour.
 * Counters live in Redis, shared by every web process. While Redis is unreachable each process
 * counts on its own (the same limits, per process) rather than refusing or letting all through.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../errors.js';

export interface RateLimits {
  /** Requests a user password token's account may make per minute. */
  userRequestsPerMinute: number;
  /** Cards that may be added to one account per hour. */
  cardAddsPerHour: number;
}

function limiter(redis: Redis, keyPrefix: string, points: number, duration: number) {
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

function tooMany(res: RateLimiterRes, what: string): AppError {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new AppError('rate_limited', `Too many ${what}; retry after ${seconds} s.`, {
    codes: ['RATE_LIMITED'],
    payload: null,
    headers: { 'Retry-After': String(seconds) },
  });
}

/** Counts each authenticated request against its limits; over one, 429 `RATE_LIMITED` with `Retry-After`. */
export function rateLimits(redis: Redis, prefix: string, limits: RateLimits) {
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
    const accountId = req.principal?.accountId;
    if (accountId) await consume(users, accountId, 'requests for this account');
    const card = req.method === 'POST' && req.principal ? CARD_ADD.exec(req.path) : null;
    if (card) await consume(cards, decodeURIComponent(card[1]), 'cards added to this account');
    next();
  };
}
