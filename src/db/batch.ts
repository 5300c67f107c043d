/**
 * Group commit for hot, independent statements: calls made in the same turn of the event loop
 * (up to `maxBatch`) run as one statement, and each caller gets its own result. Under load
 * this turns N round trips — and, on this machine, N socket writes — into one.
 */
export function batched<I, O>(run: (items: I[]) => Promise<O[]>, maxBatch = 256): (item: I) => Promise<O> {
  let pending: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    while (pending.length) {
      const group = pending.slice(0, maxBatch);
      pending = pending.slice(maxBatch);
      run(group.map((p) => p.item)).then(
        (out) => {
          for (const [i, p] of group.entries()) p.resolve(out[i]);
        },
        (err) => {
          for (const p of group) p.reject(err);
        },
      );
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

/** What `batchedPerPool` needs of an EntityManager: its connection pool. */
interface PooledEm {
  getConnection(): { getKnex(): { client: unknown } };
}

/**
 * `batched`, with one batcher per connection pool (per ORM): calls made in the same turn on
 * the same database run together; `run` gets the EntityManager of the first of them.
 */
export function batchedPerPool<E extends PooledEm, I, O>(
  run: (em: E, items: I[]) => Promise<O[]>,
  maxBatch?: number,
): (em: E, item: I) => Promise<O> {
  const batchers = new WeakMap<object, (call: { em: E; item: I }) => Promise<O>>();
  return (em, item) => {
    const pool = em.getConnection().getKnex().client as object;
    let batcher = batchers.get(pool);
    if (!batcher) {
      batcher = batched(
        (calls: Array<{ em: E; item: I }>) =>
          run(
            calls[0].em,
            calls.map((c) => c.item),
          ),
        maxBatch,
      );
      batchers.set(pool, batcher);
    }
    return batcher({ em, item });
  };
}
