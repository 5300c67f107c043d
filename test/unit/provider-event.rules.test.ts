import assert from 'node:assert/strict';
import {
  eventIdentity,
  handlerPatterns,
  outcomeReason,
  paypalTransmission,
  verifySignatureRequest,
} from '../../src/provider-events/provider-event.rules.js';

/** A result as plain JSON (field errors are maps without a prototype). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('provider event rules', () => {
  it("reads an event's id and type where each provider puts them, naming what is missing or unusable", () => {
    const stripe = eventIdentity('stripe', { id: 'evt_1', type: 'charge.refunded', data: {} });
    assert.ok(stripe.ok);
    assert.equal(stripe.providerEventId, 'evt_1');
    assert.equal(stripe.type, 'charge.refunded');
    const paypal = eventIdentity('paypal', { id: 'WH-1', event_type: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED' });
    assert.ok(paypal.ok);
    assert.equal(paypal.type, 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED');
    assert.deepEqual(plain(eventIdentity('paypal', { id: 'WH-1', type: 'x' })), { ok: false, fields: { event_type: ['REQUIRED'] } });
    assert.deepEqual(plain(eventIdentity('stripe', { id: 7, type: 'x'.repeat(256) })), {
      ok: false,
      fields: { id: ['INVALID_VALUE'], type: ['INVALID_VALUE'] },
    });
    for (const body of [null, [], 'evt_1', 3])
      assert.deepEqual(plain(eventIdentity('stripe', body)), { ok: false, fields: { body: ['INVALID_VALUE'] } });
  });

  it("takes PayPal's five transmission headers, naming each one missing", () => {
    const headers = {
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': 'https://api.paypal.com/cert',
      'paypal-transmission-id': 'tx1',
      'paypal-transmission-sig': 'sig',
      'paypal-transmission-time': '2026-11-28T06:00:00Z',
    };
    assert.deepEqual(paypalTransmission(headers), {
      ok: true,
      transmission: {
        auth_algo: 'SHA256withRSA',
        cert_url: 'https://api.paypal.com/cert',
        transmission_id: 'tx1',
        transmission_sig: 'sig',
        transmission_time: '2026-11-28T06:00:00Z',
      },
    });
    const { 'paypal-cert-url': _url, ...rest } = headers;
    assert.deepEqual(plain(paypalTransmission({ ...rest, 'paypal-transmission-sig': ' ' })), {
      ok: false,
      fields: { 'PAYPAL-CERT-URL': ['REQUIRED'], 'PAYPAL-TRANSMISSION-SIG': ['REQUIRED'] },
    });
  });

  it('puts the event into the verify-webhook-signature request byte for byte', () => {
    const raw = '{"id":"WH-1", "event_type":"X","resource":{"amount":{"value":"10.10"},"n":1.50}}';
    const text = verifySignatureRequest(
      { auth_algo: 'a', cert_url: 'c', transmission_id: 'i', transmission_sig: 's', transmission_time: 't' },
      'WH7',
      `${raw}\n`,
    );
    assert.ok(text.endsWith(`"webhook_event":${raw}}`));
    assert.deepEqual(JSON.parse(text), {
      auth_algo: 'a',
      cert_url: 'c',
      transmission_id: 'i',
      transmission_sig: 's',
      transmission_time: 't',
      webhook_id: 'WH7',
      webhook_event: JSON.parse(raw),
    });
  });

  it("matches a handler by the event's type, then by each shorter dotted prefix", () => {
    assert.deepEqual(handlerPatterns('charge.refund.updated'), ['charge.refund.updated', 'charge.refund.*', 'charge.*']);
    assert.deepEqual(handlerPatterns('PAYMENT.PAYOUTS-ITEM.SUCCEEDED'), [
      'PAYMENT.PAYOUTS-ITEM.SUCCEEDED',
      'PAYMENT.PAYOUTS-ITEM.*',
      'PAYMENT.*',
    ]);
    assert.deepEqual(handlerPatterns('ping'), ['ping']);
  });

  it("stores a handler's reason as one line of at most 500 characters", () => {
    assert.equal(outcomeReason('  no such\n session '), 'no such session');
    assert.equal(outcomeReason('x'.repeat(600)).length, 500);
    assert.equal(outcomeReason(''), 'refused');
  });
});
