import assert from 'node:assert/strict';
import fc from 'fast-check';
import { call, newClient, type TestClient } from '../support/harness.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters: it finds them to expect a 400
const CONTROL = /[\u0000-\u001f\u007f]/;
let counter = 0;

/** Text without control characters, as the documents allow. */
const text = (max: number) =>
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: max }).filter((s) => !CONTROL.test(s) && [...s].length <= max);

/** The generated part of a username; the property prefixes it to make it unique. */
const usernameCore = fc.string({ unit: 'grapheme', maxLength: 50 }).filter((s) => !CONTROL.test(s));

/**
 * Makes a generated body unique for this run (fast-check replays values while shrinking, so
 * uniqueness must come at run time, not generation time), keeping every rule intact.
 */
function freshen(body: Record<string, unknown>): Record<string, unknown> {
  counter += 1;
  const tag = `${counter.toString(36)}${Date.now().toString(36)}`;
  const out = structuredClone(body);
  out.username = [...`u${tag} ${body.username as string}`].slice(0, 64).join('').trimEnd();
  if (out.email) (out.email as { address: string }).address = `p${tag}@example.com`;
  if (out.external_platforms) {
    for (const [p, v] of Object.entries(out.external_platforms as Record<string, { user_id: string }>)) v.user_id = `${p}-${tag}`;
  }
  return out;
}

const platforms = fc.constantFrom('steam', 'oculus', 'apple', 'google', 'microsoft', 'nintendo', 'sony');

const registration = fc
  .record({
    username: usernameCore,
    contact: fc.oneof(
      fc.record({ kind: fc.constant('email' as const), requires: fc.option(fc.boolean(), { nil: undefined }) }),
      fc.record({ kind: fc.constant('platforms' as const), list: fc.uniqueArray(platforms, { minLength: 1, maxLength: 3 }) }),
    ),
    full_name: fc.option(text(200), { nil: undefined }),
    city: fc.option(text(100), { nil: undefined }),
    zip_postal_code: fc.option(text(20), { nil: undefined }),
    region: fc.option(fc.record({ state_province: text(100), country_iso: fc.constantFrom('US', 'CA', 'DE', 'JP', 'BR', 'NO', 'XK') }), {
      nil: undefined,
    }),
  })
  .map((g) => {
    const body: Record<string, unknown> = { username: g.username };
    if (g.contact.kind === 'email') {
      body.email = {
        address: 'set@by.freshen',
        ...(g.contact.requires === undefined ? {} : { requires_verification: g.contact.requires }),
      };
    } else {
      body.external_platforms = Object.fromEntries(g.contact.list.map((p) => [p, { user_id: 'set-by-freshen' }]));
    }
    for (const f of ['full_name', 'city', 'zip_postal_code'] as const) if (g[f] !== undefined) body[f] = g[f];
    if (g.region) Object.assign(body, g.region);
    return body;
  });

type Violation = [field: string, apply: (body: Record<string, unknown>) => void];
const violations: fc.Arbitrary<Violation> = fc.oneof(
  fc.integer({ min: 65, max: 300 }).map(
    (n): Violation => [
      'username',
      (b) => {
        b.username = 'x'.repeat(n);
      },
    ],
  ),
  fc.integer({ min: 0, max: 31 }).map(
    (c): Violation => [
      'username',
      (b) => {
        b.username = `a${String.fromCharCode(c)}b`;
      },
    ],
  ),
  fc.constant<Violation>([
    'username',
    (b) => {
      delete b.username;
    },
  ]),
  fc.constantFrom('plainaddress', 'a@', '@b.com', 'a b@c.com').map(
    (addr): Violation => [
      'email.address',
      (b) => {
        delete b.external_platforms;
        b.email = { address: addr };
      },
    ],
  ),
  fc.constant<Violation>([
    'email',
    (b) => {
      b.email = { address: 'both@example.com' };
      b.external_platforms = { steam: { user_id: 'both' } };
    },
  ]),
  fc.constant<Violation>([
    'email',
    (b) => {
      delete b.email;
      delete b.external_platforms;
    },
  ]),
  fc.constant<Violation>([
    'country_iso',
    (b) => {
      b.state_province = 'Somewhere';
      delete b.country_iso;
    },
  ]),
  fc.constant<Violation>([
    'state_province',
    (b) => {
      b.country_iso = 'US';
      delete b.state_province;
    },
  ]),
  fc.constantFrom('ZZ', 'usa', 'u', '12').map(
    (c): Violation => [
      'country_iso',
      (b) => {
        b.country_iso = c;
        b.state_province = 'X';
      },
    ],
  ),
  fc
    .string({ minLength: 1, maxLength: 12 })
    .filter(
      (k) =>
        /^[a-z][a-z_]*$/.test(k) &&
        ![
          'username',
          'email',
          'external_platforms',
          'full_name',
          'city',
          'zip_postal_code',
          'state_province',
          'country_iso',
          'street_address_1',
          'street_address_2',
          'street_address_3',
        ].includes(k),
    )
    .map(
      (k): Violation => [
        k,
        (b) => {
          b[k] = 'surprise';
        },
      ],
    ),
  fc.integer({ min: 201, max: 400 }).map(
    (n): Violation => [
      'full_name',
      (b) => {
        b.full_name = 'n'.repeat(n);
      },
    ],
  ),
);

describe('registration properties (fast-check)', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  it('accepts generated valid registrations, and each round-trips through lookup and search', async () => {
    await fc.assert(
      fc.asyncProperty(registration, async (generated) => {
        const body = freshen(generated);
        const res = await call('POST', '/register', { token: client.token, body });
        assert.equal(res.status, 200, `${JSON.stringify(body)} → ${res.text}`);
        const id = res.body.payload.account_id;
        const profile = await call('GET', `/v1/user-info/${id}`, { token: client.token });
        assert.equal(profile.body.payload.username, body.username);
        assert.equal(profile.body.payload.email, (body.email as { address: string } | undefined)?.address ?? null);
        const found = await call('GET', `/v1/user-info/search?username=${encodeURIComponent(body.username as string)}`, {
          token: client.token,
        });
        assert.equal(found.body.payload?.account_id, id);
        for (const f of ['full_name', 'city', 'zip_postal_code', 'state_province', 'country_iso'])
          assert.equal(res.body.payload[f], body[f]);
      }),
      { numRuns: 40 },
    );
  });

  it('rejects a valid registration with one rule broken, naming that field', async () => {
    await fc.assert(
      fc.asyncProperty(registration, violations, async (generated, [field, apply]) => {
        const body = freshen(generated);
        apply(body);
        const res = await call('POST', '/register', { token: client.token, body });
        assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
        assert.ok(Object.keys(res.body.payload.errors).includes(field), `expected ${field} in ${JSON.stringify(res.body.payload.errors)}`);
      }),
      { numRuns: 60 },
    );
  });
});
