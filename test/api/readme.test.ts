import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoClientFile, runBlock, WALKTHROUGHS } from '../support/walkthroughs.js';

describe('README walk-through', () => {
  it('works as pasted (token → register → lookup → search → update → sign ToS), twice in a row', async function () {
    this.timeout(60_000);
    const demo = await demoClientFile();
    for (const round of [1, 2]) {
      const run = await runBlock('Walk-through', demo, { file: 'README.md' });
      assert.equal(run.status, 0, run.stderr);
      const outputs = run.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      assert.equal(outputs.length, 6, `round ${round}: ${run.stdout}`);
      const [registered, lookedUp, found, updated, signed, status] = outputs;
      for (const envelope of [registered, lookedUp, found, updated, signed])
        assert.equal(envelope.status, 'Success', JSON.stringify(envelope));
      assert.equal(lookedUp.payload.account_id, registered.payload.account_id);
      assert.equal(found.payload.account_id, registered.payload.account_id);
      assert.ok(updated.payload.external_platforms.steam);
      assert.deepEqual(status, { signed_tos: true });
      await new Promise((r) => setTimeout(r, 1100)); // the walk-through makes names unique by the second
    }
  });

  it('its text holds: step 2 sent again replays (same key); another key or none, and step 5 on another account, get the 409 naming the account', async function () {
    this.timeout(60_000);
    const out = mkdtempSync(path.join(tmpdir(), 'walk-again-'));
    const step = (block: string, n: number) => {
      const text = new RegExp(`^# ${n}\\. .*\\n([\\s\\S]*?)^\\n?# ${n + 1}\\. `, 'm').exec(block)?.[1];
      assert.ok(text, `the walk-through has a step ${n}`);
      return text;
    };
    /** A pasted command with its status line, headers and body kept in files named after `name`. */
    const kept = (command: string, name: string) => {
      assert.match(command, /^curl -s /);
      return command.replace(/^curl -s /, `curl -s -D "${out}/${name}.headers" -o "${out}/${name}.json" `);
    };
    const run = await runBlock('Walk-through', await demoClientFile(), {
      file: 'README.md',
      extend: (block) => {
        // Step 2's curl as pasted, the same values ($N, $USERNAME) still set: with its key, another one, none.
        const register = /^curl -s -X POST \$BASE\/register[\s\S]*?\| tee \/tmp\/holdfast-register\.json$/m.exec(step(block, 2))?.[0];
        assert.ok(register, 'step 2 registers with curl');
        const key = ' -H "Idempotency-Key: reg-$USERNAME"';
        assert.ok(register.includes(key), 'step 2 sends an Idempotency-Key');
        const asPasted = register.replace(' | tee /tmp/holdfast-register.json', '');
        const update = step(block, 5)
          .trim()
          .replace(/; echo$/, '');
        assert.match(update, /\$ACCOUNT_ID/);
        return [
          block,
          kept(asPasted, 'same-key'),
          kept(asPasted.replace('Idempotency-Key: reg-', 'Idempotency-Key: other-'), 'other-key'),
          kept(asPasted.replace(key, ''), 'no-key'),
          kept(update, 'update-again'),
          'OTHER=$(curl -s -X POST $BASE/register -H "Authorization: Bearer $TOKEN" -H \'Content-Type: application/json\' ' +
            '-d "{\\"username\\":\\"other-$N\\",\\"email\\":{\\"address\\":\\"other.$N@example.com\\"}}" | json payload.account_id)',
          kept(update.replaceAll('$ACCOUNT_ID', '$OTHER'), 'update-other'),
        ].join('\n');
      },
    });
    assert.equal(run.status, 0, run.stderr);
    const registered = JSON.parse(run.stdout.trim().split('\n')[0] ?? 'null');
    assert.equal(registered.status, 'Success');
    const answer = (name: string) => {
      const headers = readFileSync(path.join(out, `${name}.headers`), 'utf8');
      return {
        status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(headers)?.[1]),
        replayed: /^idempotent-replayed: true\r?$/im.test(headers),
        body: JSON.parse(readFileSync(path.join(out, `${name}.json`), 'utf8')),
      };
    };
    // The same key: the first answer again, replayed — no second account.
    const same = answer('same-key');
    assert.deepEqual([same.status, same.replayed], [200, true]);
    assert.deepEqual(same.body, registered);
    // Another key, or none: the duplicate rule, naming the account that holds the username.
    for (const name of ['other-key', 'no-key']) {
      const refused = answer(name);
      assert.deepEqual([refused.status, refused.replayed], [409, false], name);
      assert.deepEqual(refused.body.payload, { account_id: registered.payload.account_id, field: 'username' }, name);
    }
    // Step 5 again changes nothing; the same Steam id on another account is the 409 naming this one.
    const again = answer('update-again');
    assert.equal(again.status, 200);
    assert.equal(again.body.payload.account_id, registered.payload.account_id);
    const other = answer('update-other');
    assert.equal(other.status, 409);
    assert.deepEqual(other.body.payload, { account_id: registered.payload.account_id, field: 'external_platforms.steam' });
  });

  it('the escrow walk-through works as pasted (pay, commit; pay, cancel; ledger verify)', async function () {
    this.timeout(90_000);
    const run = await runBlock('Escrow walk-through', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n').slice(0, 7), [
      'ESCROWED',
      'COMMITTED',
      '1200',
      'ESCROWED',
      'CANCELLED',
      'ESCROW_STATE_ERROR',
      'USD 15.50',
    ]);
    assert.match(run.stdout, /ledger ok/);
  });

  it('the reconciliation walk-through works as pasted (by reference, by invoice, invoices, balances, statement)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Reconciliation by reference', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['2', 'COMMITTED', 'COMMITTED', '1', 'USD 12.00', 'commit', 'USD 12.00']);
  });

  it('the authorized-invoice checkout walk-through works as pasted (authorize, the buyer pays with its password token, commit)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Checkout with an authorized invoice', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['OPEN', 'SUCCESS', 'ESCROWED', 'COMMITTED', '401']);
  });

  it('the client SDK walk-through works as pasted (checkout, history, receipt, payment methods)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Client SDK', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['SUCCESS USD 2.50', '1', 'user_purchase', 'true']);
  });

  it('the blocks, merge and sessions walk-through works as pasted', async function () {
    this.timeout(60_000);
    const run = await runBlock('Blocks, merge and user sessions', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 3), ['SUCCESS', 'publisher', 'true']);
    assert.match(lines[3], /^Account acct_\S+ is blocked\.$/);
    assert.deepEqual(lines.slice(4), [
      '{}',
      'true',
      'false',
      '500',
      'merge_account',
      'merged-from',
      'BLOCK_PERMISSION_ERROR',
      'Bearer',
      'Bearer',
    ]);
  });

  it('the webhooks walk-through works as pasted (register, receive, verify the signature)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Webhooks', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['verified register-account-completed', '204', 'deleted']);
  });

  it('the events walk-through works as pasted (list an account’s events, read one, resend it to one endpoint)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Events and resending', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['1', '204', '1', 'the same webhook-id twice', '2', 'EVENT_GET_ERROR', 'deleted']);
  });

  it('the refunds walk-through works as pasted (fund, pay two lines, refund one in part and the rest in full, summary, webhooks)', async function () {
    this.timeout(90_000);
    const run = await runBlock('Refunds walk-through', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1), [
      '5000',
      'SUCCESS',
      // the line-item refund: USD 5.00 of the sword
      'REFUND-SUCCESS',
      '500',
      '1500',
      // the full refund takes the rest; a second one finds nothing
      '1500',
      'NOTHING_TO_REFUND',
      // the summary
      'true',
      '2000',
      'the sword',
      'null',
      'succeeded',
      // the integrator's wallet paid both refunds; the seller kept its share
      '2000',
      '1000',
      // the two refund-completed deliveries, oldest first
      'refund-completed of the invoice: USD 500 back, 0 failed',
      'refund-completed of the invoice: USD 1500 back, 0 failed',
      'deleted',
    ]);
    assert.match(lines.at(-1) ?? '', /^ledger ok: /);
  });

  it('the payouts walk-through works as pasted (escrow commit, KYC, PayPal destination, payout, approve, webhooks)', async function () {
    this.timeout(90_000);
    const run = await runBlock('Payouts walk-through', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1), [
      // the escrow pays the seller's USD wallet its USD 12.00
      'ESCROWED',
      'COMMITTED',
      '1200',
      // KYC: nothing submitted, then accepted by the operator
      'NODATA',
      'ACCEPT',
      'FULL',
      // the payout takes USD 10.00 out of the wallet at once, into holding
      'FUNDS-IN-ESCROW',
      '200',
      // approved and paid
      'SUCCESS',
      'SUCCESS',
      // the seller's deliveries, oldest first
      'kyc-webhook: ACCEPT',
      'payout-complete: FUNDS-IN-ESCROW USD 1000',
      'payout-complete: SUCCESS USD 1000',
      '1',
      'deleted',
    ]);
    assert.match(lines.at(-1) ?? '', /^ledger ok: /);
  });

  it('the payout rail part works as pasted after the payouts walk-through (PROCESSING, DELETE 409, UNCLAIMED, RETURNED)', async function () {
    this.timeout(90_000);
    const text = readFileSync(WALKTHROUGHS, 'utf8');
    const rail = /^### A payout the rail has not settled yet[\s\S]*?```sh\n([\s\S]*?)```/m.exec(text)?.[1];
    assert.ok(rail, 'docs/walkthroughs.md has the payout rail block');
    const run = await runBlock('Payouts walk-through', await demoClientFile(), { extend: (block) => `${block}\n${rail}` });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n').slice(-5), ['PROCESSING', '409', 'PROCESSING', 'RETURNED', '200']);
  });

  it('the test clock walk-through works as pasted (advance, an expired refresh token, reset)', async function () {
    this.timeout(60_000);
    const run = await runBlock('Test clock', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['2678400', 'invalid_grant', '0']);
  });

  it('the disputes walk-through works as pasted (tokens, escrow, conversion, payout; dispute a day later, trace, evidence, LOST)', async function () {
    this.timeout(90_000);
    const run = await runBlock('Disputes walk-through', await demoClientFile());
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1), [
      'SUCCESS',
      'ESCROWED',
      'COMMITTED',
      'ACCEPT',
      'EXECUTED',
      'SUCCESS',
      '86460',
      'NEEDS_RESPONSE',
      'purchase GEM 400 in_wallet held 400 clawed back 0',
      'escrow GEM 200 in_wallet held 200 clawed back 0',
      'conversion USD 100 in_wallet held 100 clawed back 0',
      'payout USD 300 paid_out held 0 clawed back 0',
      '200',
      'UNDER_REVIEW',
      'LOST',
      'purchase GEM 400 in_wallet held 0 clawed back 400',
      'escrow GEM 200 in_wallet held 0 clawed back 200',
      'conversion USD 100 in_wallet held 0 clawed back 100',
      'payout USD 300 paid_out held 0 clawed back 0',
      '300',
      '0',
      '1',
      '0',
    ]);
    assert.match(lines.at(-1) ?? '', /^ledger ok: /);
  });
});
