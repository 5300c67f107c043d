import assert from 'node:assert/strict';
import { preparable } from '../../src/db/sql.js';

describe('which statements run prepared', () => {
  const cases: Array<[string, boolean]> = [
    ['select id, status from escrow where id = $1', true],
    ['select * from escrow where id = $1', false],
    ['select e.* from escrow e where e.id = $1', false],
    ['update command set state = $1 where id = $2 returning *', false],
    [
      'with v as (select * from jsonb_to_recordset($1::jsonb) as v (id varchar, next varchar)) update escrow e set status = v.next from v where e.id = v.id',
      true,
    ],
    ['with v as (select * from unnest($1::varchar[], $2::int[]) with ordinality as v (id, n, ord)) select id from v', true],
    [
      'with v as (select * from jsonb_to_recordset($1::jsonb) as v (id varchar)) select * from escrow where id in (select id from v)',
      false,
    ],
  ];
  for (const [text, expected] of cases) {
    it(`${expected ? 'prepares' : 'does not prepare'}: ${text.slice(0, 70)}`, () => assert.equal(preparable(text), expected));
  }
});
