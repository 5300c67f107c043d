import assert from 'node:assert/strict';
import {
  deliveryBody,
  eventListSince,
  eventView,
  isPrivateAddress,
  privateRange,
  retryDelayMs,
  shouldDisable,
  signatureHeader,
  targetProblem,
} from '../../src/webhooks/webhook.rules.js';

describe('webhook rules', () => {
  it('signs as the Standard Webhooks reference does', () => {
    // The example of the Standard Webhooks specification (msg id, timestamp, payload, secret → signature).
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    assert.equal(
      signatureHeader([secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body),
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    assert.equal(signatureHeader([secret, secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body).split(' ').length, 2);
  });

  it('backs off exponentially with jitter, capped, spanning about a day with the defaults', () => {
    assert.equal(retryDelayMs(1, 30_000, 0.5), 30_000);
    assert.equal(retryDelayMs(2, 30_000, 0.5), 60_000);
    assert.equal(retryDelayMs(3, 30_000, 0), 96_000, '-20% jitter');
    assert.equal(retryDelayMs(3, 30_000, 0.999999), 144_000, '+20% jitter');
    assert.equal(retryDelayMs(20, 30_000, 0.5), 4 * 3_600_000, 'capped at 4 h');
    const day = Array.from({ length: 14 }, (_, i) => retryDelayMs(i + 1, 30_000, 0.5)).reduce((a, b) => a + b, 0);
    assert.ok(day > 20 * 3_600_000 && day < 28 * 3_600_000, `15 attempts span ${day / 3_600_000} h`);
  });

  it('disables an endpoint only after failing without a success for the whole period', () => {
    const now = new Date('2026-11-26T00:00:00Z');
    assert.equal(shouldDisable(null, now, 5 * 86_400_000), false);
    assert.equal(shouldDisable(new Date('2026-11-21T00:00:01Z'), now, 5 * 86_400_000), false);
    assert.equal(shouldDisable(new Date('2026-11-21T00:00:00Z'), now, 5 * 86_400_000), true);
  });

  it('allows only http(s) URLs without credentials; https and public hosts unless private targets are allowed', () => {
    assert.equal(targetProblem('not a url', true), 'INVALID_URL');
    assert.equal(targetProblem('file:///etc/passwd', true), 'INVALID_URL');
    assert.equal(targetProblem('https://a:b@x.example/', true), 'INVALID_URL');
    assert.equal(targetProblem('http://x.example/', false), 'HTTPS_REQUIRED');
    assert.equal(targetProblem('https://app.localhost/', false), 'PRIVATE_TARGET');
    assert.equal(targetProblem('https://[fd00::1]/', false), 'PRIVATE_TARGET');
    assert.equal(targetProblem('https://x.example/hooks?a=1', false), null);
  });
  // Each IPv6 range that embeds an IPv4 address (or is deprecated and private): its first and
  // last address are refused under its name, and the address just past an edge is not in it.
  const ipv6Ranges: Array<{ range: string; name: string; inside: string[]; outside: Array<[string, string | null]> }> = [
    {
      range: '::/96',
      name: 'IPv4-compatible',
      inside: ['::0.0.0.2', '::10.0.0.1', '::ffff:ffff'],
      outside: [['::1:0:0', null]],
    },
    {
      range: '::ffff:0:0/96',
      name: 'IPv4-mapped',
      inside: ['::ffff:0:0', '::ffff:8.8.8.8', '::ffff:7f00:1', '::ffff:ffff:ffff'],
      outside: [
        ['::fffe:ffff:ffff', null],
        ['::1:0:0:0', null],
      ],
    },
    {
      range: '::ffff:0:0:0/96',
      name: 'IPv4-translated',
      inside: ['::ffff:0:0:0', '::ffff:0:10.0.0.1', '::ffff:0:ffff:ffff'],
      outside: [['::fffe:ffff:ffff:ffff', null]],
    },
    {
      range: '64:ff9b::/96 (NAT64)',
      name: 'NAT64',
      inside: ['64:ff9b::', '64:ff9b::10.0.0.1', '64:ff9b::ffff:ffff'],
      outside: [
        ['64:ff9b::1:0:0', null],
        ['64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff', null],
      ],
    },
    {
      range: '64:ff9b:1::/48 (NAT64 local use)',
      name: 'NAT64 local-use',
      inside: ['64:ff9b:1::', '64:ff9b:1::192.168.0.1', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
      outside: [
        ['64:ff9b:2::', null],
        ['64:ff9b:0:ffff:ffff:ffff:ffff:ffff', null],
      ],
    },
    {
      range: '2002::/16 (6to4)',
      name: '6to4',
      inside: ['2002::', '2002:c0a8:101::1', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      outside: [
        ['2003::1', null],
        ['2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
      ],
    },
    {
      range: '2001::/32 (Teredo)',
      name: 'Teredo',
      inside: ['2001::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
      outside: [
        ['2001:1::1', null],
        ['2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
      ],
    },
    {
      range: 'fec0::/10 (site-local)',
      name: 'site-local',
      inside: ['fec0::', 'fec0::1', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      // Both neighbours are refused ranges of their own (link-local below, multicast above).
      outside: [
        ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
        ['ff00::', 'multicast'],
      ],
    },
  ];
  for (const { range, name, inside, outside } of ipv6Ranges) {
    it(`refuses ${range}, and only it`, () => {
      for (const a of inside) assert.equal(privateRange(a), name, a);
      for (const [a, other] of outside) {
        assert.equal(privateRange(a), other, a);
        assert.equal(isPrivateAddress(a), other !== null, a);
      }
    });
  }

  it('refuses these ranges as webhook targets too (IP literals at registration)', () => {
    for (const host of ['[64:ff9b::a00:1]', '[2002:a00:1::1]', '[2001::1]', '[::a00:1]', '[::ffff:a00:1]', '[fec0::1]'])
      assert.equal(targetProblem(`https://${host}/hooks`, false), 'PRIVATE_TARGET', host);
    assert.equal(targetProblem('https://[2003::1]/hooks', false), null);
  });

  it('still classifies the IPv4 ranges and public addresses as before', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1%eth0',
    ])
      assert.equal(isPrivateAddress(a), true, a);
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])
      assert.equal(isPrivateAddress(a), false, a);
    assert.equal(privateRange('nonsense'), 'not an IP address');
  });

  it('refuses the documentation ranges (they route nowhere public), and only them', () => {
    for (const a of ['192.0.2.1', '198.51.100.255', '203.0.113.7', '2001:db8::1', '2001:db8:ffff::1'])
      assert.equal(privateRange(a), 'documentation', a);
    for (const a of ['192.0.3.1', '198.51.101.1', '203.0.114.1', '2001:db9::1']) assert.equal(privateRange(a), null, a);
  });

  it('shows an event as its deliveries carry it, with the account it names', () => {
    const event = {
      id: 'evt_1',
      event_name: 'invoice-completed',
      message: { account_id: 'acct_1', state: 'SUCCESS' },
      created: '2026-11-26T10:00:00.000Z',
      integrator: 'acme',
    };
    const view = eventView(event);
    assert.deepEqual(view, {
      id: 'evt_1',
      type: 'invoice-completed',
      created: '2026-11-26T10:00:00.000Z',
      account_id: 'acct_1',
      payload: event,
    });
    assert.equal(JSON.stringify(view.payload), deliveryBody(event), 'payload is the delivered body, key for key');
    assert.equal(eventView({ ...event, message: { state: 'x' } }).account_id, null);
    assert.equal(eventView({ ...event, message: { account_id: 7 } }).account_id, null);
    assert.equal(eventListSince(new Date('2026-11-26T10:00:00.000Z')).toISOString(), '2026-10-27T10:00:00.000Z');
  });
});
