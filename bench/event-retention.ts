/**
 * What retention costs on a grown database (bench/event-growth.ts), with nothing else running:
 * the row purge's rate (`purgeExpiredEvents`, batches of 1,000 events, as the worker runs it, at
 * {@link purgeClockMs}, so the oldest `events` bulk events go), and
 * on Postgres the time to drop the month partitions that hold the most events (`dropMonth`).
 */
import { openDatabase } from '../src/db/open-database.js';
import { dropMonth, monthPartitions, partitionName, type Month } from '../src/db/partitions.js';
import { purgeExpiredEvents, type EventPurgeCounts } from '../src/resources/events/events.retention.js';
import type { Store } from './store.js';

const DAY_MS = 86_400_000;
/** The retention the purges are run with (the default). */
export const PURGE_RETENTION_DAYS = 30;

/**
 * The clock a purge is run at: its cutoff half a day ago, so that every bulk event (bench/event-store.ts
 * ends them a day ago) is past its retention and the events the API made during the run are not.
 */
export function purgeClockMs(): number {
  return Date.now() + PURGE_RETENTION_DAYS * DAY_MS - DAY_MS / 2;
}
const BATCH_SIZE = 1000;

/** One row purge run: what it deleted, how long it took, and its rates. */
export interface PurgeRate extends EventPurgeCounts {
  seconds: number;
  eventsPerSecond: number;
  /** Events, deliveries and attempts together. */
  rowsPerSecond: number;
}

/** One month's partitions dropped: the rows they held and how long the drop took. */
export interface MonthDrop {
  month: string;
  events: number;
  rows: number;
  seconds: number;
  /** Of which the detach, the only part that locks the parent tables. */
  detachMs: number;
}

/** What the retention measurements gave on one database. */
export interface RetentionCost {
  purge: PurgeRate;
  drop?: MonthDrop;
}

/** The rates of a purge's counts over `seconds`. */
export function purgeRate(counts: EventPurgeCounts, seconds: number): PurgeRate {
  const rows = counts.events + counts.deliveries + counts.attempts;
  return { ...counts, seconds, eventsPerSecond: counts.events / seconds, rowsPerSecond: rows / seconds };
}

/** Purges the oldest `events` events (whole batches) and, on Postgres, drops the fullest month. */
export async function measureRetention(store: Store, events: number): Promise<RetentionCost> {
  const db = await openDatabase(store);
  try {
    const started = performance.now();
    const counts = await purgeExpiredEvents(db, purgeClockMs(), PURGE_RETENTION_DAYS, {
      batchSize: BATCH_SIZE,
      maxBatches: Math.max(1, Math.ceil(events / BATCH_SIZE)),
    });
    const purge = purgeRate(counts, (performance.now() - started) / 1000);
    if (store.kind === 'sqlite') return { purge };

    let fullest: { month: Month; events: number } | undefined;
    for (const month of await monthPartitions(db, 'events')) {
      const row = await db.one<{ n: string }>(`SELECT COUNT(*) AS n FROM ${partitionName('events', month)}`);
      const count = Number(row?.n ?? 0);
      if (!fullest || count > fullest.events) fullest = { month, events: count };
    }
    if (!fullest || fullest.events === 0) return { purge };
    let rows = 0;
    for (const table of ['events', 'webhook_deliveries', 'webhook_attempts']) {
      rows += Number((await db.one<{ n: string }>(`SELECT COUNT(*) AS n FROM ${partitionName(table, fullest.month)}`))?.n ?? 0);
    }
    const dropStarted = performance.now();
    const dropped = await dropMonth(db, fullest.month);
    if (!dropped) throw new Error('dropMonth did not get its locks');
    const month = `${fullest.month.year}-${String(fullest.month.month).padStart(2, '0')}`;
    const seconds = (performance.now() - dropStarted) / 1000;
    return { purge, drop: { month, events: fullest.events, rows, seconds, detachMs: dropped.detachMs } };
  } finally {
    await db.close();
  }
}
