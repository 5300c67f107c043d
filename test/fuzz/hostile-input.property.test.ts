/**
 * Hostile values in every field the OpenAPI documents describe: every string, number, array and
 * object field of every request body (and the body itself), every query parameter and form
 * field, gets each hostile value of the pool, in a valid request of its operation
 * (test/support/operations.ts); then fast-check mixes several at once. Whatever the answer, it is
 * never a 5xx, it matches the documents (the harness checks every response), and no prototype
 * is polluted.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpMethods, loadMergedDocument } from '../../src/http/openapi.js';
import { call, newClient, unique, type TestClient } from '../support/harness.js';
import { fixtureFor, operations, sampleRequest, type Fixture, type Operation } from '../support/operations.js';

type Path = Array<string | number>;

interface Slot {
  path: Path;
  /** An object (or a free-form object such as metadata): hostile keys are added to it. */
  object: boolean;
  /** An array or the body: huge values go there. */
  array: boolean;
  number: boolean;
}

interface Target {
  op: Operation;
  /** The media type of the body (`undefined`: the operation takes no body; any is refused). */
  media: string | undefined;
  slots: Slot[];
  query: string[];
}

/** `levels` nested containers as JSON text: JSON.stringify cannot even write it. */
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}0${'}'.repeat(levels)}`;
/** An array of `n` items as JSON text (about `n * item.length` bytes). */
const hugeArray = (n: number, item: string) => `[${Array(n).fill(item).join(',')}]`;

/** Values put in place of any field, as raw JSON text (escapes kept as sent). */
const VALUES: Record<string, string> = {
  nul: '"a\\u0000b"',
  onlyNul: '"\\u0000"',
  loneHigh: '"a\\ud800b"',
  loneLow: '"\\udc00"',
  reversedPair: '"\\ude00\\ud83d"',
  deepArray: deepArray(5000),
  deepObject: deepObject(5000),
  protoObject: '{"__proto__":{"polluted":true,"username":"p","amount":1,"is_operator":true}}',
  constructorObject: '{"constructor":{"prototype":{"polluted":true}}}',
  overSafe: '9007199254740993',
  overDouble: '1e400',
};

/** More values for number fields. */
const NUMBERS: Record<string, string> = {
  maxSafe: '9007199254740991',
  negativeOverSafe: '-9007199254740993',
  int64Overflow: '18446744073709551617',
  longDigits: '123456789012345678901234567890123456789',
  negativeOverDouble: '-1e400',
  underflow: '1e-400',
  fraction: '1.5',
  negativeZero: '-0',
};

/** More values for arrays and the body itself: up to near the 1 MiB limit, so each reaches the parser and the validation. */
const HUGE: Record<string, string> = {
  hugeNumbers: hugeArray(300_000, '9'),
  hugeObjects: hugeArray(30_000, '{"a":1}'),
  hugeStrings: hugeArray(30_000, '"\\ud83d\\ude00xx"'),
};

const ALL_VALUES: Record<string, string> = { ...VALUES, ...NUMBERS, ...HUGE };

/** Entries added to an object field, as raw JSON text. */
const ENTRIES: Record<string, string> = {
  nulKey: '"\\u0000":1',
  nulInKey: '"k\\u0000":"v"',
  loneSurrogateKey: '"k\\ud800":"v"',
  nulValue: '"note":"\\u0000"',
  loneSurrogateValue: '"note":"\\udfff"',
  protoKey: '"__proto__":{"polluted":true,"is_operator":true}',
  constructorKey: '"constructor":{"prototype":{"polluted":true}}',
  prototypeKey: '"prototype":{"polluted":true}',
  deepValue: `"deep":${deepObject(5000)}`,
  hugeValue: `"huge":${hugeArray(100_000, '0')}`,
  overDoubleValue: '"n":1e400',
  overSafeValue: '"n":9007199254740993',
};

/** Form and query values (URL-encoded). */
const FORM_VALUES: Record<string, string> = {
  nul: 'a%00b',
  invalidUtf8: '%ED%A0%80',
  emoji: '%F0%9F%98%80',
  overSafe: '9007199254740993',
  overDouble: '1e400',
};
const FORM_KEYS = ['__proto__', 'constructor', 'a%00b', 'hasOwnProperty'];
/** Path parameter values (URL-encoded). */
const PATH_VALUES = ['%00', 'a%00b', '%ED%A0%80', '%F0%9F%98%80', '__proto__', 'constructor', '%E0%A4%A', 'x'.repeat(2000)];

/** Every field of a request body schema, the body itself first (paths with 0 for array items). */
function slotsOf(schema: any, path: Path = [], out = new Map<string, Slot>(), seen = new Set<unknown>()): Map<string, Slot> {
  if (!schema || typeof schema !== 'object' || seen.has(schema) || path.length > 8) return out;
  const inner = new Set(seen).add(schema);
  const key = JSON.stringify(path);
  const types = [schema.type].flat();
  const object = types.includes('object') || schema.properties !== undefined || schema.additionalProperties !== undefined;
  const slot = out.get(key) ?? { path, object: false, array: !path.length, number: false };
  slot.object ||= object;
  slot.array ||= types.includes('array') || schema.items !== undefined;
  slot.number ||= types.includes('integer') || types.includes('number');
  out.set(key, slot);
  if (schema.items) slotsOf(schema.items, [...path, 0], out, inner);
  for (const [name, sub] of Object.entries(schema.properties ?? {})) slotsOf(sub, [...path, name], out, inner);
  for (const k of ['allOf', 'oneOf', 'anyOf']) for (const sub of schema[k] ?? []) slotsOf(sub, path, out, inner);
  for (const k of ['then', 'else']) if (schema[k]) slotsOf(schema[k], path, out, inner);
  return out;
}

async function targets(): Promise<Target[]> {
  const doc = await loadMergedDocument();
  const out: Target[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of httpMethods) {
      const op = item[method];
      if (!op) continue;
      const security = op.security as Array<Record<string, string[]>> | undefined;
      const operation: Operation = {
        method: method.toUpperCase(),
        template,
        operationId: op.operationId,
        scopes: security?.find((s) => s.svc_auth)?.svc_auth,
        userScopes: security?.find((s) => s.user_auth)?.user_auth,
      };
      const query = (op.parameters ?? []).filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name);
      const content = Object.entries<{ schema: object }>(op.requestBody?.content ?? {});
      for (const [media, { schema }] of content) out.push({ op: operation, media, slots: [...slotsOf(schema).values()], query });
      // A body sent to an operation that takes none is refused too: the body itself is the one slot.
      if (!content.length && method !== 'get')
        out.push({ op: operation, media: undefined, slots: [{ path: [], object: true, array: true, number: false }], query });
      // Every operation refuses an unknown query parameter: GET ones are sent that at least.
      else if (!content.length) out.push({ op: operation, media: undefined, slots: [], query });
    }
  }
  return out;
}

const HOLE = '@@hostile@@';

/** Sets `path` in `body` to `value`, making the objects and arrays on the way. */
function setAt(body: unknown, path: Path, value: unknown): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  const container = (body !== null && typeof body === 'object' ? body : typeof head === 'number' ? [] : {}) as Record<
    string | number,
    unknown
  >;
  container[head] = setAt(container[head], rest, value);
  return container;
}

function getAt(body: unknown, path: Path): unknown {
  return path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[k] : undefined),
    body,
  );
}

interface Mutation {
  path: Path;
  /** A value that replaces the field, or an entry added to the object field. */
  kind: 'value' | 'entry';
  name: string;
}

/** The base body with the mutations applied, as JSON text (raw hostile text spliced in). */
function mutatedJson(base: unknown, mutations: Mutation[]): string {
  let body: unknown = structuredClone(base ?? {});
  const raws: string[] = [];
  for (const m of mutations) {
    const hole = `${HOLE}${raws.length}`;
    if (m.kind === 'value') {
      body = setAt(body, m.path, hole);
      raws.push(ALL_VALUES[m.name]);
    } else {
      const current = getAt(body, m.path);
      const object = current !== null && typeof current === 'object' && !Array.isArray(current) ? current : {};
      body = setAt(body, m.path, { ...object, [hole]: 0 });
      raws.push(ENTRIES[m.name]);
    }
  }
  let text = JSON.stringify(body);
  // A later mutation may have replaced an earlier one's field: only the holes left are filled.
  raws.forEach((raw, i) => {
    text = text.replace(`"${HOLE}${i}":0`, raw).replace(`"${HOLE}${i}"`, raw);
  });
  return text;
}

function formText(base: Record<string, string>, field: string, value: string): string {
  const params = new URLSearchParams(base);
  params.delete(field);
  const rest = params.toString();
  return `${rest}${rest ? '&' : ''}${field}=${value}`;
}

describe('hostile input in every field of every operation (OpenAPI-driven)', () => {
  let client: TestClient;
  let fixture: Fixture;
  let all: Target[];
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  const failures: string[] = [];
  let sent = 0;

  before(async function () {
    this.timeout(60_000);
    client = await newClient({ isOperator: true, canUnblock: true });
    fixture = await fixtureFor(client);
    all = await targets();
  });

  /** A valid request of the target's operation, as the scope and tenant matrices send it. */
  function base(t: Target): { path: string; body?: unknown } {
    if (t.op.operationId === 'issueToken') {
      return {
        path: t.op.template,
        body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
      };
    }
    const sample = sampleRequest(t.op, fixture);
    // A registration must be unique to be accepted: a fresh one each time.
    if (t.op.operationId === 'registerAccount') {
      const name = unique('hostile');
      return { path: sample.path, body: { username: name, email: { address: `${name}@example.com` } } };
    }
    return sample;
  }

  async function send(label: string, method: string, path: string, rawBody: string | undefined, type = 'application/json') {
    sent += 1;
    try {
      const res = await call(method, path, {
        token: client.token,
        rawBody,
        headers: rawBody === undefined ? {} : { 'content-type': type },
      });
      if (res.status >= 500) failures.push(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
    } catch (err) {
      // The harness's contract check, or the connection itself.
      failures.push(`${label}: ${(err as Error).message.slice(0, 300)}`);
    }
  }

  it('covers every operation of the documents, and more than 150 body fields', async () => {
    const documented = (await operations()).map((op) => op.operationId).sort();
    assert.deepEqual([...new Set(all.map((t) => t.op.operationId))].sort(), documented);
    assert.ok(all.reduce((n, t) => n + t.slots.length, 0) > 150);
  });

  it('every hostile value in every field, one at a time: never a 5xx', async function () {
    this.timeout(180_000);
    const queried = new Set<string>();
    for (const t of all) {
      const { path, body } = base(t);
      const label = (what: string) => `${t.op.method} ${t.op.template} ${t.media ?? '(no body)'} ${what}`;
      if (t.media === 'application/x-www-form-urlencoded') {
        const form = body as Record<string, string>;
        for (const field of t.slots.map((s) => s.path.join('.')).filter(Boolean))
          for (const [name, value] of Object.entries(FORM_VALUES))
            await send(label(`${field}=${name}`), t.op.method, path, formText(form, field, value), t.media);
        for (const key of FORM_KEYS) await send(label(`key ${key}`), t.op.method, path, formText(form, key, 'x'), t.media);
        continue;
      }
      for (const slot of t.slots) {
        const field = slot.path.join('.') || 'body';
        const at = t.media === undefined ? {} : body;
        const values =
          t.media === undefined
            ? []
            : [...Object.keys(VALUES), ...(slot.number ? Object.keys(NUMBERS) : []), ...(slot.array ? Object.keys(HUGE) : [])];
        for (const name of values)
          await send(label(`${field}=${name}`), t.op.method, path, mutatedJson(at, [{ path: slot.path, kind: 'value', name }]));
        if (slot.object)
          for (const name of Object.keys(ENTRIES))
            await send(label(`${field} + ${name}`), t.op.method, path, mutatedJson(at, [{ path: slot.path, kind: 'entry', name }]));
      }
      if (queried.has(t.op.operationId)) continue;
      queried.add(t.op.operationId);
      // Each path parameter: hostile text where an id, a capability… goes.
      for (const param of t.op.template.match(/\{[^}]+\}/g) ?? []) {
        const at = t.op.template.split('/').indexOf(param);
        for (const value of PATH_VALUES) {
          const segments = path.split('?')[0].split('/');
          segments[at] = value;
          await send(
            label(`${param}=${value}`),
            t.op.method,
            segments.join('/'),
            t.media === 'application/json' ? JSON.stringify(body) : undefined,
          );
        }
      }
      for (const param of [...t.query, 'x%00y']) {
        const [bare, query] = path.split('?');
        const others = new URLSearchParams(query);
        others.delete(param);
        const rest = others.toString();
        for (const [name, value] of Object.entries(FORM_VALUES))
          await send(label(`?${param}=${name}`), t.op.method, `${bare}?${rest}${rest ? '&' : ''}${param}=${value}`, undefined);
      }
    }
    assert.ok(sent > 3000, `${sent} requests`);
    assert.deepEqual(failures, [], `${failures.length} of ${sent} requests failed:\n${failures.join('\n')}`);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('several hostile values at once, anywhere (fast-check): never a 5xx', async function () {
    this.timeout(120_000);
    const json = all.filter((t) => t.media === 'application/json');
    const mutation = (t: Target) =>
      fc
        .record({
          slot: fc.constantFrom(...t.slots),
          value: fc.constantFrom(...Object.keys(ALL_VALUES)),
          entry: fc.constantFrom(...Object.keys(ENTRIES)),
          asEntry: fc.boolean(),
        })
        .map(
          ({ slot, value, entry, asEntry }): Mutation =>
            asEntry && slot.object ? { path: slot.path, kind: 'entry', name: entry } : { path: slot.path, kind: 'value', name: value },
        );
    const cases = fc.constantFrom(...json).chain((t) => fc.tuple(fc.constant(t), fc.array(mutation(t), { minLength: 2, maxLength: 5 })));
    const before = failures.length;
    await fc.assert(
      fc.asyncProperty(cases, async ([t, mutations]) => {
        const { path, body } = base(t);
        await send(
          `${t.op.method} ${t.op.template} ${mutations.map((m) => `${m.path.join('.') || 'body'}:${m.name}`).join(', ')}`,
          t.op.method,
          path,
          mutatedJson(body, mutations),
        );
        assert.deepEqual(failures.slice(before), []);
      }),
      { numRuns: 150 },
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('the service still answers normally afterwards', async () => {
    const res = await call('GET', `/v1/user-info/${fixture.account_id}`, { token: client.token });
    assert.equal(res.status, 200, res.text);
  });
});
