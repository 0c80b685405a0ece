/**
 * The request log's writer: entries are kept in memory and written together, so that a request
 * costs an array push rather than a statement.
 *
 * Guarantees:
 * - An entry is written within `intervalMs` (200 ms) of being recorded, or sooner once `batchSize`
 *   (500) are waiting; one write runs at a time, each batch in one transaction.
 * - Nothing here ever fails or delays a request: a failed write's entries are dropped, and logged
 *   (warn) with how many, at most once a minute while writes fail; when writes fall behind, the oldest waiting entries are dropped past `maxBuffered`
 *   (10,000) and counted in the next warning. At most `maxBuffered` entries wait while as many are
 *   being written.
 * - `flush()` resolves once every entry recorded before it is written (or dropped); `close()`
 *   flushes and records nothing more. The timer is `unref()`ed: it never keeps a process alive.
 *
 * Not the webhooks' transaction batcher: that one gives every unit its own result and retries a
 * failed batch row by row, where here nobody waits for a result and a lost entry costs nothing.
 */
import type { Queryable } from '../../db/database.js';
import type { Logger } from '../../logging/logger.js';
import { createOutageLog } from '../../logging/outage-log.js';
import { insertRequestLogs, type NewRequestLogRow } from './request-logs.repo.js';

export interface RequestLogBufferOptions {
  /** How long an entry may wait for its write; default 200 ms. */
  intervalMs?: number;
  /** Entries that start a write at once, and the most one transaction writes; default 500. */
  batchSize?: number;
  /** Entries that may wait before the oldest are dropped; default 10,000. */
  maxBuffered?: number;
}

/** Where requests' entries go (see the module's guarantees). */
export interface RequestLogBuffer {
  /** Keeps an entry for the next write; never throws, never waits. Ignored once closed. */
  record(row: NewRequestLogRow): void;
  /** Writes every entry recorded so far; never rejects. */
  flush(): Promise<void>;
  /** Flushes, then stops: later entries are ignored. */
  close(): Promise<void>;
}

/** A buffer writing to `db` (the process's database, not a request's transaction). */
export function createRequestLogBuffer(db: Queryable, logger: Logger, options: RequestLogBufferOptions = {}): RequestLogBuffer {
  const { intervalMs = 200, batchSize = 500, maxBuffered = 10_000 } = options;
  let waiting: NewRequestLogRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  // A write is queued behind the one running and has not yet taken its entries: a flush asked
  // for now is served by it.
  let queued = false;
  let dropped = 0;
  let closed = false;
  // While the database is away every write fails: one warning, then one a minute with the entries lost.
  const failedWrites = createOutageLog(logger, 'writing the request log (its entries are dropped)');

  const writeWaiting = async (): Promise<void> => {
    queued = false;
    const rows = waiting;
    waiting = [];
    if (dropped > 0) logger.warn({ dropped }, 'request log entries dropped: writes fell behind');
    dropped = 0;
    for (let start = 0; start < rows.length; start += batchSize) {
      const batch = rows.slice(start, start + batchSize);
      await insertRequestLogs(db, batch).then(
        () => failedWrites.succeeded(),
        (err: unknown) => failedWrites.failed(err, batch.length),
      );
    }
  };

  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (!queued) {
      queued = true;
      writing = writing.then(writeWaiting);
    }
    return writing;
  };

  return {
    record(row) {
      if (closed) return;
      if (waiting.length >= maxBuffered) {
        waiting.shift();
        dropped += 1;
      }
      waiting.push(row);
      if (waiting.length >= batchSize) void flush();
      else timer ??= setTimeout(() => void flush(), intervalMs).unref();
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
  };
}
