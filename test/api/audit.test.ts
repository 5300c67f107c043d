import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { sealAudit, verifyAudit } from '../../src/audit/audit.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { call, h, holdfastCli, newClient, register, unique, type TestClient } from '../support/harness.js';
import { fund, party, type Party } from '../support/money.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

interface AuditRow {
  id: string;
  integrator_id: string;
  actor_kind: string;
  actor_id: string;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string;
  reason: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
  seq: string | null;
}

/** The audit records about one target, oldest first (straight from the table). */
async function recordsOf(targetId: string): Promise<AuditRow[]> {
  return h()
    .orm.em.fork()
    .getConnection()
    .execute<AuditRow[]>('select * from audit_record where target_id = ? order by at, id', [targetId]);
}

/** Runs SQL as the superuser with the audit triggers off (what tampering takes), then turns them on again. */
async function bypassingTriggers(sql: string, params: unknown[] = []): Promise<void> {
  const conn = h().orm.em.fork().getConnection();
  await conn.execute('alter table audit_record disable trigger user');
  try {
    await conn.execute(sql, params);
  } finally {
    await conn.execute('alter table audit_record enable trigger user');
  }
}

const idem = () => ({ 'idempotency-key': unique('k') });

describe('audit trail (every operator action recorded once, sealed, verified; GET /v2/audit, holdfast audit)', function () {
  this.timeout(120_000);
  let client: TestClient;

  before(async () => {
    client = await newClient();
  });

  /** A seller with KYC accepted, USD 100.00 and a PayPal destination. */
  async function seller(): Promise<Party & { destination: string }> {
    const p = await party(client);
    await fund(p, 'USD:fiat', 10_000);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const added = await call('POST', `/v1/${p.account_id}/payment_methods`, {
      token: client.token,
      body: { type: 'paypal', paypal: { email: `${p.account_id.toLowerCase()}@example.com` } },
    });
    assert.ok(added.status === 200 || added.status === 201, added.text);
    return { ...p, destination: added.body.payload.id };
  }

  async function heldPayout(s: Party & { destination: string }, amount = 500): Promise<string> {
    const res = await call('POST', `/v2/${s.account_id}/payout`, {
      token: client.token,
      body: { source_payment_method_id: s.wallets['USD:fiat'].pm, destination_payment_method_id: s.destination, amount, currency: 'USD' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.payload.payout_status, 'FUNDS-IN-ESCROW');
    return res.body.payload.payout_status_id;
  }

  describe('the CLI', () => {
    it('payouts approve: one record with the --actor and --reason; a refused approval and one without --reason leave none', async () => {
      const s = await seller();
      const id = await heldPayout(s);
      const bare = await holdfastCli(['payouts', 'approve', id]);
      assert.equal(bare.status, 2, bare.stderr);
      assert.match(bare.stderr, /--reason is required/);
      assert.deepEqual(await recordsOf(id), []);

      const approved = await holdfastCli(['payouts', 'approve', id, '--reason', 'ticket 42: checked', '--actor', 'alice', '--json']);
      assert.equal(approved.status, 0, approved.stderr);
      assert.equal(JSON.parse(approved.stdout).payout_status, 'SUCCESS');
      const [record, ...more] = await recordsOf(id);
      assert.deepEqual(more, []);
      assert.equal(record.integrator_id, s.integrator_id);
      assert.deepEqual([record.actor_kind, record.actor_id, record.actor_name], ['cli', 'alice', 'alice']);
      assert.deepEqual([record.action, record.target_type, record.reason], ['payout.approve', 'payout', 'ticket 42: checked']);
      assert.deepEqual(record.before, { status: 'FUNDS-IN-ESCROW', attempt: 0 });
      assert.deepEqual(record.after, { status: 'PROCESSING', attempt: 1, amount: 500, currency: 'USD' });
      assert.ok(record.id.startsWith('aud_'));

      // Refused (it is SUCCESS now): its transaction rolled back, with no record.
      const again = await holdfastCli(['payouts', 'approve', id, '--reason', 'again']);
      assert.equal(again.status, 1);
      assert.equal((await recordsOf(id)).length, 1);
    });

    it('payouts reject: one record naming the operating-system user without --actor', async () => {
      const s = await seller();
      const id = await heldPayout(s);
      assert.equal((await holdfastCli(['payouts', 'reject', id])).status, 2);
      const rejected = await holdfastCli(['payouts', 'reject', id, '--reason', 'suspected fraud']);
      assert.equal(rejected.status, 0, rejected.stderr);
      const records = await recordsOf(id);
      assert.equal(records.length, 1);
      assert.deepEqual(
        [records[0].action, records[0].actor_kind, records[0].actor_id, records[0].reason],
        ['payout.reject', 'cli', userInfo().username, 'suspected fraud'],
      );
      assert.deepEqual(records[0].before, { status: 'FUNDS-IN-ESCROW' });
      assert.equal(records[0].after?.status, 'SUPPORT-REVERSED');
    });

    it('kyc decide, reopen and erase: one record each, the state and never the identity; --reason required; a no-op decision none', async () => {
      const account = (await register(client)).account_id;
      const submitted = await call('POST', `/v1/kyc/${account}`, {
        token: client.token,
        body: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          birth_date: '1990-01-01',
          address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
          email: 'ada@example.com',
        },
        unchecked: true,
      });
      // Whatever the sandbox verifier made of it, the operator decides from here (staging decides any state).
      assert.ok(submitted.status < 500, submitted.text);
      for (const args of [
        ['kyc', 'decide', account, '--state', 'DENY'],
        ['kyc', 'erase', account],
      ]) {
        const res = await holdfastCli(args);
        assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
        assert.match(res.stderr, /--reason is required/);
      }
      assert.deepEqual(await recordsOf(account), []);
      const denied = await holdfastCli(['kyc', 'decide', account, '--state', 'DENY', '--reason', 'documents forged', '--actor', 'bob']);
      assert.equal(denied.status, 0, denied.stderr);
      // The same state again changes nothing: no record.
      assert.equal((await holdfastCli(['kyc', 'decide', account, '--state', 'DENY', '--reason', 'again'])).status, 0);
      assert.equal((await holdfastCli(['kyc', 'reopen', account, '--reason', 'new documents'])).status, 0);
      const erased = await holdfastCli(['kyc', 'erase', account, '--reason', 'asked to be forgotten', '--json']);
      assert.equal(erased.status, 0, erased.stderr);
      const records = await recordsOf(account);
      assert.deepEqual(
        records.map((r) => [r.action, r.reason]),
        [
          ['kyc.decide', 'documents forged'],
          ['kyc.reopen', 'new documents'],
          ...(JSON.parse(erased.stdout).erased ? [['kyc.erase', 'asked to be forgotten']] : []),
        ],
      );
      assert.equal(records[0].after?.state, 'DENY');
      assert.deepEqual(records[1].after, { state: 'NODATA' });
      const text = JSON.stringify(records);
      for (const personal of ['Ada', 'Lovelace', '1990-01-01', 'Main St', 'ada@example.com']) assert.ok(!text.includes(personal), personal);
    });

    it('integrator fund, client rotate-secret and revoke: one record each, in the change (never the secret)', async () => {
      const other = await newClient();
      const [{ id: integratorId }] = await h()
        .orm.em.fork()
        .getConnection()
        .execute<Array<{ id: string }>>('select integrator_id as id from client where id = ?', [other.clientId]);
      assert.equal((await holdfastCli(['integrator', 'fund', other.integrator, '--currency', 'USD', '--amount', '700'])).status, 2);
      const funded = await holdfastCli([
        'integrator',
        'fund',
        other.integrator,
        '--currency',
        'USD',
        '--amount',
        '700',
        '--reason',
        'test money',
        '--json',
      ]);
      assert.equal(funded.status, 0, funded.stderr);
      const [fundRecord, ...moreFunds] = await recordsOf(integratorId);
      assert.deepEqual(moreFunds, []);
      assert.equal(fundRecord.action, 'integrator.fund');
      assert.deepEqual(fundRecord.after, {
        currency: 'USD',
        amount: 700,
        wallet_id: JSON.parse(funded.stdout).wallet_id,
        reference: JSON.parse(funded.stdout).reference,
      });

      const rotated = await holdfastCli(['client', 'rotate-secret', other.clientId, '--json']);
      assert.equal(rotated.status, 0, rotated.stderr);
      assert.equal((await holdfastCli(['client', 'revoke', other.clientId, '--reason', 'leaked'])).status, 0);
      assert.equal((await holdfastCli(['client', 'revoke', other.clientId])).status, 0, 'revoking again changes nothing');
      const records = await recordsOf(other.clientId);
      assert.deepEqual(
        records.map((r) => [r.action, r.integrator_id, r.reason]),
        [
          ['client.rotate_secret', integratorId, null],
          ['client.revoke', integratorId, 'leaked'],
        ],
      );
      assert.ok(!JSON.stringify(records).includes(JSON.parse(rotated.stdout).client_secret));
    });
  });

  describe('the API (the client as actor, the request id)', () => {
    it('blocks: apply and lift recorded once each; a repeated block and a refused lift leave none', async () => {
      const account = (await register(client)).account_id;
      const block = () =>
        call('POST', '/v2/block', {
          token: client.token,
          headers: { 'x-request-id': unique('req-') },
          body: { account_id: account, block_capability: 'login', block_reason: 'account_close', note: 'closing on request' },
        });
      const first = await block();
      assert.equal(first.status, 200, first.text);
      assert.equal((await block()).status, 200);
      const [applied, ...more] = await recordsOf(account);
      assert.deepEqual(more, []);
      assert.deepEqual(
        [applied.action, applied.actor_kind, applied.actor_id, applied.reason, applied.request_id],
        ['block.apply', 'client', client.clientId, 'closing on request', first.headers.get('x-request-id')],
      );
      assert.deepEqual(applied.after, { capability: 'login', block_reason: 'account_close', issuer: 'publisher' });
      // An operator's (svc) block the publisher may not lift: 403, nothing recorded.
      const operator = await newClient({ integrator: client.integrator, isOperator: true });
      const fraud = await call('POST', '/v2/block', {
        token: operator.token,
        body: { account_id: account, block_capability: 'transactions', block_reason: 'compliance' },
      });
      assert.equal(fraud.status, 200, fraud.text);
      const refused = await call('POST', `/v1/${account}/user-info/unblock`, { token: client.token });
      assert.equal(refused.status, 403, refused.text);
      assert.equal((await recordsOf(account)).length, 2);
      const lifted = await call('DELETE', `/v2/block/${account}/capability/transactions`, { token: operator.token });
      assert.equal(lifted.status, 200, lifted.text);
      const records = await recordsOf(account);
      assert.deepEqual(
        records.map((r) => [r.action, r.actor_id]),
        [
          ['block.apply', client.clientId],
          ['block.apply', operator.clientId],
          ['block.lift', operator.clientId],
        ],
      );
      assert.deepEqual(records[2].after, { lifted: ['transactions'] });
    });

    it('refunds and merges: recorded by their command, once; a refused refund leaves none', async () => {
      const buyer = await party(client, true);
      const created = await call('POST', '/v2/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
          line_items: [{ amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator' }],
        },
      });
      assert.equal(created.status, 201, created.text);
      const invoiceId = created.body.payload.invoice_id;
      assert.equal((await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token })).body.payload.state, 'SUCCESS');
      const refund = () =>
        call('POST', '/v2/refund', { token: client.token, body: { invoice_id: invoiceId, reason: 'product_related', note: 'ticket 7' } });
      const refunded = await refund();
      assert.equal(refunded.status, 200, refunded.text);
      const again = await refund();
      assert.equal(again.status, 409, again.text);
      const [record, ...more] = await recordsOf(invoiceId);
      assert.deepEqual(more, []);
      assert.deepEqual([record.action, record.actor_id, record.reason], ['refund.request', client.clientId, 'product_related']);
      assert.equal(record.after?.refund_invoice_id, refunded.body.payload.refunds[0].refund_invoice_id);
      assert.deepEqual([record.after?.amount, record.after?.currency], [1000, 'USD']);

      const source = await party(client);
      const destination = await party(client);
      const merged = await call('POST', '/v2/merge-accounts', {
        token: client.token,
        body: { source_account_id: source.account_id, destination_account_id: destination.account_id },
      });
      assert.equal(merged.status, 200, merged.text);
      const merges = await recordsOf(source.account_id);
      assert.deepEqual(
        merges.map((r) => [r.action, r.actor_id]),
        [['account.merge', client.clientId]],
      );
      assert.equal(merges[0].after?.destination_account_id, destination.account_id);
    });

    it('dispute evidence: the fields sent, never their text', async () => {
      const buyer = await party(client, true);
      const created = await call('POST', '/v2/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
          line_items: [{ amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator' }],
        },
      });
      const invoiceId = created.body.payload.invoice_id;
      assert.equal((await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token })).body.payload.state, 'SUCCESS');
      const opened = await call('POST', '/v2/sandbox/disputes', {
        token: client.token,
        headers: idem(),
        body: { invoice_id: invoiceId, payment_method_id: buyer.card },
      });
      assert.equal(opened.status, 200, opened.text);
      const disputeId = opened.body.payload.dispute_id;
      const saved = await call('POST', `/v2/disputes/${disputeId}/evidence`, {
        token: client.token,
        headers: idem(),
        body: { customer_email_address: 'buyer@example.com', product_description: '500 gems', submit: true },
      });
      assert.equal(saved.status, 200, saved.text);
      const records = await recordsOf(disputeId);
      assert.equal(records.length, 1);
      assert.deepEqual(records[0].after, {
        status: 'UNDER_REVIEW',
        fields: ['customer_email_address', 'product_description'],
        submitted: true,
      });
      assert.ok(!JSON.stringify(records).includes('buyer@example.com'));
      // Refused now (UNDER_REVIEW takes no evidence): no record.
      const refused = await call('POST', `/v2/disputes/${disputeId}/evidence`, {
        token: client.token,
        headers: idem(),
        body: { product_description: 'more' },
      });
      assert.equal(refused.status, 409, refused.text);
      assert.equal((await recordsOf(disputeId)).length, 1);
    });

    describe('webhook resend', () => {
      let receiver: Receiver;
      before(async () => {
        receiver = await startReceiver();
      });
      after(() => receiver.close());

      it('an event sent again is recorded once, by the client', async () => {
        const sub = await call('POST', '/v2/webhooks', {
          token: client.token,
          body: { url: receiver.url, events: ['register-account-completed'] },
        });
        assert.equal(sub.status, 201, sub.text);
        const account = (await register(client)).account_id;
        await receiver.until((got) => got.some((x) => x.body.includes(account)));
        const eventId = receiver.received.find((x) => x.body.includes(account))!.headers['webhook-id'] as string;
        // Wait until its delivery is recorded as finished (a pending one is left to its schedule).
        for (let i = 0; i < 100; i++) {
          const got = await call('GET', `/v2/events/${eventId}`, { token: client.token });
          if (got.body.payload.deliveries.every((d: { status: string }) => d.status !== 'pending')) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const resent = await call('POST', `/v2/events/${eventId}/resend`, { token: client.token, headers: idem(), body: {} });
        assert.equal(resent.status, 202, resent.text);
        assert.equal(resent.body.payload.resent.length, 1);
        const records = await recordsOf(eventId);
        assert.deepEqual(
          records.map((r) => [r.action, r.actor_id, r.target_type]),
          [['webhook.resend', client.clientId, 'event']],
        );
        assert.deepEqual(records[0].after, { endpoint_ids: [sub.body.payload.id], deliveries: 1 });
      });
    });
  });

  describe('append-only, sealed, verified', () => {
    it('the database refuses update, delete and truncate, and a sealing that would change content', async () => {
      const account = (await register(client)).account_id;
      await call('POST', '/v2/block', {
        token: client.token,
        body: { account_id: account, block_capability: 'login', block_reason: 'account_close' },
      });
      const [record] = await recordsOf(account);
      const conn = h().orm.em.fork().getConnection();
      for (const [sql, params] of [
        ['update audit_record set reason = ? where id = ?', ['edited', record.id]],
        ['delete from audit_record where id = ?', [record.id]],
        ['truncate audit_record', []],
        [`update audit_record set seq = 999999, hash = 'x', sealed_at = now(), reason = 'edited' where id = ?`, [record.id]],
        [`update audit_record set seq = 999999 where id = ?`, [record.id]],
        ['delete from audit_chain', []],
      ] as Array<[string, unknown[]]>) {
        await assert.rejects(conn.execute(sql, params), /append-only|only its sealing|cannot change|never changes/, sql);
      }
      await sealAudit(h().orm.em.fork());
      const [sealed] = await recordsOf(account);
      assert.ok(sealed.seq !== null);
      await assert.rejects(
        conn.execute(`update audit_record set seq = seq + 1000000, hash = 'x', sealed_at = now() where id = ?`, [record.id]),
        /is sealed: it never changes/,
      );
      assert.deepEqual({ ...(await recordsOf(account))[0] }, { ...sealed }, 'nothing changed');
    });

    it("sealing numbers each integrator's records in order, chained; audit verify finds an edit and a removal, naming the first break", async () => {
      const tenant = await newClient();
      const accounts: string[] = [];
      for (let i = 0; i < 3; i++) {
        const account = (await register(tenant)).account_id;
        accounts.push(account);
        const res = await call('POST', '/v2/block', {
          token: tenant.token,
          body: { account_id: account, block_capability: 'login', block_reason: 'account_close' },
        });
        assert.equal(res.status, 200, res.text);
      }
      await sealAudit(h().orm.em.fork());
      const records = (await Promise.all(accounts.map(recordsOf))).map(([r]) => r);
      assert.deepEqual(
        records.map((r) => Number(r.seq)),
        [1, 2, 3],
      );
      const clean = await holdfastCli(['audit', 'verify', '--json']);
      assert.equal(clean.status, 0, clean.stdout + clean.stderr);
      assert.deepEqual(JSON.parse(clean.stdout).breaks, []);

      // An edit of the second record (the triggers bypassed, as only a superuser can).
      await bypassingTriggers('update audit_record set reason = ? where id = ?', ['nothing to see', records[1].id]);
      try {
        const edited = await holdfastCli(['audit', 'verify']);
        assert.equal(edited.status, 1, edited.stdout);
        assert.match(edited.stdout, new RegExp(`seq 2 \\(${records[1].id}\\): its content does not match its hash: edited`));
        assert.match(edited.stderr, /the audit trail breaks in 1 chain/);
      } finally {
        await bypassingTriggers('update audit_record set reason = ? where id = ?', [records[1].reason, records[1].id]);
      }
      assert.deepEqual((await verifyAudit(h().orm.em.fork())).breaks, []);

      // The second removed: the third names the gap; the last removed: the chain head does.
      const [second] = await h().orm.em.fork().getConnection().execute('select * from audit_record where id = ?', [records[1].id]);
      const [third] = await h().orm.em.fork().getConnection().execute('select * from audit_record where id = ?', [records[2].id]);
      const restore = async (row: Record<string, unknown>) => {
        const columns = Object.keys(row);
        await bypassingTriggers(
          `insert into audit_record (${columns.join(', ')}) select * from jsonb_populate_record(null::audit_record, ?::jsonb)`,
          [JSON.stringify(row)],
        );
      };
      await bypassingTriggers('delete from audit_record where id = ?', [records[1].id]);
      try {
        const removed = await verifyAudit(h().orm.em.fork());
        const mine = removed.breaks.filter((b) => b.integratorId === records[0].integrator_id);
        assert.equal(mine.length, 1);
        assert.equal(mine[0].seq, 2);
        assert.equal(mine[0].auditId, records[2].id);
        assert.match(mine[0].problem, /sealed record 2 missing before .* \(seq 3\): removed/);
      } finally {
        await restore(second);
      }
      await bypassingTriggers('delete from audit_record where id = ?', [records[2].id]);
      try {
        const [tail] = (await verifyAudit(h().orm.em.fork())).breaks.filter((b) => b.integratorId === records[0].integrator_id);
        assert.match(tail.problem, /sealed record 3 missing at the end of the chain \(its head is at 3\): removed/);
      } finally {
        await restore(third);
      }
      assert.deepEqual((await verifyAudit(h().orm.em.fork())).breaks, []);
    });
  });

  describe('GET /v2/audit and holdfast audit list', () => {
    it("lists the caller integrator's records only, newest first, with filters and a page; read_audit required", async () => {
      const mine = await newClient({ canUnblock: true });
      const theirs = await newClient();
      const accounts: string[] = [];
      for (const c of [mine, mine, theirs]) {
        const account = (await register(c)).account_id;
        accounts.push(account);
        await call('POST', '/v2/block', {
          token: c.token,
          body: { account_id: account, block_capability: 'login', block_reason: 'account_close' },
        });
      }
      const lifted = await call('DELETE', `/v2/block/${accounts[0]}/capability/login`, { token: mine.token });
      assert.equal(lifted.status, 200, lifted.text);
      const list = (query: string, c = mine) => call('GET', `/v2/audit${query}`, { token: c.token });
      const all = await list('');
      assert.equal(all.status, 200, all.text);
      assert.equal(all.body.payload.total, 3);
      assert.deepEqual(
        all.body.payload.records.map((r: { action: string; target: { id: string } }) => [r.action, r.target.id]),
        [
          ['block.lift', accounts[0]],
          ['block.apply', accounts[1]],
          ['block.apply', accounts[0]],
        ],
      );
      assert.deepEqual(all.body.payload.records[0].actor, { kind: 'client', id: mine.clientId, name: mine.clientId });
      assert.equal((await list('?action=block.apply')).body.payload.total, 2);
      assert.equal((await list(`?target_id=${accounts[0]}`)).body.payload.total, 2);
      assert.equal((await list(`?target_id=${accounts[2]}`)).body.payload.total, 0, "another integrator's record is not listed");
      assert.equal((await list(`?actor=${mine.clientId}`)).body.payload.total, 3);
      assert.equal((await list('?actor=someone-else')).body.payload.total, 0);
      const page = await list('?limit=1&offset=1');
      assert.deepEqual([page.body.payload.total, page.body.payload.limit, page.body.payload.offset], [3, 1, 1]);
      assert.equal(page.body.payload.records[0].target.id, accounts[1]);
      const newest = all.body.payload.records[0].at;
      assert.equal((await list(`?from=${encodeURIComponent(newest)}`)).body.payload.total >= 1, true);
      assert.equal((await list(`?to=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).body.payload.total, 0);
      assert.equal((await list('?action=payout.nothing')).status, 400);
      assert.equal((await list('', theirs)).body.payload.total, 1);

      const narrow = await newClient({ scopes: ['read_accounts'] });
      assert.equal((await list('', narrow)).status, 401);

      const cli = await holdfastCli(['audit', 'list', '--integrator', mine.integrator, '--action', 'block.apply', '--json']);
      assert.equal(cli.status, 0, cli.stderr);
      const listed = JSON.parse(cli.stdout);
      assert.equal(listed.total, 2);
      assert.deepEqual(
        listed.records.map((r: { target: { id: string } }) => r.target.id),
        [accounts[1], accounts[0]],
      );
      const text = await holdfastCli(['audit', 'list', '--integrator', mine.integrator]);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /block\.lift/);
      assert.match(text.stdout, /3 of 3 records/);
    });
  });
});
