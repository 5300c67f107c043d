/**
 * What every web process must agree on about access tokens: the signing keys (the newest signs;
 * an older one verifies until the tokens it signed have expired) and what is revoked (clients,
 * and user sessions by their `sid`). PostgreSQL holds the truth: `signing_key`,
 * `client.revoked_at`, `revoked_session`.
 *
 * Why each process keeps a copy in memory, kept fresh over Redis pub/sub, rather than asking
 * PostgreSQL (or Redis) at each request: that lookup would cost every authenticated request a
 * round trip, and a read is mostly one round trip already (the reads benchmark). The copy is
 * small (revoked clients, sessions revoked within a token's life, a few keys), so checking a
 * token is a Set lookup. A change is written to PostgreSQL first, then announced on
 * `<QUEUE_PREFIX>:auth:changes`; every subscribed process applies it as the message arrives, the
 * announcing process before it answers. Failing safe:
 *  - while the subscriber connection is down (a Redis outage, or before it first subscribed) the
 *    copy is not trusted: every check reads PostgreSQL instead;
 *  - at every (re)subscription the copy is reloaded from PostgreSQL (what was missed meanwhile);
 *  - every `TOKEN_STATE_RELOAD_MS` it is reloaded anyway, for an announcement lost while the
 *    connection looked up or one its writer could not publish;
 *  - a token whose `kid` is unknown reloads the keys (at most once a second), so a process that
 *    missed a rotation still accepts the new key's tokens;
 *  - keys retired at once (`holdfast keys rotate --retire-now`) are deleted from PostgreSQL, so
 *    the next reload drops them even where the announcement was missed; where it is heard they
 *    are dropped as it arrives, and a reload begun before the deletion cannot bring them back.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Cluster, Redis } from 'ioredis';
import { db as pooled, type Db } from '../db/sql.js';
import { currentRevocations, ensureFirstSigningKey, liveSigningKeys, tokenRevoked } from './auth.repository.js';
import { TOKEN_MEMORY_SECONDS, TOKEN_STATE_RELOAD_MS } from './credential.rules.js';

/** How a process hears of changes other processes make (and tells them of its own). */
export interface TokenStateSync {
  /** Makes the subscriber connection (the state owns it and closes it on `close()`). */
  connect(): Redis | Cluster;
  /** A connection to announce this process's own changes on. */
  publisher: Redis | Cluster;
  /** `QUEUE_PREFIX`: the channel is `<prefix>:auth:changes`. */
  prefix: string;
}

/**
 * A change to announce once it is committed: revoked sessions or clients, new signing keys, or
 * keys retired at once (deleted: they verify nothing from now on).
 */
export interface TokenChange {
  sessions?: string[];
  clients?: string[];
  keys?: boolean;
  retiredKeys?: string[];
}

export function tokenChangeChannel(prefix: string): string {
  return `${prefix}:auth:changes`;
}

/**
 * Announces a change already committed to PostgreSQL to every web process. False when Redis did
 * not take it within `timeoutMs`: processes then learn it at their next reload.
 */
