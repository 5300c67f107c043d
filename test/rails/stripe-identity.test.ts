import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { db as pooled } from '../../src/db/sql.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/runtime/logger.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { TEST_QUEUE_PREFIX, call, h, newClient, register, type TestClient } from '../support/harness.js';

const WEBHOOK_SECRET = 'whsec_testStripeIdentity0123456789';
const PUBLIC_URL = 'http://localhost:3000';

const person = () => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  date_of_birth: '1990-12-10',
  address: '1 Analytical Row, London',
  country: 'GB',
});

const sql = <T = Record<string, any>>(text: string, params: unknown[] = []) => pooled(h().orm.em.fork()).execute<T[]>(text, params);

describe('KYC through Stripe Identity (IDENTITY_VERIFIER=stripe, against the Stripe fake)', () => {
  let fake: StripeFake;
  let server: Server;
  let base = '';
  let client: TestClient;
  let removeEndpoint: () => void;

  before(async () => {
    fake = await startStripeFake();
    const { orm, redis, signer, bus } = h();
    const app = await buildApp({
      config: {
        appEnv: 'staging',
        publicUrl: PUBLIC_URL,
        syncWaitMs: 10_000,
        queuePrefix: TEST_QUEUE_PREFIX,
        providerWebhooks: { stripeWebhookSecret: WEBHOOK_SECRET, paypalWebhookId: undefined },
        // The verifier comes from the configuration, as in a server: identityVerifierFor('stripe', stripeApi).
        rails: { cards: 'sandbox', identity: 'stripe', payouts: 'sandbox' },
        stripeApi: { secretKey: fake.secretKey, ...fake.clientOptions(), jsUrl: fake.jsUrl },
      },
      orm,
      redis,
      signer,
      bus,
      logger: createLogger('silent', 'holdfast-test'),
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    removeEndpoint = fake.addWebhookEndpoint({ url: `${base}/hooks/stripe`, secret: WEBHOOK_SECRET });
    client = await newClient();
  });

  after(async () => {
    removeEndpoint?.();
    server?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await fake?.stop();
  });

  async function userToken(accountId: string): Promise<string> {
    const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
    assert.equal(res.status, 200, res.text);
    return res.body.payload.token.access_token;
  }

  const submit = (accountId: string, token: string) => call('POST', `/v1/kyc/${accountId}`, { token, body: person(), baseUrl: base });

  /** An account whose submission started a session at the fake. */
  async function started() {
    const { account_id: accountId } = await register(client);
    const token = await userToken(accountId);
    const res = await submit(accountId, token);
    assert.equal(res.status, 200, res.text);
    const kycId: string = res.body.payload.kyc_id;
    const session = [...fake.api.verificationSessions.values()].find((s) => s.metadata?.kyc_id === kycId && s.status !== 'canceled');
    assert.ok(session, 'a VerificationSession names the check');
    return { accountId, token, res, kycId, sessionId: session.id as string };
  }

  const stored = async (accountId: string) =>
    (
      await sql(
        `select state, decided_by, verifier_session_id, verifier_outcome, verifier_error, submissions from kyc_check where account_id = ?`,
        [accountId],
      )
    )[0];

  /** The stored provider event of a Stripe event id once the worker recorded its outcome. */
  async function outcomeOf(eventId: string, timeoutMs = 15_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await sql<{ outcome: string | null }>(
        `select outcome from provider_event where provider = 'stripe' and provider_event_id = ?`,
        [eventId],
      );
      if (row?.outcome) return row.outcome;
      if (Date.now() > until) throw new Error(`${eventId} has no outcome after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Waits until `done` holds (the worker applies webhooks a moment after they arrive). */
  async function waitFor(done: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > until) throw new Error(`not done after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Settles the session at the fake and waits for its event to be applied (or ignored) by the worker. */
  async function settle(sessionId: string, outcome: 'processing' | 'verified' | 'requires_input' | 'canceled', code?: string) {
    fake.settleVerification(sessionId, outcome, code);
    const event = await fake.waitForEvent(`identity.verification_session.${outcome}`, (e) => e.data.object.id === sessionId);
    return { eventId: event.id, outcome: await outcomeOf(event.id) };
  }

  const kycEvents = async (accountId: string) =>
    (
      await sql<{ state: string }>(
        `select message->>'state' as state from outbox where event_name = 'kyc-webhook' and message->>'account_id' = ? order by id`,
        [accountId],
      )
    ).map((r) => r.state);

  const snapshotOf = async (sessionId: string) =>
    (
      await sql(`select holdfast_ref, object_type, snapshot from provider_object where provider = 'stripe' and object_id = ?`, [sessionId])
    )[0];

  const payoutsBlock = async (accountId: string) => {
    const res = await call('GET', `/v2/block/${accountId}`, { token: client.token });
    assert.equal(res.status, 200, res.text);
    return (res.body.blocks.payouts as { reason: string } | undefined) ?? null;
  };

  it('a submission starts a document session with the check in its metadata, and answers PROCESSING with its URL on the fake', async () => {
    const { accountId, res, kycId, sessionId } = await started();
    assert.equal(res.body.payload.state, 'PROCESSING');
    assert.equal(res.body.payload.verification_url, fake.api.verificationSessions.get(sessionId)!.url);
    assert.ok(res.body.payload.verification_url.startsWith(`${fake.url}/`), res.body.payload.verification_url);
    const [request] = fake.requestsTo('POST', '/v1/identity/verification_sessions').filter((r) => r.body.metadata?.kyc_id === kycId);
    assert.deepEqual(request.body, {
      type: 'document',
      metadata: { kyc_id: kycId, account_id: accountId },
      return_url: `${PUBLIC_URL}/ui/kyc`,
    });
    assert.equal(request.idempotencyKey, `holdfast-kyc-${kycId}-submission-1`);
    // The personal data Holdfast collected stays in Holdfast.
    assert.doesNotMatch(JSON.stringify(request.body), /Lovelace|1990-12-10|Analytical/);
    assert.deepEqual([(await stored(accountId)).verifier_session_id, (await stored(accountId)).submissions], [sessionId, 1]);
    // The session is kept from its start, without what lets anyone complete it.
    const snapshot = await snapshotOf(sessionId);
    assert.deepEqual([snapshot.holdfast_ref, snapshot.object_type], [`kyc:${kycId}`, 'identity.verification_session']);
    assert.equal(snapshot.snapshot.metadata.kyc_id, kycId);
    assert.ok(!('url' in snapshot.snapshot) && !('client_secret' in snapshot.snapshot));
  });

  it("Stripe's verified → ACCEPT once: its snapshot stored (no URL, no secret), processing and a duplicate change nothing", async () => {
    const { accountId, kycId, sessionId } = await started();
    assert.equal((await settle(sessionId, 'processing')).outcome, 'ignored');
    assert.equal((await stored(accountId)).state, 'PROCESSING');
    const verified = await settle(sessionId, 'verified');
    assert.equal(verified.outcome, 'applied');
    const check = await stored(accountId);
    assert.deepEqual([check.state, check.decided_by, check.verifier_outcome], ['ACCEPT', 'verifier', 'verified']);
    const snapshot = await snapshotOf(sessionId);
    assert.equal(snapshot.holdfast_ref, `kyc:${kycId}`);
    assert.equal(snapshot.object_type, 'identity.verification_session');
    assert.equal(snapshot.snapshot.status, 'verified');
    assert.equal(snapshot.snapshot.metadata.kyc_id, kycId);
    for (const field of ['url', 'client_secret', 'verified_outputs', 'provided_details']) assert.ok(!(field in snapshot.snapshot), field);
    // Stripe sends the same event again: stored once, nothing moves.
    fake.redeliver(verified.eventId);
    await fake.eventsDelivered();
    assert.equal((await sql(`select 1 from provider_event where provider_event_id = ?`, [verified.eventId])).length, 1);
    assert.deepEqual(await kycEvents(accountId), ['PROCESSING', 'ACCEPT']);
  });

  it('events out of order: verified before processing ends ACCEPT; a stale requires_input after it moves nothing', async () => {
    const { accountId, sessionId } = await started();
    fake.holdEvents();
    fake.settleVerification(sessionId, 'requires_input', 'document_unverified_other');
    fake.settleVerification(sessionId, 'processing');
    fake.settleVerification(sessionId, 'verified');
    const events = fake.events.filter((e) => e.data.object.id === sessionId && e.type !== 'identity.verification_session.created');
    // Newest first, each applied before the next arrives: verified, processing, then the stale requires_input with its error.
    const outcomes: string[] = [];
    for (const event of [...events].reverse()) {
      fake.redeliver(event.id);
      outcomes.push(`${event.type.split('.').at(-1)} ${await outcomeOf(event.id)}`);
    }
    assert.deepEqual(outcomes, ['verified applied', 'processing ignored', 'requires_input ignored']);
    // The held deliveries come too: duplicates, stored once and never applied again.
    fake.releaseEvents('emitted');
    await fake.eventsDelivered();
    const check = await stored(accountId);
    assert.deepEqual([check.state, check.verifier_outcome, check.verifier_error], ['ACCEPT', 'verified', null]);
    assert.deepEqual(await kycEvents(accountId), ['PROCESSING', 'ACCEPT']);
    for (const event of events) assert.equal((await sql('select 1 from provider_event where provider_event_id = ?', [event.id])).length, 1);
    // The snapshot keeps the session's final state too.
    assert.equal((await snapshotOf(sessionId)).snapshot.status, 'verified');
  });

  it('requires_input with an error → MANUAL_REVIEW with its code, for the operator to decide', async () => {
    const { accountId, sessionId } = await started();
    assert.equal((await settle(sessionId, 'requires_input', 'document_expired')).outcome, 'applied');
    const check = await stored(accountId);
    assert.deepEqual(
      [check.state, check.decided_by, check.verifier_outcome, check.verifier_error],
      ['MANUAL_REVIEW', 'verifier', 'requires_input', 'document_expired'],
    );
    // A later verified of the same session leaves the check with the operator.
    assert.equal((await settle(sessionId, 'verified')).outcome, 'ignored');
    assert.equal((await stored(accountId)).state, 'MANUAL_REVIEW');
  });

  it("canceled → the user's CANCEL (payouts blocked); a new submission starts a new session, whose verified lifts the block", async () => {
    const { accountId, token, kycId, sessionId } = await started();
    assert.equal((await settle(sessionId, 'canceled')).outcome, 'applied');
    const cancelled = await stored(accountId);
    assert.deepEqual([cancelled.state, cancelled.decided_by], ['CANCEL', 'user']);
    assert.equal((await payoutsBlock(accountId))?.reason, 'kyc_application_cancelled');

    const again = await submit(accountId, token);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.payload.state, 'PROCESSING');
    assert.equal(again.body.payload.kyc_id, kycId);
    const second = (await stored(accountId)).verifier_session_id as string;
    assert.notEqual(second, sessionId);
    assert.equal(again.body.payload.verification_url, fake.api.verificationSessions.get(second)!.url);
    const keys = fake
      .requestsTo('POST', '/v1/identity/verification_sessions')
      .filter((r) => r.body.metadata?.kyc_id === kycId)
      .map((r) => r.idempotencyKey);
    assert.deepEqual(keys, [`holdfast-kyc-${kycId}-submission-1`, `holdfast-kyc-${kycId}-submission-2`]);
    // A late event of the old session names a session that is no longer the check's.
    assert.equal((await settle(sessionId, 'verified')).outcome, 'ignored');
    assert.equal((await stored(accountId)).state, 'PROCESSING');
    assert.equal((await settle(second, 'verified')).outcome, 'applied');
    assert.equal((await stored(accountId)).state, 'ACCEPT');
    assert.equal(await payoutsBlock(accountId), null);
    assert.deepEqual(await kycEvents(accountId), ['PROCESSING', 'CANCEL', 'PROCESSING', 'ACCEPT']);
  });

  it("the person completes Stripe's page and is sent back to the hosted KYC page; the check is ACCEPT", async () => {
    const { accountId, res } = await started();
    const page = res.body.payload.verification_url as string;
    assert.equal((await fetch(page)).status, 200);
    const done = await fetch(`${page}?outcome=verified`, { method: 'POST', redirect: 'manual' });
    assert.equal(done.status, 303);
    const back = new URL(done.headers.get('location')!);
    assert.equal(back.href, `${PUBLIC_URL}/ui/kyc`);
    // The return address is the hosted KYC page of this server.
    const hosted = await fetch(`${base}${back.pathname}`);
    assert.equal(hosted.status, 200);
    assert.match(hosted.headers.get('content-type') ?? '', /text\/html/);
    await waitFor(async () => (await stored(accountId)).state === 'ACCEPT');
    assert.deepEqual(await kycEvents(accountId), ['PROCESSING', 'ACCEPT']);
  });

  it("a person who gives up on Stripe's page (requires_input, abandoned) has cancelled their own check, and may submit again", async () => {
    const { accountId, token, res } = await started();
    const done = await fetch(`${res.body.payload.verification_url}?outcome=requires_input&code=abandoned`, {
      method: 'POST',
      redirect: 'manual',
    });
    assert.equal(done.status, 303);
    await waitFor(async () => (await stored(accountId)).state !== 'PROCESSING');
    const check = await stored(accountId);
    assert.deepEqual(
      [check.state, check.decided_by, check.verifier_outcome, check.verifier_error],
      ['CANCEL', 'user', 'canceled', 'abandoned'],
    );
    const again = await submit(accountId, token);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.payload.state, 'PROCESSING');
  });

  it('ignores a session Holdfast did not start, and fails an identity event that carries no session', async () => {
    const post = async (type: string, object: Record<string, unknown>) => {
      const id = `evt_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      const payload = JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object } });
      const res = await fetch(`${base}/hooks/stripe`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
        },
        body: payload,
      });
      assert.equal(res.status, 200);
      return id;
    };
    const foreign = await post('identity.verification_session.verified', {
      id: 'vs_notOurs',
      object: 'identity.verification_session',
      status: 'verified',
      metadata: { order: '42' },
    });
    assert.equal(await outcomeOf(foreign), 'ignored');
    assert.equal(await snapshotOf('vs_notOurs'), undefined);
    const unknownCheck = await post('identity.verification_session.verified', {
      id: 'vs_unknownCheck',
      object: 'identity.verification_session',
      status: 'verified',
      metadata: { kyc_id: 'kyc_00000000000000000000000000' },
    });
    assert.equal(await outcomeOf(unknownCheck), 'ignored');
    const empty = await post('identity.verification_session.verified', {});
    assert.equal(await outcomeOf(empty), 'failed');
  });

  it('a forged event is refused with 400 and changes nothing', async () => {
    const { accountId, kycId, sessionId } = await started();
    const session = { ...fake.api.verificationSessions.get(sessionId)!, status: 'verified' };
    for (const how of ['wrong-secret', 'tampered-body', 'stale-timestamp', 'no-signature'] as const) {
      const deliveries = await fake.sendForged({ type: 'identity.verification_session.verified', object: session }, how);
      assert.deepEqual(
        deliveries.map((d) => d.status),
        [400],
        how,
      );
    }
    const storedTypes = await sql<{ type: string }>(
      `select type from provider_event where payload->'data'->'object'->'metadata'->>'kyc_id' = ? order by received_at`,
      [kycId],
    );
    assert.ok(!storedTypes.some((e) => e.type === 'identity.verification_session.verified'), JSON.stringify(storedTypes));
    assert.equal((await stored(accountId)).state, 'PROCESSING');
    assert.notEqual((await snapshotOf(sessionId))?.snapshot.status, 'verified');
  });

  it('Stripe down answers 503 and takes nothing; the retry carries the same idempotency key, so a lost answer makes one session', async () => {
    const { account_id: accountId } = await register(client);
    const token = await userToken(accountId);
    fake.fault('error', { requests: 1, status: 500, path: '/v1/identity/verification_sessions' });
    const down = await submit(accountId, token);
    assert.equal(down.status, 503, down.text);
    assert.deepEqual(down.body.codes, ['PROVIDER_UNAVAILABLE']);
    assert.ok(down.headers.get('retry-after'));
    const kept = await stored(accountId);
    assert.deepEqual([kept.state, kept.submissions, kept.verifier_session_id], ['NODATA', 0, null]);
    assert.deepEqual(
      await sql(`select 1 from kyc_personal_data d join kyc_check c using (kyc_id) where c.account_id = ?`, [accountId]),
      [],
    );

    // The person tries again; Stripe makes the session but the answer is lost, and the client's retry gets it replayed.
    fake.fault('lose-response', { requests: 1, path: '/v1/identity/verification_sessions' });
    const retried = await submit(accountId, token);
    assert.equal(retried.status, 200, retried.text);
    const kycId = retried.body.payload.kyc_id as string;
    const tries = fake.requestsTo('POST', '/v1/identity/verification_sessions').filter((r) => r.body.metadata?.kyc_id === kycId);
    assert.deepEqual(
      tries.map((r) => [r.idempotencyKey, r.fault ?? null, r.replayed]),
      [
        [`holdfast-kyc-${kycId}-submission-1`, 'error', false],
        [`holdfast-kyc-${kycId}-submission-1`, 'lose-response', false],
        [`holdfast-kyc-${kycId}-submission-1`, null, true],
      ],
    );
    const sessions = [...fake.api.verificationSessions.values()].filter((s) => s.metadata?.kyc_id === kycId);
    assert.equal(sessions.length, 1, 'one session for the submission');
    assert.equal((await stored(accountId)).verifier_session_id, sessions[0].id);
    assert.equal(retried.body.payload.verification_url, sessions[0].url);
  });
});
