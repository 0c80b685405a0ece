import type { Queryable } from '../db/database.js';

/**
 * Writes many rows of one kind in a few statements (multi-row INSERT, UPDATE … FROM VALUES),
 * inside the transaction it is given. It must also be correct for a single row: that is how a
 * row is written when the batch it was in had to be rolled back.
 */
export type BulkWriter<R> = (tx: Queryable, rows: readonly R[]) => Promise<void>;

/** Runs small units of transactional work, several to a transaction. */
export interface TransactionBatcher {
  /** Runs `work` in a transaction shared with other units; resolves with its result. */
  run<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Queues `row` for `writer`, which writes all the rows queued for it together; resolves once committed. */
  write<R>(writer: BulkWriter<R>, row: R): Promise<void>;
}

interface Item {
  work: (tx: Queryable) => Promise<unknown>;
  /** Set for a queued row: the writer and the row (`work` then writes the row alone). */
  bulk?: { writer: BulkWriter<unknown>; row: unknown };
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Records many attempts' outcomes in one transaction instead of one each: the units and rows
 * queued while the event loop was busy are written together in one transaction (one commit, one
 * WAL flush), the rows of each writer in one call of it, so a batch of successful deliveries costs
 * three statements rather than three each. Each unit keeps its own result: if the shared
 * transaction fails, every unit and row of it is written again alone, so that only the one at
 * fault fails. Units must therefore be safe to run twice after a rollback (they only write through `tx`).
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
        for (const [writer, rows] of rowsByWriter(batch)) await writer(tx, rows);
        const out: unknown[] = [];
        for (const item of batch) out.push(item.bulk ? undefined : await item.work(tx));
        return out;
      });
      batch.forEach((item, i) => item.resolve(results[i]));
    } catch {
      for (const item of batch) db.transaction(item.work).then(item.resolve, item.reject);
    }
  };

  const enqueue = (item: Item): void => {
    queue.push(item);
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void flush());
    }
  };

  return {
    run<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => enqueue({ work, resolve: resolve as (value: unknown) => void, reject }));
    },
    write<R>(writer: BulkWriter<R>, row: R): Promise<void> {
      return new Promise<void>((resolve, reject) =>
        enqueue({
          work: (tx) => writer(tx, [row]),
          bulk: { writer: writer as BulkWriter<unknown>, row },
          resolve: () => resolve(),
          reject,
        }),
      );
    },
  };
}

/** The queued rows of a batch, grouped by their writer, in the order the writers first appear. */
function rowsByWriter(batch: readonly Item[]): Map<BulkWriter<unknown>, unknown[]> {
  const groups = new Map<BulkWriter<unknown>, unknown[]>();
  for (const { bulk } of batch) {
    if (!bulk) continue;
    const rows = groups.get(bulk.writer);
    if (rows) rows.push(bulk.row);
    else groups.set(bulk.writer, [bulk.row]);
  }
  return groups;
}
