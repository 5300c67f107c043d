import assert from 'node:assert/strict';
import { call, h, newClient, register, unique, type TestClient } from '../support/harness.js';

const CAPABILITIES = ['login', 'payouts', 'transactions'] as const;

/** The block events written for an account, oldest first. */
async function blockEvents(accountId: string): Promise<Array<Record<string, any>>> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ message: Record<string, any> }>>(
      `select message from outbox where event_name = 'account-block-unblock-webhook' and message->>'account_id' = ? order by created_at, id`,
      [accountId],
    );
  return rows.map((r) => r.message);
}

describe('blocks', () => {
  const integrator = unique('blocks-');
  let publisher: TestClient;
  let licensed: TestClient;
  let operator: TestClient;

  before(async () => {
    publisher = await newClient({ integrator });
    licensed = await newClient({ integrator, canUnblock: true });
    operator = await newClient({ integrator, isOperator: true });
  });

  it('blocks login for account_close as the publisher and shows it in every view', async () => {
    const account = await register(publisher);
    const res = await call('POST', '/v2/block', {
      token: publisher.token,
      body: {
        account_id: account.account_id,
        block_capability: 'login',
        block_reason: 'account_close',
        note: "closed at the user's request",
      },
    });
    assert.equal(res.status, 200, res.text);
    const block = res.body.blocks.login;
    assert.match(block.block_id, /^blk_/);
    assert.deepEqual(
      { ...block, block_id: undefined, created: undefined },
      {
        block_id: undefined,
        created: undefined,
        account_id: account.account_id,
        capability: 'login',
        issuer: 'publisher',
        reason: 'account_close',
        note: "closed at the user's request",
        status: 'active',
      },
    );
    assert.deepEqual((await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body, res.body);
    const profile = (await call('GET', `/v1/user-info/${account.account_id}`, { token: publisher.token })).body.payload;
    assert.equal(profile.is_blocked, true);
    assert.deepEqual(profile.blocked_capabilities, res.body.blocks);
    assert.equal((await call('GET', `/v1/${account.account_id}/user-info`, { token: publisher.token })).body.payload.is_blocked, true);
    const [event] = await blockEvents(account.account_id);
    assert.deepEqual(event, {
      account_id: account.account_id,
      blocks: res.body.blocks,
      is_blocked: true,
      action: 'block',
      capability: 'login',
      integrator,
    });
  });

  it('blocking an already blocked capability keeps the one block and writes no second event', async () => {
    const account = await register(publisher);
    const body = { account_id: account.account_id, block_capability: 'login', block_reason: 'account_close' };
    const [first, second] = await Promise.all([
      call('POST', '/v2/block', { token: publisher.token, body }),
      call('POST', '/v2/block', { token: publisher.token, body }),
    ]);
    const third = await call('POST', '/v2/block', { token: operator.token, body: { ...body, block_reason: 'compliance' } });
    assert.equal(first.body.blocks.login.block_id, second.body.blocks.login.block_id);
    assert.deepEqual(third.body, first.body, 'the existing block stays as it was');
    const [rows] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>('select count(*) as n from account_block where account_id = ?', [account.account_id]);
    assert.equal(Number(rows.n), 1);
    assert.equal((await blockEvents(account.account_id)).length, 1);
  });

  it('refuses a publisher the operator-only capabilities and reasons, naming the field, and blocks nothing', async () => {
    const account = await register(publisher);
    for (const [capability, reason, fields] of [
      ['payouts', 'account_close', ['block_capability']],
      ['transactions', 'account_close', ['block_capability']],
      ['login', 'gdpr', ['block_reason']],
    ] as const) {
      const res = await call('POST', '/v2/block', {
        token: licensed.token,
        body: { account_id: account.account_id, block_capability: capability, block_reason: reason },
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.codes, ['INPUT_ERROR']);
      assert.deepEqual(Object.keys(res.body.payload.errors), fields);
      assert.deepEqual(res.body.payload.errors[fields[0]], ['OPERATOR_ONLY']);
    }
    assert.deepEqual((await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body.blocks, {});
    assert.equal((await blockEvents(account.account_id)).length, 0);
  });

  it('refuses unknown capabilities and reasons with 400 naming the field', async () => {
    const account = await register(publisher);
    const bad = await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: account.account_id, block_capability: 'chat', block_reason: 'spite' },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.payload.errors).sort(), ['block_capability', 'block_reason']);
    const del = await call('DELETE', `/v2/block/${account.account_id}/capability/chat`, { token: operator.token });
    assert.equal(del.status, 400);
    assert.deepEqual(del.body.payload.errors, { block_capability: ['INVALID_VALUE'] });
  });

  it('answers 404 for an account of another integrator, blocking nothing', async () => {
    const account = await register(publisher);
    const stranger = await newClient({ isOperator: true });
    const res = await call('POST', '/v2/block', {
      token: stranger.token,
      body: { account_id: account.account_id, block_capability: 'login', block_reason: 'account_close' },
    });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
    assert.equal((await call('DELETE', `/v2/block/${account.account_id}/capability/login`, { token: stranger.token })).status, 404);
    assert.deepEqual((await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body.blocks, {});
  });

  // Over HTTP: who may remove which block (issuer × capability × caller).
  describe('unblock permission matrix', () => {
    const callers = () => ({ 'publisher without licence': publisher, 'publisher with licence': licensed, operator });
    const cases: Array<{ issuer: 'publisher' | 'svc'; capability: (typeof CAPABILITIES)[number] }> = [
      { issuer: 'publisher', capability: 'login' },
      ...CAPABILITIES.map((capability) => ({ issuer: 'svc' as const, capability })),
    ];
    const allowed = (caller: string, issuer: string) =>
      caller === 'operator' || (caller === 'publisher with licence' && issuer === 'publisher');

    for (const { issuer, capability } of cases) {
      for (const caller of ['publisher without licence', 'publisher with licence', 'operator'] as const) {
        const ok = allowed(caller, issuer);
        it(`${ok ? 'lets' : 'refuses'} a ${caller} remove a ${capability} block issued by ${issuer}`, async () => {
          const account = await register(publisher);
          const issuing = issuer === 'svc' ? operator : publisher;
          const made = await call('POST', '/v2/block', {
            token: issuing.token,
            body: {
              account_id: account.account_id,
              block_capability: capability,
              block_reason: issuer === 'svc' ? 'compliance' : 'account_close',
            },
          });
          assert.equal(made.body.blocks[capability].issuer, issuer);
          const res = await call('DELETE', `/v2/block/${account.account_id}/capability/${capability}`, { token: callers()[caller].token });
          const after = (await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body.blocks;
          if (ok) {
            assert.equal(res.status, 200, res.text);
            assert.deepEqual(res.body, { account_id: account.account_id, blocks: {} });
            assert.deepEqual(after, {});
            const events = await blockEvents(account.account_id);
            assert.deepEqual(
              events.map((e) => [e.action, e.capability, e.is_blocked]),
              [
                ['block', capability, true],
                ['unblock', capability, false],
              ],
            );
          } else {
            assert.equal(res.status, 403, res.text);
            assert.deepEqual(res.body.codes, ['BLOCK_PERMISSION_ERROR']);
            assert.deepEqual(after, made.body.blocks, 'the block is unchanged');
            assert.equal((await blockEvents(account.account_id)).length, 1);
          }
        });
      }
    }
  });

  it('answers an unblock of a capability that is not blocked with the blocks as they are and no event', async () => {
    const account = await register(publisher);
    const res = await call('DELETE', `/v2/block/${account.account_id}/capability/login`, { token: publisher.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { account_id: account.account_id, blocks: {} });
    assert.equal((await blockEvents(account.account_id)).length, 0);
  });

  it('keeps the other blocks when one capability is unblocked', async () => {
    const account = await register(publisher);
    for (const capability of CAPABILITIES) {
      await call('POST', '/v2/block', {
        token: operator.token,
        body: { account_id: account.account_id, block_capability: capability, block_reason: 'failed_kyc' },
      });
    }
    const res = await call('DELETE', `/v2/block/${account.account_id}/capability/payouts`, { token: operator.token });
    assert.deepEqual(Object.keys(res.body.blocks).sort(), ['login', 'transactions']);
    const profile = (await call('GET', `/v1/user-info/${account.account_id}`, { token: publisher.token })).body.payload;
    assert.deepEqual(Object.keys(profile.blocked_capabilities).sort(), ['login', 'transactions']);
  });

  describe('earlier generation', () => {
    it('blocks login / account_close with an empty body, and v2 agrees', async () => {
      const account = await register(publisher);
      for (const opts of [{}, { body: {} }]) {
        const res = await call('POST', `/v1/${account.account_id}/user-info/block`, { token: publisher.token, ...opts });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body, { status: 'Success', message: [], codes: [], payload: { is_blocked: true } });
      }
      const v2 = (await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body.blocks;
      assert.deepEqual(Object.keys(v2), ['login']);
      assert.equal(v2.login.reason, 'account_close');
      assert.equal(v2.login.issuer, 'publisher');
      assert.equal((await blockEvents(account.account_id)).length, 1);

      const unblocked = await call('POST', `/v1/${account.account_id}/user-info/unblock`, { token: licensed.token });
      assert.deepEqual(unblocked.body.payload, { is_blocked: false });
      assert.deepEqual((await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body.blocks, {});
      assert.equal((await call('GET', `/v1/${account.account_id}/user-info`, { token: publisher.token })).body.payload.is_blocked, false);
    });

    it("sees v2 blocks, and refuses to unblock (changing nothing) when one of them is the operator's", async () => {
      const account = await register(publisher);
      await call('POST', '/v2/block', {
        token: publisher.token,
        body: { account_id: account.account_id, block_capability: 'login', block_reason: 'account_close' },
      });
      await call('POST', '/v2/block', {
        token: operator.token,
        body: { account_id: account.account_id, block_capability: 'payouts', block_reason: 'compliance' },
      });
      assert.equal((await call('GET', `/v1/${account.account_id}/user-info`, { token: publisher.token })).body.payload.is_blocked, true);
      const refused = await call('POST', `/v1/${account.account_id}/user-info/unblock`, { token: licensed.token });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body.codes, ['BLOCK_PERMISSION_ERROR']);
      assert.deepEqual(Object.keys((await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body.blocks).sort(), [
        'login',
        'payouts',
      ]);
      const done = await call('POST', `/v1/${account.account_id}/user-info/unblock`, { token: operator.token });
      assert.deepEqual(done.body.payload, { is_blocked: false });
      assert.deepEqual(
        (await blockEvents(account.account_id)).map((e) => e.action),
        ['block', 'block', 'unblock', 'unblock'],
      );
    });

    it('applies the publisher rules to the optional body', async () => {
      const account = await register(publisher);
      const res = await call('POST', `/v1/${account.account_id}/user-info/block`, {
        token: publisher.token,
        body: { block_capability: 'payouts' },
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.payload.errors, { block_capability: ['OPERATOR_ONLY'] });
      const op = await call('POST', `/v1/${account.account_id}/user-info/block`, {
        token: operator.token,
        body: { block_capability: 'payouts', block_reason: 'gdpr', note: 'n' },
      });
      assert.equal(op.status, 200);
      const blocks = (await call('GET', `/v2/block/${account.account_id}`, { token: publisher.token })).body.blocks;
      assert.deepEqual([blocks.payouts.issuer, blocks.payouts.reason, blocks.payouts.note], ['svc', 'gdpr', 'n']);
    });
  });
});
