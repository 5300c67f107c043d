import assert from 'node:assert/strict';
import { CAPABILITIES, REASONS, TRANSACTION_BLOCKS, isBlocked } from '../../src/accounts/account-block.rules.js';
import { issueDecision, unblockDecision } from '../../src/blocks/block.rules.js';

const operator = { isOperator: true, canUnblock: false };
const licensed = { isOperator: false, canUnblock: true };
const unlicensed = { isOperator: false, canUnblock: false };

describe('block rules', () => {
  it('lets a publisher issue only login / account_close, as issuer publisher', () => {
    assert.deepEqual(issueDecision(unlicensed, 'login', 'account_close'), { ok: true, issuer: 'publisher' });
    assert.deepEqual(issueDecision(licensed, 'payouts', 'account_close'), { ok: false, fields: { block_capability: ['OPERATOR_ONLY'] } });
    assert.deepEqual(issueDecision(unlicensed, 'transactions', 'gdpr'), {
      ok: false,
      fields: { block_capability: ['OPERATOR_ONLY'], block_reason: ['OPERATOR_ONLY'] },
    });
    assert.deepEqual(issueDecision(unlicensed, 'login', 'compliance'), { ok: false, fields: { block_reason: ['OPERATOR_ONLY'] } });
  });

  it('lets the operator issue every capability with every reason, as issuer svc', () => {
    for (const capability of CAPABILITIES) {
      for (const reason of REASONS) assert.deepEqual(issueDecision(operator, capability, reason), { ok: true, issuer: 'svc' });
    }
  });

  // The whole table: caller × issuer of the block.
  const table: Array<[string, typeof operator, 'publisher' | 'svc', boolean]> = [
    ['operator', operator, 'publisher', true],
    ['operator', operator, 'svc', true],
    ['licensed publisher', licensed, 'publisher', true],
    ['licensed publisher', licensed, 'svc', false],
    ['unlicensed publisher', unlicensed, 'publisher', false],
    ['unlicensed publisher', unlicensed, 'svc', false],
  ];
  for (const [who, caller, issuer, allowed] of table) {
    it(`${allowed ? 'lets' : 'does not let'} a(n) ${who} remove a block issued by ${issuer}`, () => {
      assert.equal(unblockDecision(caller, { issuer }).ok, allowed);
    });
  }

  it('says why an unblock is refused', () => {
    assert.match((unblockDecision(unlicensed, { issuer: 'publisher' }) as { reason: string }).reason, /not licensed/);
    assert.match((unblockDecision(licensed, { issuer: 'svc' }) as { reason: string }).reason, /operator/);
  });

  it('stops buying and selling on a login or transactions block, not on payouts; any block makes the account blocked', () => {
    assert.deepEqual([...TRANSACTION_BLOCKS].sort(), ['login', 'transactions']);
    assert.equal(isBlocked([]), false);
    assert.equal(isBlocked([{ capability: 'payouts' }]), true);
  });
});
