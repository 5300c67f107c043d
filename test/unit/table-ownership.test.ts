import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every table has one owner: a module (a folder of src/) whose files alone name it in SQL. A
 * statement that needs another module's rows goes through a fragment that module's repository
 * exports. Pure: reads the source files, touches no database.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Table → the module (folder of src/) that owns it. A new migration's table must be added here. */
const OWNER: Record<string, string> = {
  integrator: 'integrators',
  client: 'auth',
  signing_key: 'auth',
  revoked_session: 'auth',
  user_session_nonce: 'sessions',
  refresh_token: 'sessions',
  account: 'accounts',
  account_external_platform: 'accounts',
  account_block: 'accounts',
  account_tag: 'accounts',
  payment_method: 'payment-methods',
  tos_version: 'tos',
  tos_signature: 'tos',
  ledger_account: 'ledger',
  ledger_posting: 'ledger',
  ledger_entry: 'ledger',
  invoice: 'invoices',
  escrow: 'escrow',
  command: 'commands',
  outbox: 'webhooks',
  webhook_endpoint: 'webhooks',
  webhook_delivery: 'webhooks',
  webhook_attempt: 'webhooks',
  idempotency_key: 'idempotency',
  sandbox_clock: 'sandbox',
  kyc_check: 'kyc',
  kyc_personal_data: 'kyc',
  payout: 'payouts',
  token_exchange: 'tokens',
  environment: 'environment',
  provider_object: 'rails',
  provider_event: 'provider-events',
  dispute: 'disputes',
  dispute_hold: 'disputes',
  console_user: 'console',
  console_session: 'console',
  audit_record: 'audit',
  audit_chain: 'audit',
};

/**
 * Tables whose rows of one kind another module owns, with why: that module's repository names
 * the table for those rows, and no other file of it does.
 */
const SHARED: Record<string, Record<string, string>> = {
  invoice: { refunds: 'refund invoices (user_refund…, refunded_invoice_id set) are the refunds module’s rows' },
};

/** Whether module `m` owns table `t` (or rows of it: SHARED). */
const owns = (m: string | null, t: string) => m !== null && (OWNER[t] === m || SHARED[t]?.[m] !== undefined);

/**
 * Known debt: `file → tables of other modules it names`, each line one to pay off. The check
 * fails when a file names a table not listed for it, and when a listed one is no longer named
 * (so the list only shrinks).
 */
const ALLOWED: Record<string, string[]> = {};

/** Known debt: files that use another module's entities at run time (MikroORM then names that module's tables). */
const ALLOWED_ENTITY_USE: Record<string, string[]> = {};

/** The modules whose entities a source text imports as values (type-only imports name no table). */
function entityModulesUsed(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'\.\.\/([\w-]+)\/[\w.-]+\.entity\.js';/gm)) {
    if (m[1]) continue;
    const values = m[2]
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n && !n.startsWith('type '));
    if (values.length) found.add(m[3]);
  }
  return [...found].sort();
}

/** Modules converted to repositories: inside them only `*.repository.ts` names the module's tables. */
const REPOSITORY_ONLY: string[] = [
  'accounts',
  'auth',
  'commands',
  'escrow',
  'idempotency',
  'integrators',
  'invoices',
  'ledger',
  'payment-methods',
  'provider-events',
  'refunds',
  'sandbox',
  'sessions',
  'tokens',
  'tos',
  'webhooks',
];

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return rel === 'src/migrations' ? [] : files(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/**
 * The string literals of a source text (a template's text between its `${…}`), comments left
 * out: SQL lives in literals, and prose in comments ("moves money from escrow") is not SQL.
 */
function literals(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const template = (): void => {
    let part = '';
    for (i++; i < text.length && text[i] !== '`'; i++) {
      if (text[i] === '\\') part += text[i++] + text[i];
      else if (text[i] === '$' && text[i + 1] === '{') {
        out.push(part);
        part = '';
        i += 2;
        code('}');
      } else part += text[i];
    }
    out.push(part);
  };
  const code = (until?: string): void => {
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
      else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i + 2) + 1;
      else if (c === '`') template();
      else if (c === "'" || c === '"') {
        let part = '';
        for (i++; i < text.length && text[i] !== c; i++) part += text[i] === '\\' ? text[i++] + text[i] : text[i];
        out.push(part);
      } else if (c === '{') depth++;
      else if (c === '}' && until && depth-- === 0) return;
    }
  };
  code();
  return out;
}

