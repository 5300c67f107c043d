import assert from 'node:assert/strict';
import { db as pooled } from '../../src/db/sql.js';
import { applyVerifierOutcome, decideKyc } from '../../src/kyc/kyc.service.js';
import type { IdentityCheckRequest, IdentityCheckStart, IdentityVerifier } from '../../src/rails/identity-verifier.port.js';
import { call, h, holdfastCli, newClient, register, startExtraApp, type TestClient } from '../support/harness.js';

/** A user password token for the account, opened by the client. */
async function userToken(client: TestClient, accountId: string): Promise<string> {
  const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
  assert.equal(res.status, 200, res.text);
  return res.body.payload.token.access_token;
}

const person = (lastName = 'Lovelace') => ({
  first_name: 'Ada',
  last_name: lastName,
  date_of_birth: '1990-12-10',
  address: '1 Analytical Row, London',
  country: 'GB',
});

async function kycEvents(accountId: string): Promise<Array<Record<string, unknown>>> {
  const rows = await h()
    .orm.em.fork()
    .getConnection()
    .execute<Array<{ message: Record<string, unknown> }>>(
      `select message from outbox where event_name = 'kyc-webhook' and message->>'account_id' = ? order by id`,
      [accountId],
    );
  return rows.map((r) => r.message);
}

