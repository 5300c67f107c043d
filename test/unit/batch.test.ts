import assert from 'node:assert/strict';
import { batched } from '../../src/db/batch.js';

describe('batched (group commit)', () => {
  it('runs the calls of one turn as one batch, in order, each caller getting its own result', async () => {
    const runs: number[][] = [];
    const double = batched<number, number>(async (items) => {
      runs.push(items);
      return items.map((n) => n * 2);
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5].map(double));
    assert.deepEqual(results, [2, 4, 6, 8, 10]);
    assert.deepEqual(
      runs,
      [
        [1, 2, 3],
        [4, 5],
      ],
      'at most maxBatch per run',
    );
    assert.equal(await double(7), 14);
    assert.deepEqual(runs.at(-1), [7], 'a later call makes a batch of its own');
  });

  it('rejects every caller of a failed batch, and only those', async () => {
    let fail = true;
    const echo = batched<string, string>(async (items) => {
      if (fail) throw new Error('database down');
      return items;
    });
    const failed = await Promise.allSettled([echo('a'), echo('b')]);
    assert.deepEqual(
      failed.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    fail = false;
    assert.equal(await echo('c'), 'c');
  });
});
