import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../runtime/logger.js';
import type { Principal } from '../integrators/principal.js';

/** What our middleware adds to each request. */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Request id: the caller's X-Request-Id when it is safe, else a new one. */
      id: string;
      log: Logger;
      /** An EntityManager forked for this request. */
      em: EntityManager;
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
