import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('../fixtures/dependency-rules', import.meta.url));
const depcruise = fileURLToPath(new URL('../../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url));

/** The violations depcruise finds in the fixture tree with one of our configs, as `rule: from -> to`. */
async function violations(config: string): Promise<string[]> {
  // depcruise exits non-zero when it finds violations: its report is on stdout all the same.
  const run = await promisify(execFile)(
    process.execPath,
    [depcruise, 'src', 'workers', '--config', `${root}/${config}`, '--output-type', 'json'],
    { cwd: fixtures },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const report = JSON.parse(run.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
  // A package resolves wherever node_modules is (a linked one, a workspace): name it from there.
  const name = (path: string) => path.replace(/^.*node_modules\//, 'node_modules/');
  return report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${name(v.to)}`).sort();
}

describe('dependency rules (npm run lint:deps)', function () {
  this.timeout(60_000);

  it('refuses cycles (through types too), impure rules, services and workers importing the HTTP layer, and routes imported outside the app', async () => {
    assert.deepEqual(await violations('.dependency-cruiser.cjs'), [
      'http-only-from-http-layer: src/gamma/gamma.service.ts -> src/http/envelope.ts',
      'http-only-from-http-layer: workers/sweep.processor.ts -> src/http/envelope.ts',
      'no-circular: src/alpha/alpha.service.ts -> src/beta/beta.service.ts',
      'routes-only-from-app: src/gamma/gamma.service.ts -> src/gamma/gamma.routes.ts',
      'rules-are-pure: src/gamma/gamma.rules.ts -> node_modules/express/index.js',
      'rules-are-pure: src/gamma/gamma.rules.ts -> src/beta/beta.service.ts',
      'workers-not-http: workers/sweep.processor.ts -> src/http/envelope.ts',
    ]);
  });

  it('refuses folders that reach themselves through another folder, even without a cycle between files', async () => {
    assert.deepEqual(await violations('.dependency-cruiser-folders.cjs'), [
      'no-circular-folders: src/alpha -> src/beta',
      'no-circular-folders: src/beta -> src/alpha',
      'no-circular-folders: src/delta -> src/epsilon',
      'no-circular-folders: src/epsilon -> src/delta',
    ]);
  });
});
