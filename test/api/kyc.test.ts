import assert from 'node:assert/strict';
import { call, h, holdfastCli, newClient, register, type TestClient } from '../support/harness.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';

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
  return holdfastCli(['kyc', 'decide', accountId, '--state', state, '--json'], env);
}

describe('KYC (GET/POST /v1/kyc/{account_id}, holdfast kyc decide)', () => {
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

  it('a cancelled check takes a new submission; kyc erase deletes the personal data and keeps the state', async () => {
    const { account_id } = await register(client);
    const token = await userToken(client, account_id);
    assert.equal((await call('POST', `/v1/kyc/${account_id}`, { token, body: person('Review') })).body.payload.state, 'MANUAL_REVIEW');
    assert.equal((await decide(account_id, 'CANCEL')).status, 0);
    const cancelled = (await call('GET', `/v1/kyc/${account_id}`, { token: client.token })).body.payload;
    assert.deepEqual([cancelled.state, cancelled.pii_level, cancelled.kyc_requirements.length], ['CANCEL', 'NONE', 5]);
    const resubmitted = await call('POST', `/v1/kyc/${account_id}`, { token, body: person() });
    assert.equal(resubmitted.body.payload.state, 'ACCEPT');
    assert.equal(resubmitted.body.payload.kyc_id, cancelled.kyc_id, 'the same check');
    const db = h().orm.em.fork().getConnection();
    const stored = await db.execute('select last_name from kyc_personal_data where kyc_id = ?', [cancelled.kyc_id]);
    assert.deepEqual(stored, [{ last_name: 'Lovelace' }], 'stored apart, the latest submission');
    const erased = await holdfastCli(['kyc', 'erase', account_id, '--json']);
    assert.equal(erased.status, 0, erased.stderr);
    assert.deepEqual(JSON.parse(erased.stdout), { account_id, erased: true });
    assert.deepEqual(await db.execute('select 1 from kyc_personal_data where kyc_id = ?', [cancelled.kyc_id]), []);
    assert.equal((await call('GET', `/v1/kyc/${account_id}`, { token: client.token })).body.payload.state, 'ACCEPT');
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
