/**
 * A row purge in a process of its own, against the database the server under test uses, as the
 * worker of another process would run it: `purgeExpiredEvents` in batches of 1,000 events, each its
 * own transaction, until SIGTERM (it then ends after its current batch) or nothing is left.
 *
 * Environment: BENCH_PURGE_STORE (a bench/store.ts `Store` as JSON), BENCH_PURGE_NOW_MS (the clock
 * the purge reads: bench/event-retention.ts `purgeClockMs`, every bulk event is past its retention). Prints `purging` when it
 * starts, and one JSON line with what it deleted and in how many seconds when it ends.
 */
import { openDatabase } from '../src/db/open-database.js';
import { purgeExpiredEvents } from '../src/resources/events/events.retention.js';
import { PURGE_RETENTION_DAYS } from './event-retention.js';
import type { Store } from './store.js';

const store = JSON.parse(process.env.BENCH_PURGE_STORE ?? '') as Store;
const nowMs = Number(process.env.BENCH_PURGE_NOW_MS);
let stopping = false;
process.once('SIGTERM', () => void (stopping = true));

const db = await openDatabase(store);
try {
  console.log('purging');
  const started = performance.now();
  const counts = await purgeExpiredEvents(db, nowMs, PURGE_RETENTION_DAYS, { batchSize: 1000, maxBatches: Number.MAX_SAFE_INTEGER, proceed: () => !stopping });
  console.log(JSON.stringify({ ...counts, seconds: (performance.now() - started) / 1000 }));
} finally {
  await db.close();
}
