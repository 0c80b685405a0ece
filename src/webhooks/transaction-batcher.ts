import type { Queryable } from '../db/database.js';

/** Runs small units of transactional work, several to a transaction. */
export interface TransactionBatcher {
  run<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

interface Item {
  work: (tx: Queryable) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Records many attempts' outcomes in one transaction instead of one each: the units queued while
 * the event loop was busy run together, in order, in one transaction (one commit, one WAL flush,
 * two statements fewer per unit on Postgres). Each unit keeps its own result: if the shared
 * transaction fails, every unit of it is run again alone, so that only the one at fault fails.
 * Units must therefore be safe to run twice after a rollback (they only write through `tx`).
 */
export function batchTransactions(db: Queryable, maxBatch = 64): TransactionBatcher {
  let queue: Item[] = [];
  let scheduled = false;

  const flush = async (): Promise<void> => {
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(maxBatch);
    scheduled = queue.length > 0;
    if (scheduled) setImmediate(() => void flush());
    try {
      const results = await db.transaction(async (tx) => {
        const out: unknown[] = [];
        for (const item of batch) out.push(await item.work(tx));
        return out;
      });
      batch.forEach((item, i) => item.resolve(results[i]));
    } catch {
      for (const item of batch) db.transaction(item.work).then(item.resolve, item.reject);
    }
  };

  return {
    run<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}