async function payoutsBlock(client: TestClient, accountId: string) {
  const res = await call('GET', `/v2/block/${accountId}`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  return (res.body.blocks.payouts as { reason: string; issuer: string } | undefined) ?? null;
}

async function decide(accountId: string, state: string, env: Record<string, string> = {}) {
  return holdfastCli(['kyc', 'decide', accountId, '--state', state, '--reason', 'checked', '--json'], env);
}

async function reopen(accountId: string, reason = 'documents re-checked by support') {
  return holdfastCli(['kyc', 'reopen', accountId, '--reason', reason, '--json']);
}

async function kycState(client: TestClient, accountId: string) {
  const res = await call('GET', `/v1/kyc/${accountId}`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  return res.body.payload;
}

/** The check's row as stored: who decided it, its verifier session and outcome, its latest reopen. */
async function storedCheck(accountId: string) {
  const [row] = await h()
    .orm.em.fork()
    .getConnection()
    .execute<Array<Record<string, unknown>>>(
      `select state, decided_by, verifier_session_id, verifier_outcome, verifier_error, reopen_reason, reopened_at
         from kyc_check where account_id = ?`,
      [accountId],
    );
  return row;
}

/**
 * A stand-in of a provider's verifier behind the identity port (as Stripe Identity will be):
 * every submission starts a session, numbered in order, and the person is sent to its URL.
 */
class SessionVerifier implements IdentityVerifier {
  readonly name = 'test-sessions';
  readonly requests: IdentityCheckRequest[] = [];
  failing = false;

  async start(request: IdentityCheckRequest): Promise<IdentityCheckStart> {
    if (this.failing) throw new Error('provider unavailable');
    this.requests.push(request);
    const n = this.requests.length;
    return { kind: 'session', sessionId: `vs_test_${n}_${request.kycId}`, verificationUrl: `https://verify.example/session/${n}` };
  }
}

describe('KYC (GET/POST /v1/kyc/{account_id}, holdfast kyc decide and reopen)', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  it('an account starts in NODATA, with every field required and no kyc_id', async () => {
    const { account_id } = await register(client);
    const res = await call('GET', `/v1/kyc/${account_id}`, { token: client.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.payload, {
      account_id,
      kyc_id: null,
      state: 'NODATA',
      pii_level: 'NONE',
      kyc_requirements: ['first_name', 'last_name', 'date_of_birth', 'address', 'country'],
    });
  });

  it('the account submits with its own user token; the sandbox verifier accepts; only the state ever comes back', async () => {
    const { account_id } = await register(client);
    const token = await userToken(client, account_id);
    const res = await call('POST', `/v1/kyc/${account_id}`, { token, body: person() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.state, 'ACCEPT');
    assert.equal(res.body.payload.pii_level, 'FULL');
    assert.deepEqual(res.body.payload.kyc_requirements, []);
    assert.match(res.body.payload.kyc_id, /^kyc_/);
    for (const answer of [res, await call('GET', `/v1/kyc/${account_id}`, { token: client.token })]) {
      assert.doesNotMatch(answer.text, /Lovelace|Analytical|1990-12-10/, 'no personal data in an answer');
    }
    const events = await kycEvents(account_id);
    assert.deepEqual(events, [res.body.payload]);
    assert.doesNotMatch(JSON.stringify(events), /Lovelace/, 'no personal data in an event');
    // Taken once: a second submission is refused.
    const again = await call('POST', `/v1/kyc/${account_id}`, { token, body: person() });
    assert.equal(again.status, 409, again.text);
    assert.deepEqual(again.body.codes, ['KYC_STATE_ERROR']);
  });

  it('refuses a client token for the submission (personal data passes between the person and Holdfast only)', async () => {
    const { account_id } = await register(client);
    const res = await call('POST', `/v1/kyc/${account_id}`, { token: client.token, body: person() });
    assert.equal(res.status, 401, res.text);
    assert.equal((await call('GET', `/v1/kyc/${account_id}`, { token: client.token })).body.payload.state, 'NODATA');
  });

  it('names each missing or invalid field, and stores nothing', async () => {
    const { account_id } = await register(client);
    const token = await userToken(client, account_id);
    const res = await call('POST', `/v1/kyc/${account_id}`, {
      token,
      body: { first_name: '  ', last_name: 'X', date_of_birth: '2031-02-30', address: 'A', country: 'G1' },
    });
    assert.equal(res.status, 400, res.text);
    const errors = res.body.payload.errors;
    assert.deepEqual(Object.keys(errors).sort(), ['country', 'date_of_birth', 'first_name']);
    assert.equal((await call('GET', `/v1/kyc/${account_id}`, { token: client.token })).body.payload.state, 'NODATA');
  });

  it('last name Deny → DENY and an operator payouts block (failed_kyc); Review → MANUAL_REVIEW until the operator decides', async () => {
    const denied = await register(client);
    const deny = await call('POST', `/v1/kyc/${denied.account_id}`, {
      token: await userToken(client, denied.account_id),
      body: person('Deny'),
    });
    assert.equal(deny.body.payload.state, 'DENY');
    assert.equal(deny.body.payload.pii_level, 'BASIC');
    const block = await payoutsBlock(client, denied.account_id);
    assert.ok(block, 'a payouts block');
    assert.deepEqual([block.reason, block.issuer], ['failed_kyc', 'svc']);

    const reviewed = await register(client);
    const review = await call('POST', `/v1/kyc/${reviewed.account_id}`, {
      token: await userToken(client, reviewed.account_id),
      body: person(' review '),
    });
    assert.equal(review.body.payload.state, 'MANUAL_REVIEW');
    assert.equal(await payoutsBlock(client, reviewed.account_id), null);
    // As `holdfast kyc decide` decides on a production database.
    const decided = await decideKyc(h().orm.em.fork(), reviewed.account_id, 'ACCEPT', true);
    assert.equal(decided.state, 'ACCEPT');
    // In production only MANUAL_REVIEW is decided.
    await assert.rejects(decideKyc(h().orm.em.fork(), reviewed.account_id, 'DENY', true), /MANUAL_REVIEW/);
    assert.equal((await call('GET', `/v1/kyc/${reviewed.account_id}`, { token: client.token })).body.payload.state, 'ACCEPT');
  });

  it('staging decides from any state; ACCEPT lifts only a KYC payouts block; an active payouts block stays as it is', async () => {
    const { account_id } = await register(client);
    assert.equal((await decide(account_id, 'CANCEL')).status, 0);
    let block = await payoutsBlock(client, account_id);
    assert.equal(block!.reason, 'kyc_application_cancelled');
    // DENY with a payouts block already active: the block stays as it is.
    assert.equal((await decide(account_id, 'DENY')).status, 0);
    block = await payoutsBlock(client, account_id);
    assert.equal(block!.reason, 'kyc_application_cancelled');
    const accepted = JSON.parse((await decide(account_id, 'ACCEPT')).stdout);
    assert.equal(accepted.state, 'ACCEPT');
    assert.equal(await payoutsBlock(client, account_id), null, 'lifted');
    assert.deepEqual(
      (await kycEvents(account_id)).map((e) => e.state),
      ['CANCEL', 'DENY', 'ACCEPT'],
    );

    // A payouts block set for another reason is not lifted by ACCEPT.
    const other = await register(client);
    const operator = await newClient({ integrator: client.integrator, isOperator: true });
    const blocked = await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: other.account_id, block_capability: 'payouts', block_reason: 'compliance' },
    });
    assert.equal(blocked.status, 200, blocked.text);
    assert.equal((await decide(other.account_id, 'ACCEPT')).status, 0);
    block = await payoutsBlock(client, other.account_id);
    assert.equal(block!.reason, 'compliance');
  });

  it("an operator's CANCEL takes no submission (409 naming CANCEL) until kyc reopen; kyc erase deletes the personal data and keeps the state", async function () {
    this.timeout(120_000);
    const { account_id } = await register(client);
    const token = await userToken(client, account_id);
    assert.equal((await call('POST', `/v1/kyc/${account_id}`, { token, body: person('Review') })).body.payload.state, 'MANUAL_REVIEW');
    assert.equal((await decide(account_id, 'CANCEL')).status, 0);
    const cancelled = await kycState(client, account_id);
    // Nothing to provide: the operator's CANCEL stays until reopened.
    assert.deepEqual([cancelled.state, cancelled.pii_level, cancelled.kyc_requirements], ['CANCEL', 'NONE', []]);
    const refused = await call('POST', `/v1/kyc/${account_id}`, { token, body: person() });
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.codes, ['KYC_STATE_ERROR']);
    assert.match(refused.body.message[0], /\bCANCEL\b.*reopen/);
    assert.equal((await kycState(client, account_id)).state, 'CANCEL', 'not ACCEPTed');
    assert.equal((await payoutsBlock(client, account_id))!.reason, 'kyc_application_cancelled', 'its payouts block stays');

    const reopened = await reopen(account_id);
    assert.equal(reopened.status, 0, reopened.stderr);
    assert.equal((await kycState(client, account_id)).state, 'NODATA');
    const resubmitted = await call('POST', `/v1/kyc/${account_id}`, { token, body: person() });
    assert.equal(resubmitted.body.payload.state, 'ACCEPT');
    assert.equal(resubmitted.body.payload.kyc_id, cancelled.kyc_id, 'the same check');
    assert.equal(await payoutsBlock(client, account_id), null, 'the ACCEPT lifts it');
    const db = h().orm.em.fork().getConnection();
    const stored = await db.execute('select last_name from kyc_personal_data where kyc_id = ?', [cancelled.kyc_id]);
    assert.deepEqual(stored, [{ last_name: 'Lovelace' }], 'stored apart, the latest submission');
    const erased = await holdfastCli(['kyc', 'erase', account_id, '--reason', 'asked to be forgotten', '--json']);
    assert.equal(erased.status, 0, erased.stderr);
    assert.deepEqual(JSON.parse(erased.stdout), { account_id, erased: true });
    assert.deepEqual(await db.execute('select 1 from kyc_personal_data where kyc_id = ?', [cancelled.kyc_id]), []);
    assert.equal((await kycState(client, account_id)).state, 'ACCEPT');
  });

  it('a DENY takes no submission: 409 naming DENY, nothing ACCEPTed and its payouts block kept', async () => {
    const { account_id } = await register(client);
    const token = await userToken(client, account_id);
    assert.equal((await call('POST', `/v1/kyc/${account_id}`, { token, body: person('Deny') })).body.payload.state, 'DENY');
    assert.deepEqual((await kycState(client, account_id)).kyc_requirements, []);
    const again = await call('POST', `/v1/kyc/${account_id}`, { token, body: person() });
    assert.equal(again.status, 409, again.text);
    assert.deepEqual(again.body.codes, ['KYC_STATE_ERROR']);
    assert.match(again.body.message[0], /^The identity check is DENY: .*reopen/);
    assert.equal((await kycState(client, account_id)).state, 'DENY');
    assert.equal((await payoutsBlock(client, account_id))!.reason, 'failed_kyc');
    assert.deepEqual(
      (await kycEvents(account_id)).map((e) => e.state),
      ['DENY'],
    );
  });

  it('kyc reopen: NODATA with its event, the reason and time kept; the payouts block stays until an ACCEPT lifts it', async function () {
    this.timeout(120_000);
    const { account_id } = await register(client);
    const token = await userToken(client, account_id);
    await call('POST', `/v1/kyc/${account_id}`, { token, body: person('Deny') });
    const before = Date.now();
    const res = await reopen(account_id, '  passport re-checked by support (ticket 4411)  ');
    assert.equal(res.status, 0, res.stderr);
    const out = JSON.parse(res.stdout);
    assert.equal(out.state, 'NODATA');
    assert.equal(out.reopen_reason, 'passport re-checked by support (ticket 4411)');
    assert.ok(Math.abs(Date.parse(out.reopened_at) - before) < 60_000, out.reopened_at);
    const view = await kycState(client, account_id);
    assert.deepEqual([view.state, view.pii_level, view.kyc_requirements.length], ['NODATA', 'NONE', 5]);
    const stored = await storedCheck(account_id);
    assert.equal(stored.decided_by, 'operator');
    assert.equal(stored.reopen_reason, 'passport re-checked by support (ticket 4411)');
    assert.equal(new Date(stored.reopened_at as string).getTime(), Date.parse(out.reopened_at), 'kept on the check');
    const events = await kycEvents(account_id);
    assert.deepEqual(
      events.map((e) => e.state),
      ['DENY', 'NODATA'],
    );
    assert.deepEqual(events[1], view, 'the event is the view: no reason in it');
    // Reopened, not lifted: the block stays, through another DENY too, until an ACCEPT.
    assert.equal((await payoutsBlock(client, account_id))!.reason, 'failed_kyc');
    assert.equal((await call('POST', `/v1/kyc/${account_id}`, { token, body: person('Deny') })).body.payload.state, 'DENY');
    assert.equal((await payoutsBlock(client, account_id))!.reason, 'failed_kyc');
    assert.equal((await reopen(account_id)).status, 0);
    assert.equal((await payoutsBlock(client, account_id))!.reason, 'failed_kyc');
    assert.equal((await call('POST', `/v1/kyc/${account_id}`, { token, body: person() })).body.payload.state, 'ACCEPT');
    assert.equal(await payoutsBlock(client, account_id), null);
  });

  it('kyc reopen refuses a check that is not DENY or an operator CANCEL (one line, exit 1) and a missing or empty --reason (exit 2)', async function () {
    this.timeout(120_000);
    const fresh = await register(client);
    const accepted = await register(client);
    await call('POST', `/v1/kyc/${accepted.account_id}`, { token: await userToken(client, accepted.account_id), body: person() });
    const reviewed = await register(client);
    await call('POST', `/v1/kyc/${reviewed.account_id}`, { token: await userToken(client, reviewed.account_id), body: person('Review') });
    const refusals: Array<[string, string]> = [
      [fresh.account_id, 'NODATA'],
      [accepted.account_id, 'ACCEPT'],
      [reviewed.account_id, 'MANUAL_REVIEW'],
    ];
    const answers = await Promise.all(refusals.map(([accountId]) => reopen(accountId)));
    for (const [i, [accountId, state]] of refusals.entries()) {
      const res = answers[i];
      assert.equal(res.status, 1, `${state}: ${res.stdout}`);
      assert.equal(res.stdout, '');
      assert.equal(
        res.stderr,
        `holdfast: The identity check of account ${accountId} is ${state}: only a DENY or an operator's CANCEL is reopened.\n`,
      );
      assert.equal((await kycState(client, accountId)).state, state, 'unchanged');
    }
    assert.equal((await kycEvents(fresh.account_id)).length, 0);
    const [missing, empty, unknown] = await Promise.all([
      holdfastCli(['kyc', 'reopen', fresh.account_id]),
      holdfastCli(['kyc', 'reopen', fresh.account_id, '--reason', '   ']),
      reopen('acc_nonexistent'),
    ]);
    assert.equal(missing.status, 2, missing.stderr);
    assert.match(missing.stderr, /^holdfast: --reason is required/);
    assert.equal(empty.status, 2, empty.stderr);
    assert.match(empty.stderr, /^holdfast: --reason is required/);
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stderr, 'holdfast: no account "acc_nonexistent" (an account_id)\n');
  });

  describe('behind a session-based identity verifier (the identity port)', () => {
    let verifier: SessionVerifier;
    let app: Awaited<ReturnType<typeof startExtraApp>>;
    before(async () => {
      verifier = new SessionVerifier();
      app = await startExtraApp({ identityVerifier: verifier });
    });
    after(async () => {
      await app.close();
    });

    /** An account whose submission started a session: its id, check id, session id and user token. */
    async function started() {
      const { account_id } = await register(client);
      const token = await userToken(client, account_id);
      const res = await call('POST', `/v1/kyc/${account_id}`, { token, body: person('Deny'), baseUrl: app.baseUrl });
      assert.equal(res.status, 200, res.text);
      const request = verifier.requests.at(-1)!;
      return {
        accountId: account_id,
        token,
        res,
        kycId: res.body.payload.kyc_id as string,
        sessionId: `vs_test_${verifier.requests.length}_${request.kycId}`,
      };
    }

    it('a submission starts a session: PROCESSING with its verification_url (only in that answer); the last name decides nothing', async () => {
      const { accountId, token, res, kycId, sessionId } = await started();
      assert.equal(res.body.payload.state, 'PROCESSING');
      assert.equal(res.body.payload.verification_url, `https://verify.example/session/${verifier.requests.length}`);
      const request = verifier.requests.at(-1)!;
      assert.deepEqual(request, {
        kycId,
        submission: 1,
        accountId,
        personalData: person('Deny'),
        returnUrl: 'http://localhost:3000/ui/kyc',
      });
      const view = await kycState(client, accountId);
      assert.equal(view.state, 'PROCESSING');
      assert.equal('verification_url' in view, false, 'not kept, not shown again');
      const events = await kycEvents(accountId);
      assert.deepEqual(events, [view], 'the event carries no verification_url');
      assert.equal((await storedCheck(accountId)).verifier_session_id, sessionId);
      assert.equal((await storedCheck(accountId)).decided_by, 'verifier');
      const again = await call('POST', `/v1/kyc/${accountId}`, { token, body: person(), baseUrl: app.baseUrl });
      assert.equal(again.status, 409, again.text);
      assert.match(again.body.message[0], /PROCESSING/);
    });

    it('a verifier that fails takes nothing: the check stays NODATA with no personal data', async () => {
      const { account_id } = await register(client);
      const token = await userToken(client, account_id);
      verifier.failing = true;
      try {
        const res = await call('POST', `/v1/kyc/${account_id}`, { token, body: person(), baseUrl: app.baseUrl });
        assert.equal(res.status, 500, res.text);
        assert.doesNotMatch(res.text, /provider unavailable/);
      } finally {
        verifier.failing = false;
      }
      assert.equal((await kycState(client, account_id)).state, 'NODATA');
      const kept = await h()
        .orm.em.fork()
        .getConnection()
        .execute('select 1 from kyc_personal_data d join kyc_check c on c.kyc_id = d.kyc_id where c.account_id = ?', [account_id]);
      assert.deepEqual(kept, []);
    });

    it("the user's CANCEL (an abandoned verification) takes a new submission, unlike an operator's; reopen refuses it", async function () {
      this.timeout(120_000);
      const { accountId, token, kycId, sessionId } = await started();
      const db = pooled(h().orm.em.fork());
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'canceled' }), { applied: true, state: 'CANCEL' });
      const cancelled = await kycState(client, accountId);
      assert.deepEqual([cancelled.state, cancelled.kyc_requirements.length], ['CANCEL', 5]);
      assert.equal((await storedCheck(accountId)).decided_by, 'user');
      assert.equal((await payoutsBlock(client, accountId))!.reason, 'kyc_application_cancelled');
      const refused = await reopen(accountId);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /is CANCEL \(decided by the user\): only a DENY or an operator's CANCEL is reopened/);

      const again = await call('POST', `/v1/kyc/${accountId}`, { token, body: person(), baseUrl: app.baseUrl });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.payload.state, 'PROCESSING');
      const next = `vs_test_${verifier.requests.length}_${kycId}`;
      assert.notEqual(next, sessionId);
      assert.equal((await storedCheck(accountId)).verifier_session_id, next);
      // The abandoned session's late outcome is not the check's current session's: ignored.
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'verified' }), { applied: false, state: 'PROCESSING' });
      assert.equal((await kycState(client, accountId)).state, 'PROCESSING');
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId: next, outcome: 'verified' }), { applied: true, state: 'ACCEPT' });
      assert.equal(await payoutsBlock(client, accountId), null, 'the ACCEPT lifts the block of the CANCEL');
    });

    it("an operator's CANCEL of the user's own CANCEL makes it final", async () => {
      const { accountId, token, kycId, sessionId } = await started();
      await applyVerifierOutcome(pooled(h().orm.em.fork()), { kycId, sessionId, outcome: 'canceled' });
      const decided = await decideKyc(h().orm.em.fork(), accountId, 'CANCEL', false);
      assert.deepEqual([decided.state, decided.kyc_requirements], ['CANCEL', []]);
      assert.equal((await storedCheck(accountId)).decided_by, 'operator');
      const refused = await call('POST', `/v1/kyc/${accountId}`, { token, body: person(), baseUrl: app.baseUrl });
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.body.message[0], /CANCEL: .*reopen/);
    });

    it('applyVerifierOutcome: verified → ACCEPT once (a repeat changes nothing and emits nothing); processing and requires_input without an error wait', async () => {
      const { accountId, kycId, sessionId } = await started();
      const db = pooled(h().orm.em.fork());
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'processing' }), {
        applied: false,
        state: 'PROCESSING',
      });
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'requires_input' }), {
        applied: false,
        state: 'PROCESSING',
      });
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'verified' }), { applied: true, state: 'ACCEPT' });
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'verified' }), { applied: false, state: 'ACCEPT' });
      // Out of order: an older "processing" or a "canceled" after the verdict moves nothing.
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'processing' }), { applied: false, state: 'ACCEPT' });
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'canceled' }), { applied: false, state: 'ACCEPT' });
      assert.deepEqual(
        (await kycEvents(accountId)).map((e) => e.state),
        ['PROCESSING', 'ACCEPT'],
      );
      const stored = await storedCheck(accountId);
      assert.deepEqual(
        [stored.state, stored.decided_by, stored.verifier_session_id, stored.verifier_outcome, stored.verifier_error],
        ['ACCEPT', 'verifier', sessionId, 'verified', null],
      );
      assert.deepEqual(await applyVerifierOutcome(db, { kycId: 'kyc_unknown', sessionId, outcome: 'verified' }), {
        applied: false,
        state: null,
      });
    });

    it('applyVerifierOutcome: requires_input with an error → MANUAL_REVIEW, kept with its code; the operator decides from there', async function () {
      this.timeout(120_000);
      const { accountId, kycId, sessionId } = await started();
      const db = pooled(h().orm.em.fork());
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'requires_input', errorCode: 'document_expired' }), {
        applied: true,
        state: 'MANUAL_REVIEW',
      });
      const stored = await storedCheck(accountId);
      assert.deepEqual(
        [stored.state, stored.decided_by, stored.verifier_outcome, stored.verifier_error],
        ['MANUAL_REVIEW', 'verifier', 'requires_input', 'document_expired'],
      );
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'verified' }), {
        applied: false,
        state: 'MANUAL_REVIEW',
      });
      // As `holdfast kyc decide` decides on a production database: MANUAL_REVIEW is decided there.
      assert.equal((await decideKyc(h().orm.em.fork(), accountId, 'DENY', true)).state, 'DENY');
      assert.equal((await payoutsBlock(client, accountId))!.reason, 'failed_kyc');
      // The reopen forgets the session: its late outcome names no current session of the check.
      assert.equal((await reopen(accountId)).status, 0);
      assert.equal((await storedCheck(accountId)).verifier_session_id, null);
      assert.deepEqual(await applyVerifierOutcome(db, { kycId, sessionId, outcome: 'verified' }), { applied: false, state: 'NODATA' });
      assert.deepEqual(
        (await kycEvents(accountId)).map((e) => e.state),
        ['PROCESSING', 'MANUAL_REVIEW', 'DENY', 'NODATA'],
      );
    });
  });

  it("another integrator's account is 404, and a user token reads only its own account", async () => {
    const { account_id } = await register(client);
    const other = await newClient();
    const res = await call('GET', `/v1/kyc/${account_id}`, { token: other.token });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
    const mine = await register(client);
    const token = await userToken(client, mine.account_id);
    assert.equal((await call('GET', `/v1/kyc/${account_id}`, { token })).status, 404);
    assert.equal((await call('GET', `/v1/kyc/${mine.account_id}`, { token })).status, 200);
    const unknown = await decide('acct_00000000000000000000000000', 'ACCEPT');
    assert.equal(unknown.status, 1);
  });
});
