import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../runtime/logger.js';
import type { Principal } from '../integrators/principal.js';
import type { Db } from '../db/sql.js';

/** What our middleware adds to each request. */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Request id: the caller's X-Request-Id when it is safe, else a new one. */
      id: string;
      log: Logger;
      /** An EntityManager forked for this request (made on first use). */
      em: EntityManager;
      /**
       * Plain SQL on the ORM's pool, one `Db` for every request: a read that needs no unit of
       * work uses it and saves the fork of `em`.
       */
      db: Db;
      /** Set by the bearer-token check of operations that declare `svc_auth`. */
      principal?: Principal;
      /**
       * An Idempotency-Key replay of an answer that carried a secret: what the first run kept
       * (see `keepForReplay`). The route answers again from it, with fresh secrets.
       */
      idempotentReplay?: unknown;
    }
  }
}
