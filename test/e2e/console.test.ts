import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { addConsoleUser } from '../../src/console/console-auth.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { launchChromium } from '../support/browser.js';
import { call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { fund, party } from '../support/money.js';

/** The invoice ids of a CSV export, in order. */
function csvIds(text: string): string[] {
  return (parse(text, { columns: true, record_delimiter: '\r\n', strict: true } as never) as Array<Record<string, string>>).map(
    (r) => r.invoice_id!,
  );
}

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's serious and critical findings on the page as it stands. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SOURCE });
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('the console in Chromium', function () {
  this.timeout(180_000);
  let browser: Browser;
  let client: TestClient;

  before(async () => {
    browser = await launchChromium();
    client = await newClient();
  });

  after(async () => {
    await browser?.close();
  });

  it('sets a password, signs in, finds an account, approves a payout with a reason; every page passes axe (no serious or critical)', async () => {
    // An endpoint nothing listens on (a port of the range this suite may use): the webhooks page has deliveries and failures to show.
    const hook = await call('POST', '/v2/webhooks', {
      token: client.token,
      body: { url: 'http://127.0.0.1:47398/hooks', events: ['register-account-completed'] },
    });
    assert.equal(hook.status, 201, hook.text);
    const p = await party(client, true);
    await fund(p, 'USD:fiat', 10_000);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const dest = await call('POST', `/v1/${p.account_id}/payment_methods`, {
      token: client.token,
      body: { type: 'paypal', paypal: { email: `${p.account_id.toLowerCase()}@example.com` } },
    });
    const payout = await call('POST', `/v2/${p.account_id}/payout`, {
      token: client.token,
      body: {
        source_payment_method_id: p.wallets['USD:fiat'].pm,
        destination_payment_method_id: dest.body.payload.id,
        amount: 1_500,
        currency: 'USD',
      },
    });
    const payoutId: string = payout.body.payload.payout_status_id;
    const email = `${unique('ops')}@example.com`;
    const made = await addConsoleUser(h().orm.em.fork(), {
      email,
      integrator: client.integrator,
      role: 'finance',
      operator: true,
      publicUrl: h().baseUrl,
    });

    // axe is injected as a script: the console's own policy runs none, so this context sets it aside.
    // en-US: a date field then types month, day, year.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    const audit = async (name: string) => {
      for (const v of await seriousViolations(page)) problems.push(`${name}: ${v}`);
    };

    await page.goto(made.link);
    await audit('set password');
    await page.getByLabel('New password').fill('a long enough password');
    await page.getByLabel('Repeat it').fill('a long enough password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    await page.goto(`${h().baseUrl}/console/login`);
    await audit('sign in');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();
    await audit('accounts');

    await page.getByLabel('Account id, username or external platform user id').fill(p.account_id);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: p.account_id }).click();
    await page.getByRole('heading', { name: /^Account / }).waitFor();
    assert.match(await page.content(), /USD 85\.00/, 'the wallet shows');
    await audit('account');

    await page.getByRole('link', { name: 'Payouts queue' }).click();
    await page.getByRole('heading', { name: 'Payouts queue' }).waitFor();
    await audit('payouts queue');
    await page.locator(`#reason-approve-${payoutId}`).fill('destination verified by phone');
    await page.locator(`form[action$="/${payoutId}/approve"] button`).click();
    await page.getByRole('status').waitFor();
    assert.match((await page.getByRole('status').textContent()) ?? '', new RegExp(`${payoutId}: SUCCESS`));

    // The audit trail lists the approval: the console user as the actor, with the reason given.
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    const approval = page.getByRole('row').filter({ hasText: payoutId }).filter({ hasText: 'payout.approve' });
    assert.equal(await approval.count(), 1);
    const cells = (await approval.getByRole('cell').allTextContents()).map((c) => c.trim());
    assert.deepEqual(
      [cells[1], cells[2], cells[3], cells[4]],
      [`console: ${email}`, 'payout.approve', `payout ${payoutId}`, 'destination verified by phone'],
    );
    await audit('audit trail');

    // A card purchase, disputed: the invoice page with its refund form, the dispute with its trace and evidence form.
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: p.account_id,
        payment_methods: [{ payment_method_id: p.card!, amount: 0 }],
        line_items: [{ amount: 700, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const invoiceId = created.body.payload.invoice_id;
    await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token });
    const disputed = await call('POST', '/v2/sandbox/disputes', {
      token: client.token,
      body: { invoice_id: invoiceId, payment_method_id: p.card! },
      headers: { 'idempotency-key': unique('k') },
    });
    for (const [name, path] of [
      ['account', `/console/accounts/${p.account_id}`],
      ['invoice', `/console/invoices/${invoiceId}`],
      ['dispute', `/console/disputes/${disputed.body.payload.dispute_id}`],
      ['webhooks', '/console/webhooks'],
      ['audit', '/console/audit'],
      ['kyc', '/console/kyc'],
      ['disputes', '/console/disputes'],
      ['security', '/console/security'],
      ['exports', '/console/exports'],
      ['exports with a problem', '/console/exports?kind=invoices&from=yesterday'],
    ] as const) {
      await page.goto(`${h().baseUrl}${path}`);
      await audit(name);
      if (name === 'webhooks') {
        assert.match(await page.content(), /<caption>Latest deliveries to /, 'the endpoint with its deliveries');
        assert.match(await page.content(), /<caption>Failed deliveries, newest first<\/caption>/, 'the failed delivery');
      }
    }
    assert.deepEqual(problems, []);

    // The exports page, with the keyboard alone: today's invoices as CSV, downloaded and parsed.
    await page.goto(`${h().baseUrl}/console`);
    await page.getByRole('link', { name: 'Exports' }).click();
    await page.getByRole('heading', { name: 'Exports' }).waitFor();
    await page.getByLabel('Records').focus();
    await page.keyboard.press('ArrowDown'); // statement → invoices
    assert.equal(await page.getByLabel('Records').inputValue(), 'invoices');
    const today = new Date().toISOString().slice(0, 10);
    await page.keyboard.press('Tab');
    await page.keyboard.type(today.slice(5, 7) + today.slice(8, 10) + today.slice(0, 4)); // a date field types month, day, year
    assert.equal(await page.getByLabel('From (first day, UTC)').inputValue(), today);
    await page.getByRole('button', { name: 'Download' }).focus();
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    assert.match(download.suggestedFilename(), /^holdfast-invoices-\d{8}T\d{6}Z\.csv$/);
    const rows = parse(await readFile((await download.path())!, 'utf8'), {
      columns: true,
      record_delimiter: '\r\n',
      strict: true,
    } as never) as Array<Record<string, string>>;
    assert.deepEqual(
      rows.filter((r) => r.invoice_id === invoiceId).map((r) => [r.account_id, r.amount, r.amount_display, r.state]),
      [[p.account_id, '700', '7.00', 'SUCCESS']],
    );
    assert.deepEqual(
      rows.map((r) => r.invoice_id),
      csvIds((await call('GET', `/v2/exports/invoices?from=${today}T00:00:00Z`, { token: client.token })).text),
      "the API's export of the same day",
    );
    const res = await call('GET', `/v2/${p.account_id}/payout/${payoutId}`, { token: client.token });
    assert.equal(res.body.payload.payout_status, 'SUCCESS');
    await context.close();
  });
});
