import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { COMMAND_KINDS } from '../../src/commands/command.registry.js';
import { httpMethods, type OpenApiDocument } from '../../src/http/openapi.js';

/**
 * Docs that cannot drift: docs/architecture.md's module table, its list of command kinds and its
 * table from endpoints to their code are checked against src/, `COMMAND_KINDS` and the OpenAPI
 * documents, both ways; and every code fence of README.md and docs/ closes where it should.
 * Pure: reads files, touches no database. The helpers below are tested first on small samples,
 * so each check is shown catching its breach.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARCHITECTURE = 'docs/architecture.md';

// ---------------------------------------------------------------------------------------------
// Helpers (pure: text in, problems out)

/** The lines of the `## <title>` section of a Markdown text (up to the next heading of level 1 or 2), with the line number of each. */
function section(text: string, title: string): Array<{ line: number; text: string }> {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) return [];
  const out: Array<{ line: number; text: string }> = [];
  for (let i = start + 1; i < lines.length && !/^#{1,2} /.test(lines[i]); i++) out.push({ line: i + 1, text: lines[i] });
  return out;
}

/** The cells of a Markdown table row (`| a | b |`), split at pipes outside code spans and not escaped; null for other lines. */
function tableCells(line: string): string[] | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('|')) return null;
  const cells: string[] = [];
  let cell = '';
  let inCode = false;
  for (let i = 1; i < trimmed.length; i++) {
    const c = trimmed[i];
    if (c === '\\' && trimmed[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '`') {
      inCode = !inCode;
      cell += c;
    } else if (c === '|' && !inCode) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  if (cell.trim()) cells.push(cell.trim());
  return cells;
}

/** The table rows of a section (the header and `---` lines left out), each with its line number. */
function tableRows(lines: Array<{ line: number; text: string }>): Array<{ line: number; cells: string[]; header: string[] }> {
  const rows: Array<{ line: number; cells: string[]; header: string[] }> = [];
  let header: string[] | null = null;
  for (const { line, text } of lines) {
    const cells = tableCells(text);
    if (!cells) {
      header = null;
      continue;
    }
    if (!header) header = cells;
    else if (!cells.every((c) => /^:?-+:?$/.test(c))) rows.push({ line, cells, header });
  }
  return rows;
}

/** The code spans of a cell (`a`, `b` → ['a', 'b']). */
const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/**
 * The fences of a Markdown text that do not close where they should: a fence (``` or ~~~, 3 or
 * more, any indentation, an optional info string) must end at a line of only the same character,
 * at least as many, and spaces. A line that would close it but carries text after the fence is a
 * problem (Markdown reads it as code and the fence runs on, swallowing the text after it); the
 * check then takes it as the close, so one slip is reported once. A fence still open at the end
 * is a problem too.
 */
function fenceProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  let open: { char: string; length: number; line: number } | null = null;
  text.split(/\r?\n/).forEach((content, index) => {
    const line = index + 1;
    const m = /^\s*(`{3,}|~{3,})(.*)$/.exec(content);
    if (!m) return;
    const [, fence, rest] = m;
    if (!open) {
      // A backtick fence's info string holds no backtick (```a``` starting a line is inline code).
      if (fence[0] === '`' && rest.includes('`')) return;
      open = { char: fence[0], length: fence.length, line };
      return;
    }
    if (fence[0] !== open.char || fence.length < open.length) return; // code inside the fence
    if (rest.trim() !== '')
      problems.push(`${file}:${line}: the fence opened at line ${open.line} is closed by a line that carries text: ${content.trim()}`);
    open = null;
  });
  if (open) problems.push(`${file}:${(open as { line: number }).line}: this fence is never closed`);
  return problems;
}

/**
 * The module table of docs/architecture.md (`## Modules`) against the folders: one row for each
 * folder of src/, and no row for a folder that does not exist. `exists` answers for a row's path
 * (relative to the repository).
 */
function moduleRowProblems(doc: string, srcFolders: string[], exists: (folder: string) => boolean): string[] {
  if (!section(doc, 'Modules').length) return [`${ARCHITECTURE} has no "## Modules" section`];
  const rows = tableRows(section(doc, 'Modules'))
    .map((r) => /^`([^`]+\/)`$/.exec(r.cells[0])?.[1])
    .filter((folder): folder is string => folder !== undefined);
  const problems: string[] = [];
  for (const folder of srcFolders.map((f) => `src/${f}/`)) {
    const count = rows.filter((r) => r === folder).length;
    if (count === 0) problems.push(`${ARCHITECTURE} has no module row for ${folder}`);
    if (count > 1) problems.push(`${ARCHITECTURE} has ${count} module rows for ${folder}`);
  }
  for (const folder of new Set(rows)) {
    if (!exists(folder)) problems.push(`${ARCHITECTURE} has a module row for ${folder}, which does not exist`);
  }
  return problems;
}

/**
 * The command kinds of docs/architecture.md (`## Commands`: a table whose first cell is a kind,
 * the second its runner's file) against `kinds`: a row for each kind, none for another, and the
 * file named must register the kind. `registers(file, kind)` answers for a file of the repository.
 */
function commandKindProblems(doc: string, kinds: readonly string[], registers: (file: string, kind: string) => boolean): string[] {
  if (!section(doc, 'Commands').length) return [`${ARCHITECTURE} has no "## Commands" section`];
  const rows = tableRows(section(doc, 'Commands')).map((r) => ({ kind: codeSpans(r.cells[0])[0], files: codeSpans(r.cells[1] ?? '') }));
  const problems: string[] = [];
  for (const kind of kinds) {
    if (!rows.some((r) => r.kind === kind)) problems.push(`${ARCHITECTURE}'s Commands section has no row for the command kind ${kind}`);
  }
  for (const { kind, files } of rows) {
    if (kind === undefined) continue;
    if (!kinds.includes(kind)) {
      problems.push(`${ARCHITECTURE}'s Commands section names ${kind}, which is not in COMMAND_KINDS`);
      continue;
    }
    const file = files.find((f) => f.endsWith('.commands.ts'));
    if (!file) problems.push(`${ARCHITECTURE}'s Commands section names no *.commands.ts file for ${kind}`);
    else if (!registers(file, kind))
      problems.push(`${ARCHITECTURE} names ${file} as the runner of ${kind}, but that file does not register it`);
  }
  return problems;
}

/**
 * The table of docs/architecture.md's `## From an endpoint to its rule` against the operations
 * of the OpenAPI documents: each operation named (a code span in the Operations column) in a row
 * of its own document (the Document cell, or the last one above it), and no operation named
 * there that no document defines.
 */
function operationProblems(doc: string, operations: Array<{ id: string; document: string }>): string[] {
  const TITLE = 'From an endpoint to its rule';
  if (!section(doc, TITLE).length) return [`${ARCHITECTURE} has no "## ${TITLE}" section`];
  const named = new Map<string, string[]>(); // operation id → the documents of the rows naming it
  let document = '';
  for (const row of tableRows(section(doc, TITLE))) {
    const column = row.header.indexOf('Operations');
    const docColumn = row.header.indexOf('Document');
    if (column < 0 || docColumn < 0) continue;
    const cell = row.cells[docColumn] ?? '';
    if (cell) document = codeSpans(cell)[0] ?? cell;
    for (const id of codeSpans(row.cells[column] ?? '').filter((s) => /^[a-z][A-Za-z0-9]*$/.test(s))) {
      named.set(id, [...(named.get(id) ?? []), document]);
    }
  }
  const problems: string[] = [];
  for (const { id, document: file } of operations) {
    const rows = named.get(id);
    if (!rows) problems.push(`${ARCHITECTURE}'s "${TITLE}" table has no row for the operation ${id} (${file})`);
    else if (!rows.includes(file)) problems.push(`${ARCHITECTURE}'s "${TITLE}" table names ${id} under ${rows.join(', ')}, not ${file}`);
  }
  const defined = new Set(operations.map((o) => o.id));
  for (const id of named.keys()) {
    if (!defined.has(id)) problems.push(`${ARCHITECTURE}'s "${TITLE}" table names the operation ${id}, which no openapi/*.yaml defines`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The repository's own files

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** README.md and every Markdown file under docs/, relative to the repository. */
function markdownFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir)).flatMap((name) => {
      const file = `${dir}/${name}`;
      if (statSync(path.join(ROOT, file)).isDirectory()) return under(file);
      return name.endsWith('.md') ? [file] : [];
    });
  return ['README.md', ...under('docs')];
}

/** Every operation of every openapi/*.yaml, with its document's path. */
async function openapiOperations(): Promise<Array<{ id: string; document: string }>> {
  const operations: Array<{ id: string; document: string }> = [];
  for (const name of readdirSync(path.join(ROOT, 'openapi')).filter((f) => f.endsWith('.yaml'))) {
    const document = `openapi/${name}`;
    const parsed = (await $RefParser.parse(path.join(ROOT, document))) as unknown as OpenApiDocument;
    for (const item of Object.values(parsed.paths ?? {})) {
      for (const method of httpMethods) {
        const id = item[method]?.operationId;
        if (typeof id === 'string') operations.push({ id, document });
      }
    }
  }
  return operations;
}

/**
 * The repository paths a Markdown text names in code spans (`src/…`, `workers/…`, `test/…`,
 * `bench/…`, `openapi/…`, `config/…`, `docs/…`: a file with an extension or a folder ending in `/`)
 * that do not exist, as `file: path`. Globs and placeholders (`*`, `<…>`, `{…}`, `…`) are left out.
 */
function missingPaths(file: string, text: string, exists: (p: string) => boolean): string[] {
  const problems: string[] = [];
  for (const m of text.matchAll(/`((?:src|workers|test|bench|openapi|config|docs)\/[^`\s]*)`/g)) {
    const named = m[1].replace(/[:#].*$/, '');
    if (/[*<>{}…]/.test(named) || !(/\.[a-z]+$/.test(named) || named.endsWith('/'))) continue;
    if (!exists(named)) problems.push(`${file}: ${named} does not exist`);
  }
  return [...new Set(problems)];
}

// ---------------------------------------------------------------------------------------------

describe('docs that cannot drift', () => {
  describe('the checks, on samples', () => {
    it('a fence closed by a line carrying text is named by file and line; one never closed is named where it opens', () => {
      const broken = ['text', '```sh', 'npm start', '``` More text that Markdown would swallow', 'text', '```', 'open'].join('\n');
      assert.deepEqual(fenceProblems('x.md', broken), [
        'x.md:4: the fence opened at line 2 is closed by a line that carries text: ``` More text that Markdown would swallow',
        'x.md:6: this fence is never closed',
      ]);
      assert.deepEqual(fenceProblems('x.md', '~~~\ncode\n~~~ not closed'), [
        'x.md:3: the fence opened at line 1 is closed by a line that carries text: ~~~ not closed',
      ]);
    });

    it('fences that close well pass: info strings, ~~~, longer fences holding shorter ones, indented fences, trailing spaces', () => {
      const good = [
        '```sh',
        'echo',
        '```',
        '~~~~',
        '~~~ inside',
        '```',
        '~~~~~  ',
        '- a list item:',
        '',
        '  ```json',
        '  {}',
        '  ```',
        '````md',
        '```sh',
        'x',
        '```',
        '````',
        '```inline``` is no fence',
      ].join('\n');
      assert.deepEqual(fenceProblems('ok.md', good), []);
      // The indented fence's close carrying text is caught too.
      assert.deepEqual(fenceProblems('i.md', '- item\n\n  ```\n  code\n  ``` and text'), [
        'i.md:5: the fence opened at line 3 is closed by a line that carries text: ``` and text',
      ]);
    });

    it('a path named in a code span that does not exist is named; globs, placeholders and bare names are left alone', () => {
      const text =
        'See `src/escrow/escrow.service.ts`, `src/gone/old.service.ts`, `src/kyc/`, `src/*.ts`, `src/<module>/x.ts`, `escrow.rules.ts` and `src/old/`.';
      const exists = (p: string) => ['src/escrow/escrow.service.ts', 'src/kyc/'].includes(p);
      assert.deepEqual(missingPaths('x.md', text, exists), [
        'x.md: src/gone/old.service.ts does not exist',
        'x.md: src/old/ does not exist',
      ]);
    });

    const modules = [
      '## Modules',
      '',
      '| Folder | What |',
      '| --- | --- |',
      '| `src/accounts/` | accounts |',
      '| `src/gone/` | a folder that was removed |',
      '| `workers/` | workers |',
      '',
      '## Next',
      '| `src/kyc/` | a row of another section does not count |',
    ].join('\n');

    it('a folder of src/ without a module row, and a row for a folder that is gone, are named', () => {
      const exists = (folder: string) => ['src/accounts/', 'src/kyc/', 'workers/'].includes(folder);
      assert.deepEqual(moduleRowProblems(modules, ['accounts', 'kyc'], exists), [
        'docs/architecture.md has no module row for src/kyc/',
        'docs/architecture.md has a module row for src/gone/, which does not exist',
      ]);
      assert.deepEqual(moduleRowProblems(modules.replace('`src/gone/`', '`src/kyc/`'), ['accounts', 'kyc'], exists), []);
      assert.deepEqual(
        moduleRowProblems(modules.replace('## Modules', '## Folders'), ['accounts'], () => true),
        ['docs/architecture.md has no "## Modules" section'],
      );
      assert.deepEqual(
        moduleRowProblems(`${modules.split('## Next')[0].trimEnd()}\n| \`src/accounts/\` | again |`, ['accounts'], () => true),
        ['docs/architecture.md has 2 module rows for src/accounts/'],
      );
    });

    it('a command kind without a row, a row for no kind, and a runner file that does not register its kind are named', () => {
      const commands = [
        '## Commands',
        '| Kind | Runner | Started by |',
        '| --- | --- | --- |',
        '| `escrow.pay` | `src/escrow/escrow.commands.ts` | `payEscrow` |',
        '| `escrow.refund` | `src/escrow/escrow.commands.ts` | nothing |',
        '| `invoice.pay` | `src/escrow/escrow.commands.ts` | `payInvoice` |',
      ].join('\n');
      const registers = (file: string, kind: string) => file === 'src/escrow/escrow.commands.ts' && kind.startsWith('escrow.');
      assert.deepEqual(commandKindProblems(commands, ['escrow.pay', 'escrow.cancel', 'invoice.pay'], registers), [
        "docs/architecture.md's Commands section has no row for the command kind escrow.cancel",
        "docs/architecture.md's Commands section names escrow.refund, which is not in COMMAND_KINDS",
        'docs/architecture.md names src/escrow/escrow.commands.ts as the runner of invoice.pay, but that file does not register it',
      ]);
    });

    it('an operation missing from the endpoint table, one under the wrong document, and one no document defines are named', () => {
      const endpoints = [
        '## From an endpoint to its rule',
        '',
        '| Document | Paths | Operations | Module |',
        '| --- | --- | --- | --- |',
        '| `openapi/a.yaml` | `/x` | `getX`, `putX` | x |',
        '| | `/y` | `getY`, `removedOp` | y |',
        '| `openapi/b.yaml` | `/z` | `getZ` | z |',
        '| not in OpenAPI | `/ui/…` | the hosted pages | web |',
      ].join('\n');
      const operations = [
        { id: 'getX', document: 'openapi/a.yaml' },
        { id: 'putX', document: 'openapi/a.yaml' },
        { id: 'getY', document: 'openapi/a.yaml' },
        { id: 'getZ', document: 'openapi/a.yaml' },
        { id: 'refundX', document: 'openapi/b.yaml' },
      ];
      assert.deepEqual(operationProblems(endpoints, operations), [
        `docs/architecture.md's "From an endpoint to its rule" table names getZ under openapi/b.yaml, not openapi/a.yaml`,
        `docs/architecture.md's "From an endpoint to its rule" table has no row for the operation refundX (openapi/b.yaml)`,
        `docs/architecture.md's "From an endpoint to its rule" table names the operation removedOp, which no openapi/*.yaml defines`,
      ]);
    });
  });

  describe('the repository', () => {
    const architecture = read(ARCHITECTURE);

    it('every code fence of README.md and docs/ closes on a line of its own', () => {
      const files = markdownFiles();
      assert.ok(files.includes('docs/architecture.md'));
      assert.deepEqual(
        files.flatMap((file) => fenceProblems(file, read(file))),
        [],
      );
    });

    it('every repository path README.md and docs/ name exists', () => {
      const exists = (p: string) => existsSync(path.join(ROOT, p));
      assert.deepEqual(
        markdownFiles().flatMap((file) => missingPaths(file, read(file), exists)),
        [],
      );
    });

    it("docs/architecture.md's module table has one row for each folder of src/, and none for a folder that is gone", () => {
      const folders = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
      assert.ok(folders.includes('accounts'));
      const exists = (folder: string) => existsSync(path.join(ROOT, folder)) && statSync(path.join(ROOT, folder)).isDirectory();
      assert.deepEqual(moduleRowProblems(architecture, folders, exists), []);
    });

    it("docs/architecture.md's Commands section lists every command kind with the file that registers its runner", () => {
      const registers = (file: string, kind: string) =>
        existsSync(path.join(ROOT, file)) && new RegExp(`^\\s*'${kind.replace('.', '\\.')}':`, 'm').test(read(file));
      assert.deepEqual(commandKindProblems(architecture, COMMAND_KINDS, registers), []);
    });

    it('docs/architecture.md names every OpenAPI operation in its endpoint table, under its document, and no other', async () => {
      const operations = await openapiOperations();
      assert.ok(operations.length > 0);
      assert.deepEqual(operationProblems(architecture, operations), []);
    });
  });
});
