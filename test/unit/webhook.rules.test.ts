import assert from 'node:assert/strict';
import { retryDelayMs, shouldDisable, signatureHeader, targetProblem } from '../../src/webhooks/webhook.rules.js';

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
});
