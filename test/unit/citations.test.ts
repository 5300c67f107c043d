import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every text file under these folders, and these files. */
const ROOTS = ['src', 'workers', 'config', 'test', 'bench', 'bin', 'openapi', 'docs', 'README.md'];
const SKIP = new Set(['node_modules', 'dist', '.data']);

function files(entry: string): string[] {
  if (statSync(entry).isFile()) return [entry];
  return readdirSync(entry).flatMap((name) => (SKIP.has(name) ? [] : files(path.join(entry, name))));
}

describe('the repository explains itself', () => {
  it('cites no section of documents outside it (the product or design documents)', () => {
    // Built so that this file does not match itself.
    const citation = new RegExp(['DESIGN', 'spec', 'Spec'].map((w) => `\\b${w} §`).join('|'));
    const found = ROOTS.flatMap(files)
      .filter((file) => /\.(ts|js|cjs|mjs|yaml|md|html|css|json)$/.test(file))
      .filter((file) => citation.test(readFileSync(file, 'utf8')));
    assert.deepEqual(found, [], 'point to docs/ or an operation id instead');
  });
});
