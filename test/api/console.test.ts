import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TOTP, Secret } from 'otpauth';
import { addConsoleUser } from '../../src/console/console-auth.service.js';
import { parse } from 'csv-parse/sync';
import { CONSOLE_ROLES, mayExport, permissionMatrix } from '../../src/console/console.rules.js';
import { EXPORT_KINDS } from '../../src/reports/report.rules.js';
import type { ConsoleRole } from '../../src/console/console.rules.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { call, h, holdfastCli, newClient, register, unique, type TestClient } from '../support/harness.js';
import { fund, party } from '../support/money.js';

/** A browser of the console: a cookie jar, the last form's CSRF token, and this origin on every post. */
class ConsoleVisitor {
  private cookies = new Map<string, string>();
  csrf = '';

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const res = await fetch(`${h().baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(method === 'POST' ? { origin: h().baseUrl, 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const value = pair!.slice(eq + 1);
      if (value) this.cookies.set(pair!.slice(0, eq), value);
      else this.cookies.delete(pair!.slice(0, eq));
    }
    const text = await res.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    return { status: res.status, text, headers: res.headers };
  }

  get(path: string) {
    return this.request('GET', path);
  }

  post(path: string, form: Record<string, string>, headers?: Record<string, string>) {
    return this.request('POST', path, { csrf: this.csrf, ...form }, headers);
  }

  hasSession(): boolean {
    return this.cookies.has('hf_console');
  }
}

const PASSWORD = 'correct horse battery staple';

/** A console user of the client's integrator with its password set through its link; a visitor signed in as it. */
async function consoleUser(client: TestClient, role: ConsoleRole, operator = false) {
  const email = `${unique('ops')}@example.com`;
  const made = await addConsoleUser(h().orm.em.fork(), { email, integrator: client.integrator, role, operator, publicUrl: h().baseUrl });
  const visitor = new ConsoleVisitor();
  const path = new URL(made.link).pathname;
  assert.equal((await visitor.get(path)).status, 200);
  const set = await visitor.post(path, { password: PASSWORD, confirm: PASSWORD });
  assert.equal(set.status, 200, set.text);
  await visitor.get('/console/login');
  const login = await visitor.post('/console/login', { email, password: PASSWORD });
  assert.equal(login.status, 303, login.text);
  return { email, visitor, id: made.user.id, link: path };
}

/** A payout in FUNDS-IN-ESCROW of an account of the client's integrator. */
async function waitingPayout(client: TestClient): Promise<{ payoutId: string; accountId: string }> {
  const p = await party(client);
  await fund(p, 'USD:fiat', 10_000);
  await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
  const dest = await call('POST', `/v1/${p.account_id}/payment_methods`, {
    token: client.token,
    body: { type: 'paypal', paypal: { email: `${p.account_id.toLowerCase()}@example.com` } },
  });
  const res = await call('POST', `/v2/${p.account_id}/payout`, {
    token: client.token,
    body: {
      source_payment_method_id: p.wallets['USD:fiat'].pm,
      destination_payment_method_id: dest.body.payload.id,
      amount: 2_500,
      currency: 'USD',
    },
  });
  assert.equal(res.status, 201, res.text);
  return { payoutId: res.body.payload.payout_status_id, accountId: p.account_id };
}

async function payoutStatus(client: TestClient, accountId: string, payoutId: string): Promise<string> {
  return (await call('GET', `/v2/${accountId}/payout/${payoutId}`, { token: client.token })).body.payload.payout_status;
}

describe('the operator console (/console)', () => {
  let client: TestClient;

  before(async () => {
    client = await newClient();
  });

  it('a set-password link works once; sign-in sets an HttpOnly, SameSite=Strict session cookie; sign-out ends it', async () => {
    const { visitor, link, email } = await consoleUser(client, 'viewer');
    const again = new ConsoleVisitor();
    assert.equal((await again.get(link)).status, 404, 'a spent link');
    assert.equal((await visitor.get('/console')).status, 200);
    const fresh = new ConsoleVisitor();
    await fresh.get('/console/login');
    const res = await fresh.post('/console/login', { email, password: PASSWORD });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('hf_console='))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.doesNotMatch(cookie, /Secure/, 'staging over plain http');
    await visitor.post('/console/logout', {});
    const after = await visitor.get('/console');
    assert.equal(after.status, 303);
    assert.equal(after.headers.get('location'), '/console/login');
  });

  it('refuses a short password and two that differ; the link still works after', async () => {
    const made = await addConsoleUser(h().orm.em.fork(), {
      email: `${unique('ops')}@example.com`,
      integrator: client.integrator,
      role: 'viewer',
      operator: false,
      publicUrl: h().baseUrl,
    });
    const v = new ConsoleVisitor();
    const path = new URL(made.link).pathname;
    await v.get(path);
    assert.equal((await v.post(path, { password: 'short', confirm: 'short' })).status, 400);
    assert.equal((await v.post(path, { password: PASSWORD, confirm: `${PASSWORD}!` })).status, 400);
    assert.equal((await v.post(path, { password: PASSWORD, confirm: PASSWORD })).status, 200);
  });

  it('locks a user out after five wrong passwords: the right one is then refused too', async () => {
    const { email } = await consoleUser(client, 'viewer');
    const v = new ConsoleVisitor();
    await v.get('/console/login');
    for (let i = 0; i < 4; i++) assert.equal((await v.post('/console/login', { email, password: 'wrong password here' })).status, 401);
    assert.equal((await v.post('/console/login', { email, password: 'wrong password here' })).status, 429);
    const right = await v.post('/console/login', { email, password: PASSWORD });
    assert.equal(right.status, 429);
    assert.equal(v.hasSession(), false);
    // Lifted when the lockout is over.
    await h()
      .orm.em.fork()
      .getConnection()
      .execute(`update console_user set locked_until = now() - interval '1 second' where lower(email) = lower(?)`, [email]);
    assert.equal((await v.post('/console/login', { email, password: PASSWORD })).status, 303);
  });

  it('refuses a form without the session CSRF token, or from another origin', async () => {
    const { visitor } = await consoleUser(client, 'finance', true);
    const { payoutId, accountId } = await waitingPayout(client);
    const noToken = await visitor.request('POST', `/console/payouts/${payoutId}/reject`, { reason: 'test' });
    assert.equal(noToken.status, 403);
    const elsewhere = await visitor.post(`/console/payouts/${payoutId}/reject`, { reason: 'test' }, { origin: 'https://evil.example' });
    assert.equal(elsewhere.status, 403);
    const login = await new ConsoleVisitor().request('POST', '/console/login', { email: 'x@example.com', password: PASSWORD });
    assert.equal(login.status, 403, 'the sign-in form has its token too');
    assert.equal(await payoutStatus(client, accountId, payoutId), 'FUNDS-IN-ESCROW');
  });

  it('a session idle for 30 minutes is over', async () => {
    const { visitor, id } = await consoleUser(client, 'viewer');
    await h()
      .orm.em.fork()
      .getConnection()
      .execute(`update console_session set last_seen_at = now() - interval '31 minutes' where user_id = ?`, [id]);
    assert.equal((await visitor.get('/console')).status, 303);
  });

  it('the role matrix: a viewer cannot approve, a finance user without operator rights cannot either, a finance operator does', async () => {
    const { payoutId, accountId } = await waitingPayout(client);
    const viewer = await consoleUser(client, 'viewer');
    await viewer.visitor.get('/console/payouts');
    assert.doesNotMatch((await viewer.visitor.get('/console/payouts')).text, /Approve/, 'no form for who may not');
    assert.equal((await viewer.visitor.post(`/console/payouts/${payoutId}/approve`, { reason: 'checked' })).status, 403);
    const finance = await consoleUser(client, 'finance');
    await finance.visitor.get('/console/payouts');
    assert.equal((await finance.visitor.post(`/console/payouts/${payoutId}/approve`, { reason: 'checked' })).status, 403);
    assert.equal(await payoutStatus(client, accountId, payoutId), 'FUNDS-IN-ESCROW');
    const operator = await consoleUser(client, 'finance', true);
    const queue = await operator.visitor.get('/console/payouts');
    assert.match(queue.text, new RegExp(payoutId));
    assert.equal((await operator.visitor.post(`/console/payouts/${payoutId}/approve`, { reason: '' })).status, 400, 'a reason is required');
    const approved = await operator.visitor.post(`/console/payouts/${payoutId}/approve`, { reason: 'KYC and history checked' });
    assert.equal(approved.status, 303, approved.text);
    assert.equal(await payoutStatus(client, accountId, payoutId), 'SUCCESS');
    assert.doesNotMatch((await operator.visitor.get('/console/payouts')).text, new RegExp(payoutId));
    // One audit record, the console user as the actor, with the reason; none for the refusals.
    const audit = await call('GET', `/v2/audit?target_id=${payoutId}`, { token: client.token });
    assert.equal(audit.status, 200, audit.text);
    assert.deepEqual(
      audit.body.payload.records.map((r: any) => [r.action, r.actor.kind, r.actor.id, r.reason]),
      [['payout.approve', 'console', operator.id, 'KYC and history checked']],
    );
    const trail = await operator.visitor.get(`/console/audit?target_id=${payoutId}`);
    assert.match(trail.text, /payout\.approve/);
    assert.match(trail.text, /KYC and history checked/);
  });

  it('matrix: every action is open to admin; support and finance split; viewer none; operator-only decisions need --operator; docs/security.md publishes it as it is', () => {
    const m = permissionMatrix();
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const published = doc.slice(doc.indexOf('<!-- console-matrix -->'), doc.indexOf('<!-- /console-matrix -->'));
    const rows = published.split('\n').filter((l) => l.startsWith('| `'));
    const cell = ([plain, operator]: [boolean, boolean]) => (plain && operator ? 'yes' : operator ? 'operator only' : '—');
    assert.deepEqual(
      rows.map((r) =>
        r
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      ),
      Object.entries(m).map(([action, roles]) => [`\`${action}\``, ...CONSOLE_ROLES.map((role) => cell(roles[role]))]),
    );
    for (const [action, roles] of Object.entries(m)) {
      assert.deepEqual(roles.viewer, [false, false], action);
      assert.equal(roles.admin[1], true, action);
    }
    assert.deepEqual(m['payout.approve'].finance, [false, true]);
    assert.deepEqual(m['payout.approve'].support, [false, false]);
    assert.deepEqual(m['kyc.decide'].support, [false, true]);
    assert.deepEqual(m['refund.request'].finance, [true, true]);
    assert.deepEqual(m['block.apply'].support, [true, true]);
    assert.deepEqual(m['console.user.add'].finance, [false, false]);
    // The exports row: who downloads every kind.
    const exportsRow = published.split('\n').find((l) => l.startsWith('| download an export'));
    assert.ok(exportsRow, 'docs/security.md has the exports row in the matrix');
    assert.deepEqual(
      exportsRow
        .split('|')
        .slice(2, -1)
        .map((c) => c.trim()),
      CONSOLE_ROLES.map((role) => (EXPORT_KINDS.every((kind) => mayExport(role, kind)) ? 'yes' : '—')),
    );
  });

  it("a console user sees only its integrator's data: another's account and payout are not found", async () => {
    const other = await newClient();
    const theirs = await register(other);
    const { payoutId } = await waitingPayout(other);
    const { visitor } = await consoleUser(client, 'admin', true);
    assert.equal((await visitor.get(`/console/accounts/${theirs.account_id}`)).status, 404);
    const search = await visitor.get(`/console?q=${encodeURIComponent(theirs.username)}`);
    assert.match(search.text, /No account has this id/);
    await visitor.get('/console/payouts');
    assert.equal((await visitor.post(`/console/payouts/${payoutId}/reject`, { reason: 'not ours' })).status, 404);
  });

  it('searches by id, username and external platform user id, and shows the account with its wallets and payouts', async () => {
    const platformUser = unique('steam');
    const made = await call('POST', '/register', {
      token: client.token,
      body: { username: unique('plat'), external_platforms: { steam: { user_id: platformUser } } },
    });
    assert.equal(made.status, 200, made.text);
    const mine = made.body.payload;
    const { visitor } = await consoleUser(client, 'viewer');
    for (const q of [mine.account_id, mine.username.toUpperCase(), platformUser]) {
      const res = await visitor.get(`/console?q=${encodeURIComponent(q)}`);
      assert.match(res.text, new RegExp(`/console/accounts/${mine.account_id}`), q);
    }
    const page = await visitor.get(`/console/accounts/${mine.account_id}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Wallets and holds/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  });

  it('escapes what accounts hold: a username with markup shows as text', async () => {
    const mine = await register(client, { username: `x<b>${unique('')}`.slice(0, 30) });
    const { visitor } = await consoleUser(client, 'viewer');
    const page = await visitor.get(`/console/accounts/${mine.account_id}`);
    assert.doesNotMatch(page.text, /x<b>/);
    assert.match(page.text, /x&lt;b&gt;/);
  });

  it('KYC review queue: a support operator decides a MANUAL_REVIEW check with a reason', async () => {
    const acct = await register(client);
    const userToken = (
      await call('POST', '/authorize/user', { token: client.token, body: { account_id: acct.account_id, return_token: true } })
    ).body.payload.token.access_token;
    const review = await call('POST', `/v1/kyc/${acct.account_id}`, {
      token: userToken,
      body: { first_name: 'Ada', last_name: 'Review', date_of_birth: '1990-12-10', address: '1 Analytical Row, London', country: 'GB' },
    });
    assert.equal(review.body.payload.state, 'MANUAL_REVIEW');
    const { visitor } = await consoleUser(client, 'support', true);
    assert.match((await visitor.get('/console/kyc')).text, new RegExp(acct.account_id));
    const res = await visitor.post(`/console/kyc/${acct.account_id}/decide`, { state: 'ACCEPT', reason: 'documents match' });
    assert.equal(res.status, 303, res.text);
    assert.equal((await call('GET', `/v1/kyc/${acct.account_id}`, { token: client.token })).body.payload.state, 'ACCEPT');
    const audit = await call('GET', `/v2/audit?target_id=${acct.account_id}&action=kyc.decide`, { token: client.token });
    assert.deepEqual(
      audit.body.payload.records.map((r: any) => [r.actor.kind, r.reason, r.after?.state]),
      [['console', 'documents match', 'ACCEPT']],
    );
  });

  it('a second factor: once confirmed, sign-in asks for the authenticator code', async () => {
    const { visitor, email } = await consoleUser(client, 'viewer');
    await visitor.get('/console/security');
    const start = await visitor.post('/console/security/totp', {});
    const secret = /<dt>Key<\/dt><dd><code>([A-Z2-7]+)<\/code>/.exec(start.text)![1]!;
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
    assert.equal((await visitor.post('/console/security/totp', { code: totp.generate() })).status, 200);
    const v = new ConsoleVisitor();
    await v.get('/console/login');
    assert.equal((await v.post('/console/login', { email, password: PASSWORD })).status, 401);
    assert.equal(v.hasSession(), false);
    assert.equal(
      (await v.post('/console/login', { email, password: PASSWORD, code: '000000' === totp.generate() ? '111111' : '000000' })).status,
      401,
    );
    assert.equal((await v.post('/console/login', { email, password: PASSWORD, code: totp.generate() })).status, 303);
  });

  /** A purchase invoice of a new buyer paid by card. */
  async function paidInvoice(amount = 1_000, owner = client): Promise<{ invoiceId: string; accountId: string; card: string }> {
    const buyer = await party(owner, true);
    const created = await call('POST', '/v2/invoice', {
      token: owner.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card!, amount: 0 }],
        line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const invoiceId = created.body.payload.invoice_id;
    const paid = await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: owner.token });
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    return { invoiceId, accountId: buyer.account_id, card: buyer.card! };
  }

  it('blocks and lifts a block from the account page (support); a viewer cannot; a publisher may only block login for account_close', async () => {
    const acct = await register(client);
    const viewer = await consoleUser(client, 'viewer');
    await viewer.visitor.get(`/console/accounts/${acct.account_id}`);
    assert.equal(
      (
        await viewer.visitor.post(`/console/accounts/${acct.account_id}/block`, {
          block_capability: 'login',
          block_reason: 'account_close',
          reason: 'x',
        })
      ).status,
      403,
    );
    const support = await consoleUser(client, 'support');
    await support.visitor.get(`/console/accounts/${acct.account_id}`);
    const refused = await support.visitor.post(`/console/accounts/${acct.account_id}/block`, {
      block_capability: 'payouts',
      block_reason: 'compliance',
      reason: 'suspicious payouts',
    });
    assert.equal(refused.status, 400, 'the API rule for a publisher holds here too');
    const blocked = await support.visitor.post(`/console/accounts/${acct.account_id}/block`, {
      block_capability: 'login',
      block_reason: 'account_close',
      reason: 'the user asked',
    });
    assert.equal(blocked.status, 303, blocked.text);
    assert.ok((await call('GET', `/v2/block/${acct.account_id}`, { token: client.token })).body.blocks.login);
    assert.match((await support.visitor.get(`/console/accounts/${acct.account_id}`)).text, /<td>account_close<\/td><td>publisher<\/td>/);
    const lifted = await support.visitor.post(`/console/accounts/${acct.account_id}/unblock/login`, { reason: 'the user came back' });
    assert.equal(lifted.status, 303, lifted.text);
    assert.equal((await call('GET', `/v2/block/${acct.account_id}`, { token: client.token })).body.blocks.login, undefined);
  });

  it('refunds an invoice from its page (finance, with a reason); support cannot', async () => {
    const { invoiceId } = await paidInvoice(1_200);
    const support = await consoleUser(client, 'support');
    await support.visitor.get(`/console/invoices/${invoiceId}`);
    assert.equal(
      (await support.visitor.post(`/console/invoices/${invoiceId}/refund`, { refund_reason: 'other', reason: 'x' })).status,
      403,
    );
    const finance = await consoleUser(client, 'finance');
    const page = await finance.visitor.get(`/console/invoices/${invoiceId}`);
    assert.match(page.text, /Refund USD 12\.00/);
    const res = await finance.visitor.post(`/console/invoices/${invoiceId}/refund`, {
      refund_reason: 'product_related',
      reason: 'never delivered',
    });
    assert.equal(res.status, 303, res.text);
    const summary = await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: client.token });
    assert.equal(summary.body.payload.refunded.USD, 1_200);
    assert.match((await finance.visitor.get(`/console/invoices/${invoiceId}`)).text, /Nothing is left to refund/);
  });

  it("the account page shows the account's statement, escrows and refunds (linked), and not another account's", async () => {
    const buyer = await party(client, true);
    const seller = await party(client);
    await fund(buyer, 'USD:fiat', 5_000);
    const made = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }],
        line_items: [
          {
            amount: 1_550,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 1_200, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
          },
        ],
      },
    });
    assert.equal(made.status, 201, made.text);
    const escrowId: string = made.body.payload.id;
    assert.equal((await call('POST', `/v2/escrow/${escrowId}/pay`, { token: client.token })).body.payload.status, 'ESCROWED');
    const refundOf = async (owner: { accountId: string; invoiceId: string }) => {
      const res = await call('POST', '/v2/refund', {
        token: client.token,
        body: { invoice_id: owner.invoiceId, reason: 'product_related' },
        headers: { 'idempotency-key': unique('k') },
      });
      assert.equal(res.status, 200, res.text);
      const summary = await call('GET', `/v2/invoice/${owner.invoiceId}/refunds`, { token: client.token });
      const id = summary.body.payload.refunds[0].refund_invoice_id as string;
      assert.match(id, /^inv_/);
      return id;
    };
    // A card purchase of the buyer's, refunded; another account's, refunded too.
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card!, amount: 0 }],
        line_items: [{ amount: 640, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const purchaseId: string = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${purchaseId}/pay`, { token: client.token })).body.payload.state, 'SUCCESS');
    const refundId = await refundOf({ accountId: buyer.account_id, invoiceId: purchaseId });
    const theirs = await paidInvoice(650);
    const theirRefund = await refundOf(theirs);

    const { visitor } = await consoleUser(client, 'viewer');
    const page = await visitor.get(`/console/accounts/${buyer.account_id}`);
    assert.equal(page.status, 200, page.text);
    const text = page.text;
    // The statement, newest first: the escrow's pay took USD 15.50, leaving USD 34.50; the funding before it.
    const statement = text.slice(text.indexOf('<caption>Statement'), text.indexOf('</table>', text.indexOf('<caption>Statement')));
    assert.match(statement, /<caption>Statement \(2 entries\), newest first<\/caption>/);
    const rows = statement.split('<tr>').slice(2);
    assert.match(rows[0]!, new RegExp(`USD -15\\.50</td><td>USD 34\\.50</td><td>escrow <code>${escrowId}</code> \\(pay\\)`));
    assert.match(rows[1]!, /USD 50\.00<\/td><td>USD 50\.00<\/td>.*test funding/);
    // The escrow it bought, with its invoice linked.
    const escrowInvoice = (await call('GET', `/v2/escrow/${escrowId}`, { token: client.token })).body.payload.escrow_invoice_id;
    assert.match(
      text,
      new RegExp(
        `<td><code>${escrowId}</code></td><td>ESCROWED</td><td>USD 15\\.50</td><td><a href="/console/invoices/${escrowInvoice}"><code>${escrowInvoice}</code></a></td>`,
      ),
    );
    // Its refund, linked, with the purchase it refunds; none of another account's.
    assert.match(text, /<caption>Refunds \(1\)<\/caption>/);
    assert.match(
      text,
      new RegExp(
        `<tr><td><a href="/console/invoices/${refundId}"><code>${refundId}</code></a></td><td><a href="/console/invoices/${purchaseId}"><code>${purchaseId}</code></a></td><td>SUCCESS</td><td>USD 6\\.40</td><td>product_related</td>`,
      ),
    );
    assert.doesNotMatch(text, new RegExp(theirRefund));
    assert.doesNotMatch(text, new RegExp(theirs.invoiceId));
    // The refund's link opens its invoice page.
    assert.equal((await visitor.get(`/console/invoices/${refundId}`)).status, 200);
  });

  it('the webhooks page shows each endpoint failing since when, and a failed delivery with its error and attempts', async function () {
    this.timeout(30_000);
    const own = await newClient();
    // Nothing listens on this port (of the range this suite may use): every attempt is refused.
    const hook = await call('POST', '/v2/webhooks', {
      token: own.token,
      body: { url: 'http://127.0.0.1:47399/hooks', events: ['register-account-completed'], description: 'closed port' },
    });
    assert.equal(hook.status, 201, hook.text);
    const endpointId: string = hook.body.payload.id;
    const acct = await register(own);
    const events = await call('GET', `/v2/events?account_id=${acct.account_id}`, { token: own.token });
    const eventId: string = events.body.payload.events[0].id;
    const { visitor } = await consoleUser(own, 'viewer');
    let text = '';
    for (let i = 0; i < 100; i++) {
      text = (await visitor.get('/console/webhooks')).text;
      if (text.includes('dead (given up)')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const failed = text.slice(
      text.indexOf('<caption>Failed deliveries'),
      text.indexOf('</table>', text.indexOf('<caption>Failed deliveries')),
    );
    assert.match(
      failed,
      new RegExp(
        `<td><code>${endpointId}</code></td><td><code>${eventId}</code> register-account-completed</td><td>dead \\(given up\\)</td><td>4</td><td>target unreachable</td><td>—</td>`,
      ),
    );
    // The endpoint fails since its first failed attempt; its latest deliveries list the same one.
    const endpoint = await call('GET', `/v2/webhooks/${endpointId}`, { token: own.token });
    const firstFailure = endpoint.body.payload.recent_attempts.at(-1).attempted_at as string;
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ failing_since: Date }>>('select failing_since from webhook_endpoint where id = ?', [endpointId]);
    assert.ok(row!.failing_since, 'the endpoint is failing');
    assert.ok(Math.abs(new Date(row!.failing_since).getTime() - Date.parse(firstFailure)) < 5_000);
    assert.match(
      text,
      new RegExp(
        `<td><code>${endpointId}</code></td><td>http://127\\.0\\.0\\.1:47399/hooks</td><td>register-account-completed</td><td>enabled</td><td>${new Date(row!.failing_since).toISOString()}</td>`,
      ),
    );
    assert.match(text, new RegExp(`<caption>Latest deliveries to ${endpointId}</caption>[\\s\\S]*<code>${eventId}</code>`));
    // Another integrator's console sees none of it.
    const stranger = await consoleUser(client, 'viewer');
    assert.doesNotMatch((await stranger.visitor.get('/console/webhooks')).text, new RegExp(endpointId));
  });

  it('shows a dispute with its trace and takes evidence (finance): submitting moves it to UNDER_REVIEW', async () => {
    const { invoiceId, card } = await paidInvoice(900);
    const opened = await call('POST', '/v2/sandbox/disputes', {
      token: client.token,
      body: { invoice_id: invoiceId, payment_method_id: card },
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(opened.status, 200, opened.text);
    const disputeId = opened.body.payload.dispute_id;
    const viewer = await consoleUser(client, 'viewer');
    const seen = await viewer.visitor.get(`/console/disputes/${disputeId}`);
    assert.equal(seen.status, 200);
    assert.doesNotMatch(seen.text, /Save evidence/);
    const finance = await consoleUser(client, 'finance');
    assert.match((await finance.visitor.get(`/console/disputes/${disputeId}`)).text, /Save evidence/);
    const res = await finance.visitor.post(`/console/disputes/${disputeId}/evidence`, {
      product_description: 'A sword <b>of</b> light',
      submit: 'true',
      reason: 'customer used the item',
    });
    assert.equal(res.status, 303, res.text);
    const d = await call('GET', `/v2/disputes/${disputeId}`, { token: client.token });
    assert.equal(d.body.payload.status, 'UNDER_REVIEW');
    assert.equal(d.body.payload.evidence.product_description, 'A sword <b>of</b> light');
  });

  it('lists webhook endpoints and events; support resends an event, a viewer cannot', async () => {
    const acct = await register(client);
    const events = await call('GET', `/v2/events?account_id=${acct.account_id}`, { token: client.token });
    const eventId = events.body.payload.events[0].id;
    const viewer = await consoleUser(client, 'viewer');
    await viewer.visitor.get('/console/webhooks');
    assert.equal((await viewer.visitor.post(`/console/events/${eventId}/resend`, { reason: 'x' })).status, 403);
    const support = await consoleUser(client, 'support');
    const page = await support.visitor.get('/console/webhooks');
    assert.match(page.text, new RegExp(eventId));
    const res = await support.visitor.post(`/console/events/${eventId}/resend`, { reason: 'receiver was down' });
    assert.equal(res.status, 303, res.text);
  });

  it("exports: a viewer downloads its integrator's invoices as the API's CSV, none of another's; a bad day or account brings the form back", async () => {
    const mine = await paidInvoice(1_300);
    const other = await newClient();
    const theirs = await paidInvoice(1_400, other);
    const { visitor } = await consoleUser(client, 'viewer');
    const form = await visitor.get('/console/exports');
    assert.equal(form.status, 200);
    assert.match(form.text, /<a href="\/console\/exports" aria-current="page">Exports<\/a>/);
    assert.match(form.text, /<form method="get" action="\/console\/exports"/);

    const today = new Date().toISOString().slice(0, 10);
    const res = await visitor.get(`/console/exports?kind=invoices&from=${today}&to=${today}&account_id=&format=csv`);
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="holdfast-invoices-\d{8}T\d{6}Z\.csv"$/);
    const csv = (text: string) =>
      parse(text, { columns: true, record_delimiter: '\r\n', strict: true } as never) as Array<Record<string, string>>;
    const rows = csv(res.text);
    assert.deepEqual(
      rows.filter((r) => r.invoice_id === mine.invoiceId).map((r) => [r.account_id, r.amount, r.amount_display, r.state]),
      [[mine.accountId, '1300', '13.00', 'SUCCESS']],
    );
    assert.ok(!rows.some((r) => r.invoice_id === theirs.invoiceId || r.account_id === theirs.accountId), "none of another integrator's");
    // The API's export of the same day, the same invoices in the same order.
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString();
    const api = await call('GET', `/v2/exports/invoices?from=${today}T00:00:00Z&to=${tomorrow}`, { token: client.token });
    assert.deepEqual(
      rows.map((r) => r.invoice_id),
      csv(api.text).map((r) => r.invoice_id),
    );
    // One account's, as JSON lines.
    const one = await visitor.get(`/console/exports?kind=invoices&account_id=${mine.accountId}&format=jsonl`);
    assert.equal(one.headers.get('content-type'), 'application/x-ndjson');
    assert.deepEqual(
      one.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).invoice_id),
      [mine.invoiceId],
    );

    const bad = await visitor.get('/console/exports?kind=invoices&from=yesterday&format=csv');
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(bad.text, /role="alert">The export was not made\. From \(first day, UTC\): a day as YYYY-MM-DD\./);
    assert.match(bad.text, /id="x-from" name="from" type="date" value="yesterday" aria-invalid="true"/, 'the form comes back as sent');
    const backwards = await visitor.get('/console/exports?kind=invoices&from=2026-11-02&to=2026-11-01');
    assert.equal(backwards.status, 400);
    assert.match(backwards.text, /To \(last day, UTC, included\): a day on or after From/);
    const statement = await visitor.get('/console/exports?kind=statement');
    assert.equal(statement.status, 400);
    assert.match(statement.text, /Account id: required for this kind of records/);
    const foreign = await visitor.get(`/console/exports?kind=statement&account_id=${theirs.accountId}`);
    assert.equal(foreign.status, 404);
    assert.match(foreign.text, /Account id: no such account/);

    // A viewer downloads the audit trail too (it reads the audit page already).
    const audit = await visitor.get('/console/exports?kind=audit');
    assert.equal(audit.status, 200, audit.text);
    assert.equal(csv(audit.text).length, (await call('GET', '/v2/audit?limit=1', { token: client.token })).body.payload.total);
    // Signed out: the sign-in page, no file.
    const stranger = await new ConsoleVisitor().get('/console/exports?kind=invoices');
    assert.equal(stranger.status, 303);
    assert.equal(stranger.headers.get('location'), '/console/login');
  });

  it('holdfast console user add prints a one-time link; a taken email and an unknown role are refused', async function () {
    this.timeout(120_000);
    const email = `${unique('cli')}@example.com`;
    const made = await holdfastCli(['console', 'user', 'add', email, '--integrator', client.integrator, '--role', 'support', '--json']);
    assert.equal(made.status, 0, made.stderr);
    const out = JSON.parse(made.stdout);
    assert.equal(out.role, 'support');
    assert.match(out.set_password_url, /\/console\/set-password\//);
    const taken = await holdfastCli(['console', 'user', 'add', email, '--integrator', client.integrator, '--role', 'support']);
    assert.equal(taken.status, 1);
    const role = await holdfastCli(['console', 'user', 'add', `x${email}`, '--integrator', client.integrator, '--role', 'boss']);
    assert.equal(role.status, 2);
    // One audit record, of the addition that happened, with the CLI's actor: the role, never the email.
    const audit = await call('GET', '/v2/audit?action=console.user.add', { token: client.token });
    const records = audit.body.payload.records.filter((r: any) => r.target.id === out.console_user_id);
    assert.deepEqual(
      records.map((r: any) => [r.actor.kind, r.target.type, r.after]),
      [['cli', 'console_user', { role: 'support', operator: false }]],
    );
    assert.doesNotMatch(JSON.stringify(audit.body.payload.records), new RegExp(email));
  });

  it('People: an admin adds a console user (its link shown once, the addition audited); only an operator adds an operator; others cannot', async () => {
    const admin = await consoleUser(client, 'admin');
    const page = await admin.visitor.get('/console/users');
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(admin.email));
    assert.match(page.text, /<a href="\/console\/users"[^>]*>People<\/a>/, 'the navigation shows People to an admin');

    const email = `${unique('hire')}@example.com`;
    const added = await admin.visitor.post('/console/users', { email, role: 'viewer', reason: 'new analyst' });
    assert.equal(added.status, 201, added.text);
    const link = /<code>(http[^<]+\/console\/set-password\/[^<]+)<\/code>/.exec(added.text)?.[1];
    assert.ok(link, 'the answer shows the set-password link');
    const newcomer = new ConsoleVisitor();
    assert.equal((await newcomer.get(new URL(link).pathname)).status, 200, 'the link works');
    assert.doesNotMatch((await admin.visitor.get('/console/users')).text, /set-password/, 'the link is shown only once');
    const audit = await call('GET', '/v2/audit?action=console.user.add', { token: client.token });
    const [record] = audit.body.payload.records.filter((r: any) => r.actor.id === admin.id);
    assert.deepEqual([record.actor.kind, record.reason, record.after], ['console', 'new analyst', { role: 'viewer', operator: false }]);

    // A non-operator admin cannot give the operator's rights; a taken email and a bad role are refused; none is recorded.
    const escalate = await admin.visitor.post('/console/users', { email: `x${email}`, role: 'admin', operator: 'yes', reason: 'r' });
    assert.equal(escalate.status, 403);
    assert.equal((await admin.visitor.post('/console/users', { email, role: 'viewer', reason: 'again' })).status, 409);
    assert.equal((await admin.visitor.post('/console/users', { email: `y${email}`, role: 'boss', reason: 'r' })).status, 400);
    assert.equal((await admin.visitor.post('/console/users', { email: `z${email}`, role: 'viewer' })).status, 400, 'a reason is required');
    const after = await call('GET', '/v2/audit?action=console.user.add', { token: client.token });
    assert.equal(after.body.payload.records.filter((r: any) => r.actor.id === admin.id).length, 1);

    // An operator admin may; a finance user may not add anyone, nor see the page.
    const boss = await consoleUser(client, 'admin', true);
    await boss.visitor.get('/console/users');
    assert.equal(
      (await boss.visitor.post('/console/users', { email: `op${email}`, role: 'support', operator: 'yes', reason: 'on call' })).status,
      201,
    );
    const finance = await consoleUser(client, 'finance', true);
    await finance.visitor.get('/console');
    assert.equal((await finance.visitor.get('/console/users')).status, 403);
    const refused = await finance.visitor.post('/console/users', { email: `f${email}`, role: 'viewer', reason: 'r' });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /Your role \(finance\) cannot take this action/);
    assert.doesNotMatch((await finance.visitor.get('/console')).text, />People</, 'no People link for others');

    // Another integrator's admin does not see these people.
    const other = await consoleUser(await newClient(), 'admin');
    assert.doesNotMatch((await other.visitor.get('/console/users')).text, new RegExp(admin.email));
  });
});