/** A literal that reads as SQL (a statement or a fragment of one), not a message. */
const SQLISH = /\b(select|insert\s+into|update\s+\w+\s+set|delete\s+from|join|where|returning|references)\b/i;

/** Tables a source text names where SQL puts a table: from, join, into, update, delete from, references. */
function tablesNamed(text: string): string[] {
  const found = new Set<string>();
  for (const literal of literals(text).filter((l) => SQLISH.test(l))) {
    for (const m of literal.matchAll(/\b(?:from|join|into|update|references)\s+"?([a-z_]+)"?/gi)) {
      const table = m[1].toLowerCase();
      if (table in OWNER) found.add(table);
    }
  }
  return [...found].sort();
}

/** The module a file belongs to (its folder under src/), or null for src/ files outside a module and workers/. */
function moduleOf(file: string): string | null {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? parts[1] : null;
}

describe('table ownership', () => {
  const sources = [...files('src'), ...files('workers')];

  it('knows the owner of every table the migrations create', () => {
    const created = new Set<string>();
    for (const file of readdirSync(path.join(ROOT, 'src/migrations'))) {
      for (const m of readFileSync(path.join(ROOT, 'src/migrations', file), 'utf8').matchAll(/create table (\w+)/g)) created.add(m[1]);
    }
    assert.deepEqual(
      [...created].filter((t) => !(t in OWNER)),
      [],
      'give each new table an owner in OWNER',
    );
    assert.deepEqual(
      Object.keys(OWNER).filter((t) => !created.has(t)),
      [],
      'OWNER names a table no migration creates',
    );
  });

  it('reads table names in SQL positions only', () => {
    assert.deepEqual(tablesNamed(`const q = 'select a.id from account a join ledger_account l on true';`), ['account', 'ledger_account']);
    assert.deepEqual(
      tablesNamed(
        'db.execute(`insert into outbox (id) values (?)`); db.execute("update escrow set x = 1"); const d = `delete from command`;',
      ),
      ['command', 'escrow', 'outbox'],
    );
    assert.deepEqual(
      tablesNamed(
        `import { x } from './account.js'; // select from escrow\n/* select into invoice */ const s = 'references integrator (id)';`,
      ),
      ['integrator'],
    );
    assert.deepEqual(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the input is source text holding a template literal
      tablesNamed('const m = `The account has money in escrow (${n} of them); commit them first.`;'),
      [],
      'a message is not SQL',
    );
    assert.deepEqual(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the input is source text holding a template literal
      tablesNamed("const q = `select ${cols} from payment_method pm where pm.id = ${x ? `(select 1 from tos_version)` : '?'}`;"),
      ['payment_method', 'tos_version'],
    );
  });

  it("finds no file naming another module's tables beyond the known debt", () => {
    const found: Record<string, string[]> = {};
    for (const file of sources) {
      const own = moduleOf(file);
      const foreign = tablesNamed(readFileSync(path.join(ROOT, file), 'utf8')).filter((t) => !owns(own, t));
      if (foreign.length) found[file] = foreign;
    }
    assert.deepEqual(
      found,
      ALLOWED,
      "a file names tables another module owns: use that module's repository (or a fragment it exports); when you removed debt, shrink ALLOWED",
    );
  });

  it('reads value imports of entities, not type-only ones', () => {
    assert.deepEqual(
      entityModulesUsed(
        `import { Invoice } from '../invoices/invoice.entity.js';\nimport type { IAccount } from '../accounts/account.entity.js';\nimport { type IEscrow } from '../escrow/escrow.entity.js';`,
      ),
      ['invoices'],
    );
  });

  it("finds no file using another module's entities beyond the known debt", () => {
    const found: Record<string, string[]> = {};
    for (const file of sources) {
      if (file.endsWith('.entity.ts')) continue;
      const own = moduleOf(file);
      const foreign = entityModulesUsed(readFileSync(path.join(ROOT, file), 'utf8')).filter((m) => m !== own);
      if (foreign.length) found[file] = foreign;
    }
    assert.deepEqual(found, ALLOWED_ENTITY_USE, "use the owning module's service instead of its entities");
  });

  it('lets only the repositories of converted modules name their tables', () => {
    const found: string[] = [];
    for (const file of sources) {
      const own = moduleOf(file);
      if (!own || !REPOSITORY_ONLY.includes(own) || file.endsWith('.repository.ts')) continue;
      const mine = tablesNamed(readFileSync(path.join(ROOT, file), 'utf8')).filter((t) => owns(own, t));
      if (mine.length) found.push(`${file}: ${mine.join(', ')}`);
    }
    assert.deepEqual(found, []);
  });
});
