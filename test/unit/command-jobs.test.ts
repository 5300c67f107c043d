import assert from 'node:assert/strict';
import { commandJobs } from '../../src/queues/command-bus.js';
import { commandsOf } from '../../src/queues/names.js';

describe('commandJobs: the jobs for commands enqueued in one turn', () => {
  const ref = (n: number) => ({ commandId: `cmd_${n}`, kind: 'escrow.pay' });

  it('one command is a job of its own, its id the command id', () => {
    const [job, ...rest] = commandJobs([ref(1)], 32);
    assert.equal(rest.length, 0);
    assert.equal(job.name, 'commands');
    assert.equal(job.opts.jobId, 'cmd_1');
    assert.deepEqual(commandsOf(job.data), [ref(1)]);
  });

  it('several share jobs of at most maxPerJob, each command once, in order', () => {
    const refs = [1, 2, 3, 2, 4, 5, 1].map(ref);
    const jobs = commandJobs(refs, 2);
    assert.deepEqual(
      jobs.map((j) => commandsOf(j.data).map((c) => c.commandId)),
      [['cmd_1', 'cmd_2'], ['cmd_3', 'cmd_4'], ['cmd_5']],
    );
    assert.deepEqual(
      jobs.map((j) => j.name),
      ['batch', 'batch', 'commands'],
    );
    // A batch job's id is BullMQ's own; the last, alone, is its command's.
    assert.deepEqual(
      jobs.map((j) => j.opts.jobId),
      [undefined, undefined, 'cmd_5'],
    );
    for (const j of jobs) assert.equal(j.opts.attempts, 8, 'batches retry as single jobs do');
  });

  it('maxPerJob 1 gives a job per command', () => {
    assert.deepEqual(
      commandJobs([1, 2, 3].map(ref), 1).map((j) => j.opts.jobId),
      ['cmd_1', 'cmd_2', 'cmd_3'],
    );
  });

  it('commands whose runner holds a transaction keep a job each, under their id', () => {
    // Sharing would start up to maxPerJob transactions per job on the worker's pool, whose
    // holders may wait for a second connection (systemAccount) behind the others.
    const refs = [
      { commandId: 'cmd_1', kind: 'invoice.pay' },
      ref(2),
      { commandId: 'cmd_3', kind: 'payout.request' },
      ref(4),
      { commandId: 'cmd_1', kind: 'invoice.pay' },
    ];
    const jobs = commandJobs(refs, 32);
    assert.deepEqual(
      jobs.map((j) => [j.name, j.opts.jobId, commandsOf(j.data).map((c) => c.commandId)]),
      [
        ['batch', undefined, ['cmd_2', 'cmd_4']],
        ['commands', 'cmd_1', ['cmd_1']],
        ['commands', 'cmd_3', ['cmd_3']],
      ],
    );
  });
});
