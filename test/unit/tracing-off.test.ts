/**
 * Tracing off costs nothing: OpenTelemetry is imported by one module only, which the `--import`
 * hook loads when an OTLP endpoint is set; and the hook decides from the standard variables.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tracingHooks, tracingWanted } from '../../src/runtime/tracing-hooks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

describe('tracing off', () => {
  it('only src/runtime/tracing.ts imports OpenTelemetry or bullmq-otel', () => {
    const importing = [...sources('src'), ...sources('workers'), ...sources('config')].filter((file) =>
      /from '(@opentelemetry\/|bullmq-otel)|import\('(@opentelemetry\/|bullmq-otel)/.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    assert.deepEqual(importing, [path.join('src', 'runtime', 'tracing.ts')]);
  });

  it('is on only with an OTLP endpoint variable, and never when disabled', () => {
    assert.equal(tracingWanted({}), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x' }), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }), false);
    assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
  });

  it('the hook loads no OpenTelemetry module and installs nothing without an endpoint', () => {
    assert.equal(tracingHooks(), undefined);
    const script = `await import(${JSON.stringify(path.join(ROOT, 'src/runtime/logger.ts'))});
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /opentelemetry|bullmq-otel|import-in-the-middle/.test(k));
      console.log(JSON.stringify({ hooks: globalThis[Symbol.for('holdfast.tracing')] !== undefined, loaded }));`;
    const env = { ...process.env };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--import', path.join(ROOT, 'src/runtime/tracing-register.ts'), '--input-type=module', '-e', script],
      { cwd: ROOT, env, encoding: 'utf8' },
    );
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { hooks: false, loaded: [] });
  });
});
