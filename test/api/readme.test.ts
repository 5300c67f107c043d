import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { createClient } from '../../src/auth/auth.service.js';
import { h, unique } from '../support/harness.js';

describe('README walk-through', () => {
  it('works as pasted (token → register → lookup → search → update → sign ToS), twice in a row', async function () {
    this.timeout(60_000);
    const readme = readFileSync('README.md', 'utf8');
    const block = /## Walk-through[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, 'the README has a walk-through block');
    assert.match(block, /^BASE=http:\/\/localhost:3000$/m);
    // The same demo-client file `npm start` writes, in a folder of its own.
    const dir = mkdtempSync(path.join(tmpdir(), 'walk-'));
    mkdirSync(path.join(dir, '.data'));
    const demo = await createClient(h().orm.em.fork(), { integrator: unique('demo-'), scopes: [...ALL_SCOPES], canUnblock: true, tosSigning: true });
    writeFileSync(path.join(dir, '.data', 'demo-client.json'), JSON.stringify(demo));
    const script = block.replace(/^BASE=.*$/m, `BASE=${h().baseUrl}`);
    for (const round of [1, 2]) {
      // Asynchronously: the server under test runs in this process.
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('bash', ['-c', script], { cwd: dir });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => { stdout += d; });
        child.stderr.on('data', (d) => { stderr += d; });
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      assert.equal(run.status, 0, run.stderr);
      const outputs = run.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
      assert.equal(outputs.length, 6, `round ${round}: ${run.stdout}`);
      const [registered, lookedUp, found, updated, signed, status] = outputs;
      for (const envelope of [registered, lookedUp, found, updated, signed]) assert.equal(envelope.status, 'Success', JSON.stringify(envelope));
      assert.equal(lookedUp.payload.account_id, registered.payload.account_id);
      assert.equal(found.payload.account_id, registered.payload.account_id);
      assert.ok(updated.payload.external_platforms.steam);
      assert.deepEqual(status, { signed_tos: true });
      await new Promise((r) => setTimeout(r, 1100)); // the walk-through makes names unique by the second
    }
  });
});
