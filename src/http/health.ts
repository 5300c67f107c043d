import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { RedisConnection } from '../queues/connection.js';
import { failure, success } from '../envelope.js';
import { db } from '../db/sql.js';

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  return Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms))]);
}

/** `GET /healthz` (the process runs) and `GET /readyz` (PostgreSQL and Redis answer). */
export function healthRoutes(orm: MikroORM, redis: RedisConnection): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json(success({ status: 'ok' }));
  });
  router.get('/readyz', async (_req, res) => {
    const [postgresql, redisOk] = await Promise.all([
      within(2000, db(orm.em).execute('select 1')).then(
        () => true,
        () => false,
      ),
      within(2000, redis.ping()).then(
        (pong) => pong === 'PONG',
        () => false,
      ),
    ]);
    const checks = { postgresql: postgresql ? 'ok' : 'down', redis: redisOk ? 'ok' : 'down' };
    if (postgresql && redisOk) res.json(success({ checks }));
    else res.status(503).json(failure(['Not ready.'], ['NOT_READY'], { checks }));
  });
  return router;
}
