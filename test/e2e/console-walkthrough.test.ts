/**
 * The console and audit walk-through of docs/walkthroughs.md as a person follows it: the first
 * `sh` block pasted in a shell, the browser steps in Chromium, the second block in the same
 * shell (its variables carried over), and the settlement CSV it writes compared with the ledger.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { h } from '../support/harness.js';
import { settlementFromPostings, settlementNet } from '../support/money.js';
import { demoClientFile, runBlock, shBlocks, WALKTHROUGHS } from '../support/walkthroughs.js';

const TITLE = 'Console and audit walk-through';

describe('the console and audit walk-through (docs/walkthroughs.md), with its browser steps in Chromium', function () {
  this.timeout(240_000);
  let browser: Browser;

  before(async () => {
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
  });

  it('adds a console user, decides a KYC review and a payout in the console, lists and verifies the audit trail, and the settlement CSV reconciles to the ledger', async () => {
    const blocks = shBlocks(WALKTHROUGHS, TITLE);
    assert.equal(blocks.length, 2, 'the section has two sh blocks: before and after the browser');
    const demoFile = await demoClientFile();
    const state = path.join(mkdtempSync(path.join(tmpdir(), 'walk-state-')), 'vars.sh');

    // The first block, then its shell's variables and functions kept for the second (one terminal).
    const first = await runBlock(TITLE, demoFile, {
      extend: (block) => `${block}\n{ declare -p BASE INTEGRATOR TOKEN AUTH JSON N ANA BO PAYOUT_ID; declare -f json; } > ${state}\n`,
    });
    assert.equal(first.status, 0, first.stderr);
    const out = first.stdout.trim().split('\n');
    assert.match(out[0], /^http:\/\/localhost:3000\/console\/set-password\/\S+$/);
    assert.deepEqual(out.slice(1, -1), ['MANUAL_REVIEW', 'ESCROWED', 'COMMITTED', 'ACCEPT', 'FUNDS-IN-ESCROW']);
    const [, ana, payoutId] = /^decide in the console: Ana (acct_\S+), Bo's payout (po_\S+)$/.exec(out.at(-1) ?? '') ?? [];
    assert.ok(ana && payoutId, out.at(-1));
    const vars = readFileSync(state, 'utf8');
    const email = `ops-${/declare -- N="(\d+)"/.exec(vars)?.[1]}@example.com`;

    // The browser steps, as the walk-through words them (the link's host is this suite's server).
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(out[0].replace('http://localhost:3000', h().baseUrl));
    await page.getByLabel('New password').fill('correct horse battery');
    await page.getByLabel('Repeat it').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    await page.goto(`${h().baseUrl}/console/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();

    await page.getByRole('link', { name: 'KYC reviews' }).click();
    const anaRow = page.getByRole('row').filter({ hasText: ana });
    await anaRow.getByLabel('Decision').selectOption('ACCEPT');
    await anaRow.getByLabel('Reason').fill('passport checked');
    await anaRow.getByRole('button', { name: 'Decide' }).click();
    assert.equal((await page.getByRole('status').textContent())?.trim(), `${ana}: KYC ACCEPT`);

    await page.getByRole('link', { name: 'Payouts queue' }).click();
    const boRow = page.getByRole('row').filter({ hasText: payoutId });
    await boRow.getByLabel('Reason').first().fill('destination verified');
    await boRow.getByRole('button', { name: 'Approve' }).click();
    assert.equal((await page.getByRole('status').textContent())?.trim(), `${payoutId}: SUCCESS`);
    await context.close();

    // The second block, in the same shell.
    const second = await runBlock(TITLE, demoFile, { block: `source ${state}\n${blocks[1]}` });
    assert.equal(second.status, 0, second.stderr);
    const lines = second.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['ACCEPT', 'SUCCESS']);
    // The audit list: the console user's two decisions, newest first, with their reasons.
    const listed = lines.slice(2, 6);
    assert.match(listed[0], /^at\s+seq\s+actor\s+action\s+target\s+reason$/);
    assert.match(listed[1], new RegExp(`console:${email}\\s+payout\\.approve\\s+payout ${payoutId}\\s+destination verified$`));
    assert.match(listed[2], new RegExp(`console:${email}\\s+kyc\\.decide\\s+account ${ana}\\s+passport checked$`));
    assert.equal(listed[3], '2 of 2 records');
    assert.match(lines[6], /^audit trail ok: \d+ sealed records? of 1 integrator$/);
    const integrator = JSON.parse(readFileSync(demoFile, 'utf8')).integrator as string;
    const day = new Date().toISOString().slice(0, 10);
    assert.deepEqual(
      lines.slice(7, 10).map((l) => l.trim()),
      [
        `${integrator},${day},USD,gross_charges,1550,15.50,1`,
        `${integrator},${day},USD,payouts_sent,1000,10.00,1`,
        `${integrator},${day},USD,net,550,5.50,`,
      ],
    );
    assert.match(lines[10], /^ledger ok: /);

    // The CSV it wrote, parsed by a CSV library: every line equals the day's postings summed independently.
    const n = /declare -- N="(\d+)"/.exec(vars)?.[1];
    const rows = parse(readFileSync(`/tmp/holdfast-settlement-${n}.csv`, 'utf8'), {
      columns: true,
      record_delimiter: '\r\n',
      strict: true,
    } as never) as Array<Record<string, string>>;
    const [{ integrator_id: integratorId }] = await h()
      .orm.em.fork()
      .execute<Array<{ integrator_id: string }>>('select integrator_id from account where id = ?', [ana]);
    const currencies = [...new Set(rows.map((r) => r.currency))];
    assert.ok(currencies.includes('USD'));
    for (const currency of currencies) {
      const sums = await settlementFromPostings(integratorId, day, currency);
      const csv = Object.fromEntries(rows.filter((r) => r.currency === currency).map((r) => [r.line, Number(r.amount)]));
      assert.deepEqual(csv, { ...sums, net: settlementNet(sums) }, currency);
    }
  });
});