export async function announceTokenChange(
  publisher: Redis | Cluster,
  prefix: string,
  change: TokenChange,
  timeoutMs = 5000,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      publisher.publish(tokenChangeChannel(prefix), JSON.stringify(change)),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** The first signing key's id (every later one is `key_<ULID>`). */
const FIRST_KEY_ID = 'key_primary';
const KEY_ID = /^key_(primary|[0-9A-Z]{26})$/;
/** A token with an unknown `kid` reloads the keys at most this often. */
const UNKNOWN_KEY_RELOAD_MS = 1000;

export interface SigningKeyInUse {
  kid: string;
  key: CryptoKey;
}

function importKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', Buffer.from(secret, 'base64url'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

export class TokenState {
  private keys = new Map<string, CryptoKey>();
  private current!: SigningKeyInUse;
  /** Reloads of the keys, numbered: one that started earlier never replaces a later one's result. */
  private keyLoads = 0;
  private keysApplied = 0;
  private keysLoading: Promise<void> | undefined;
  private lastUnknownKeyReload = 0;
  /** Keys retired at once: never loaded again (ids are never reused; a handful a year). */
  private readonly retiredKeys = new Set<string>();
  private readonly revokedClients = new Set<string>();
  /** Revoked sessions → when this process learnt of them (forgotten once no token of theirs can live). */
  private readonly revokedSessions = new Map<string, number>();
  /** Whether the copy may be trusted: the subscriber is up and the copy was reloaded since it (re)subscribed. */
  private synced = false;
  /** Counts subscriber connections: a reload started for an earlier one does not vouch for the copy. */
  private connection = 0;
  private subscriber: Redis | Cluster | undefined;
  private timer: NodeJS.Timeout | undefined;
  private markSynced!: () => void;
  /** Settles the first time the copy is trusted (never without `sync`). */
  readonly firstSync = new Promise<void>((resolve) => {
    this.markSynced = resolve;
  });

  private constructor(
    private readonly db: Db,
    private readonly sync: TokenStateSync | undefined,
  ) {}

  /**
   * Loads the keys (making the first one on the very first boot; safe when processes race) and
   * the revocations. Without `sync` the process hears nothing from others and every revocation
   * check reads PostgreSQL.
   */
  static async load(em: EntityManager, sync?: TokenStateSync): Promise<TokenState> {
    const db = pooled(em);
    await ensureFirstSigningKey(db, FIRST_KEY_ID, randomBytes(32).toString('base64url'));
    const state = new TokenState(db, sync);
    await state.reloadKeys();
    await state.reloadRevocations();
    state.start();
    return state;
  }

  private start(): void {
    this.timer = setInterval(() => void this.reloadAll(), TOKEN_STATE_RELOAD_MS);
    this.timer.unref();
    if (!this.sync) return;
    const subscriber = this.sync.connect();
    this.subscriber = subscriber;
    // Outages are reported on the process's other connections; this one only stops being trusted.
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, message: string) => this.apply(message));
    const lost = () => {
      this.synced = false;
      this.connection += 1;
    };
    subscriber.on('close', lost);
    subscriber.on('end', lost);
    subscriber.on('ready', () => void this.resubscribe());
    if (subscriber.status === 'ready') void this.resubscribe();
  }

  /** Subscribes, then reloads everything, then trusts the copy (unless the connection dropped meanwhile). */
  private async resubscribe(): Promise<void> {
    const subscriber = this.subscriber;
    if (!subscriber || !this.sync) return;
    const connection = ++this.connection;
    try {
      await subscriber.subscribe(tokenChangeChannel(this.sync.prefix));
      await Promise.all([this.reloadKeys(), this.reloadRevocations()]);
      if (connection === this.connection && subscriber.status === 'ready') {
        this.synced = true;
        this.markSynced();
      }
    } catch {
      // Not trusted until the next subscription or periodic reload succeeds.
    }
  }

  private async reloadAll(): Promise<void> {
    if (this.sync && !this.synced && this.subscriber?.status === 'ready') return this.resubscribe();
    await Promise.all([this.reloadKeys(), this.reloadRevocations()]).catch(() => undefined);
  }

  private reloadKeys(): Promise<void> {
    const load = ++this.keyLoads;
    const loading = (async () => {
      const rows = await liveSigningKeys(this.db, TOKEN_MEMORY_SECONDS);
      // A reload that read the keys before a retirement was committed must not restore them.
      const live = rows.filter((row) => !this.retiredKeys.has(row.id));
      if (!live.length) return;
      const keys = new Map<string, CryptoKey>();
      for (const row of live) keys.set(row.id, this.keys.get(row.id) ?? (await importKey(row.secret)));
      if (load < this.keysApplied) return;
      this.keysApplied = load;
      this.keys = keys;
      const newest = live[live.length - 1].id;
      this.current = { kid: newest, key: keys.get(newest)! };
    })();
    this.keysLoading = loading;
    loading.then(
      () => {
        if (this.keysLoading === loading) this.keysLoading = undefined;
      },
      () => {
        if (this.keysLoading === loading) this.keysLoading = undefined;
      },
    );
    return loading;
  }

  private async reloadRevocations(): Promise<void> {
    const { clients, sessions } = await currentRevocations(this.db, TOKEN_MEMORY_SECONDS);
    const now = Date.now();
    for (const id of clients) this.revokedClients.add(id);
    for (const sid of sessions) if (!this.revokedSessions.has(sid)) this.revokedSessions.set(sid, now);
    for (const [sid, learnt] of this.revokedSessions) if (now - learnt > TOKEN_MEMORY_SECONDS * 1000) this.revokedSessions.delete(sid);
  }

  /** Applies an announcement (from Redis, or this process's own). */
  private apply(message: string | TokenChange): void {
    let change: TokenChange;
    try {
      change = typeof message === 'string' ? JSON.parse(message) : message;
    } catch {
      return;
    }
    if (!change || typeof change !== 'object') return;
    const now = Date.now();
    for (const id of Array.isArray(change.clients) ? change.clients : []) if (typeof id === 'string') this.revokedClients.add(id);
    for (const sid of Array.isArray(change.sessions) ? change.sessions : [])
      if (typeof sid === 'string') this.revokedSessions.set(sid, now);
    // Retired keys stop verifying now, before the reload (announced with `keys: true`) that
    // brings the key replacing them.
    for (const kid of Array.isArray(change.retiredKeys) ? change.retiredKeys : [])
      if (typeof kid === 'string') {
        this.retiredKeys.add(kid);
        this.keys.delete(kid);
      }
    if (change.keys === true) void this.reloadKeys().catch(() => undefined);
  }

  /**
   * Applies a change this process has committed, then tells every other process. Keys are
   * reloaded before it returns.
   */
  async announce(change: TokenChange): Promise<void> {
    this.apply({ ...change, keys: false });
    if (change.keys) await this.reloadKeys().catch(() => undefined);
    if (this.sync) await announceTokenChange(this.sync.publisher, this.sync.prefix, change);
  }

  /** The key new tokens are signed with (after a reload in progress, so a rotation just heard of applies). */
  async signingKey(): Promise<SigningKeyInUse> {
    if (this.keysLoading) await this.keysLoading.catch(() => undefined);
    // Never sign with a key retired meanwhile (when its replacement could not be loaded yet, try again).
    if (!this.keys.has(this.current.kid)) await this.reloadKeys().catch(() => undefined);
    return this.current;
  }

  /** Whether the key `kid` names is loaded (a cached token stays valid only while its key is). */
  hasKey(kid: string): boolean {
    return this.keys.has(kid);
  }

  /** The key a token's `kid` names, reloading the keys when it is unknown (a rotation not heard of yet). */
  async verificationKey(kid: unknown): Promise<CryptoKey | undefined> {
    if (typeof kid !== 'string' || this.retiredKeys.has(kid)) return undefined;
    const known = this.keys.get(kid);
    if (known || !KEY_ID.test(kid)) return known;
    if (this.keysLoading) await this.keysLoading.catch(() => undefined);
    else if (Date.now() - this.lastUnknownKeyReload >= UNKNOWN_KEY_RELOAD_MS) {
      this.lastUnknownKeyReload = Date.now();
      await this.reloadKeys().catch(() => undefined);
    }
    return this.keys.get(kid);
  }

  /**
   * Whether a token of this client (and session) is revoked: from memory while the copy is
   * trusted, else from PostgreSQL.
   */
  revoked(clientId: string, sid: string | undefined): boolean | Promise<boolean> {
    if (this.revokedClients.has(clientId) || (sid !== undefined && this.revokedSessions.has(sid))) return true;
    if (this.synced) return false;
    return tokenRevoked(this.db, clientId, sid ?? null);
  }

  /** Stops the periodic reload and closes the subscriber connection. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.synced = false;
    if (!subscriber) return;
    if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
    else subscriber.disconnect();
  }
}
