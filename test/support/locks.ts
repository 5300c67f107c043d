import { h } from './harness.js';

/**
 * Until `whilst` resolves: `blocked` as soon as some session waits for a lock that the session
 * `pid` holds (from `pg_blocking_pids`), `finished` if `whilst` resolves first. Lets a test hold
 * a row lock and prove that a request waits for it, without timing.
 */
export async function waitedOn(pid: number, whilst: Promise<unknown>): Promise<'blocked' | 'finished'> {
  const finished = whilst.then(() => 'finished' as const);
  for (;;) {
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>('select count(*) as n from pg_stat_activity where ? = any (pg_blocking_pids(pid))', [pid]);
    if (Number(row.n) > 0) return 'blocked';
    const first = await Promise.race([finished, new Promise<'poll'>((resolve) => setTimeout(() => resolve('poll'), 20))]);
    if (first === 'finished') return 'finished';
  }
}
