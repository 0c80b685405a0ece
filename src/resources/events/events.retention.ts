/**
 * Event retention (`EVENT_RETENTION_DAYS`, default 30): events older than that leave the API, with
 * their webhook deliveries and those deliveries' attempts. Charges, customers, refunds, intents and
 * every other resource are never purged here.
 *
 * Leaving the API and leaving the database are apart: the API's reads of events and deliveries
 * hold {@link retainedAt}, so an event is gone from them the moment it passes the cutoff. The rows
 * go later: on SQLite by {@link purgeExpiredEvents}, row by row in batches; on Postgres by
 * {@link dropExpiredMonths}, a month's partitions at once (src/db/partitions.ts), with the row purge
 * only for the rows of the default partition.
 *
 * Guarantees (of both ways):
 * - An event whose delivery is still `pending` is kept, whatever its age: the worker ends every
 *   pending delivery within its retry schedule, and the event is what that delivery sends.
 * - An event whose delivery `failed` is kept until that failure is itself older than the retention,
 *   counted from the delivery's `completed_at` (when it failed for good, or when its latest manual
 *   retry or replay failed again): the account has the whole period to see and replay it. A failure
 *   resolved by a retry or replay is `succeeded` and no longer keeps its event.
 * - Rows go attempts first, then deliveries, then events, in one transaction per batch, so no
 *   attempt or delivery is ever left without its event.
 * - The purge never holds a lock a request waits on for long: every batch (at most `batchSize`
 *   events) is its own short transaction of row deletes (no table lock on Postgres), followed by a
 *   pause as long as it took (at most 100 ms), so requests' writes take turns with it; a run stops
 *   after `maxBatches` batches, and the next run goes on from the oldest events again.
 *
 * Events are walked in primary key order: on SQLite `seq`, which follows `created` closely (an old
 * event committed slightly out of clock order behind a younger one waits for the next run); on
 * Postgres `(created, seq)`. A run stops at the first page that reaches events younger than the
 * retention, so it never scans the recent part of the table.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Queryable, SqlValue } from '../../db/database.js';
import { inJsonArray } from '../../db/dialect.js';
import { dropDetachedMonths, dropMonth, ensureMonthPartitions, partitionsEvents, retentionBound, walkByPrimaryKey, monthBounds, monthPartitions, partitionName } from '../../db/partitions.js';
import type { Clock } from '../../domain/clock.js';
import type { Logger } from '../../logging/logger.js';
import type { RequestContext } from '../../operations/operations.js';
import { startRepeatingJob, type RepeatingJob } from '../../operations/repeating-job.js';

/** `EVENT_RETENTION_DAYS` when it is not set. */
export const DEFAULT_EVENT_RETENTION_DAYS = 30;

const DAY_MS = 86_400_000;
const DEFAULT_BATCH_SIZE = 1000;
/** 100 batches of 1,000: 100,000 events per run, ten minutes apart, is more than 150 events a second. */
const DEFAULT_MAX_BATCHES = 100;
/** The longest pause between two batches (a batch's own duration, up to this). */
const MAX_PAUSE_MS = 100;

/** How one purge run is bounded; the defaults are production's, tests choose smaller ones. */
export interface EventPurgeLimits {
  /** Events examined (and at most deleted) per batch; default 1,000. */
  batchSize?: number;
  /** Batches per run; default 100. */
  maxBatches?: number;
  /** Asked before every batch but the first: false ends the run (the process is closing). */
  proceed?: () => boolean;
  /** The events walked: all of them, or on Postgres the default partition's only (see {@link retireExpiredEvents}). */
  eventsTable?: 'events' | 'events_default';
}

/** What one run deleted. */
export interface EventPurgeCounts {
  events: number;
  deliveries: number;
  attempts: number;
}

/**
 * Where retention stands at a moment: events created before `seconds` are past it, unless a
 * delivery keeps them; a delivery that failed before `ms` no longer keeps its event.
 */
export interface RetentionCutoff {
  seconds: number;
  ms: number;
}

/** The cutoff at `nowMs` for a retention of `retentionDays`. */
export function retentionCutoff(nowMs: number, retentionDays: number): RetentionCutoff {
  const ms = nowMs - retentionDays * DAY_MS;
  return { ms, seconds: Math.floor(ms / 1000) };
}

/** The cutoff a request reads events at: its clock, and the service's retention. */
export function requestCutoff(ctx: Pick<RequestContext, 'clock' | 'settings'>): RetentionCutoff {
  return retentionCutoff(ctx.clock.nowMs(), ctx.settings.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS);
}

/**
 * SQL: a delivery of the event `event` (a table name or alias) that keeps it: pending, or failed
 * more recently than the cutoff. One parameter: the cutoff in ms.
 */
function keepingDelivery(event: string): string {
  return `SELECT 1 FROM webhook_deliveries k WHERE k.account_id = ${event}.account_id AND k.event_id = ${event}.${event === 'webhook_deliveries' ? 'event_id' : 'id'}
  AND (k.status = 'pending' OR (k.status = 'failed' AND (k.completed_at IS NULL OR k.completed_at >= ?)))`;
}

/**
 * A condition (SQL and its parameters) that holds for the events, or deliveries, that the API still
 * shows at `cutoff`: created since, or kept by a delivery of their event. Rows past it may still be
 * stored: on Postgres they leave a month at a time, when their partition is dropped; on SQLite, at the
 * worker's next purge. Recent rows satisfy the first test, so the subquery runs only for old ones.
 * For reads of a few rows: by id, of one event, and the views of failed or pending deliveries (which
 * filter row by row anyway). A list of everything uses {@link listedAt}.
 */
export function retainedAt(table: 'events' | 'webhook_deliveries', cutoff: RetentionCutoff): { sql: string; params: SqlValue[] } {
  return { sql: `(${table}.created >= ? OR EXISTS (${keepingDelivery(table)}))`, params: [cutoff.seconds, cutoff.ms] };
}

/**
 * The condition of a list of everything, newest first: the rows created since the cutoff, a scan
 * that stops where they end (`retentionBound`). An old event a delivery keeps is still retrieved
 * by id, listed with its deliveries, and in the failed and pending views ({@link retainedAt}); a
 * list of all events shows the retention period, as the widely used APIs' do.
 */
export function listedAt(db: Pick<Queryable, 'dialect'>, table: 'events' | 'webhook_deliveries', cutoff: RetentionCutoff): { sql: string; params: SqlValue[] } {
  return retentionBound(db, table, cutoff.seconds);
}

/**
 * Deletes the events older than `retentionDays` at `nowMs`, with their deliveries and attempts,
 * except those a delivery keeps (see the module comment), in bounded batches; returns the counts.
 */
export async function purgeExpiredEvents(
  db: Queryable,
  nowMs: number,
  retentionDays: number,
  limits: EventPurgeLimits = {},
): Promise<EventPurgeCounts> {
  const { batchSize = DEFAULT_BATCH_SIZE, maxBatches = DEFAULT_MAX_BATCHES, proceed = () => true, eventsTable = 'events' } = limits;
  const cutoff = retentionCutoff(nowMs, retentionDays);
  const counts: EventPurgeCounts = { events: 0, deliveries: 0, attempts: 0 };
  let after: { created: number; seq: number } | undefined;
  for (let batch = 0; batch < maxBatches && (batch === 0 || proceed()); batch++) {
    const page = await readPage(db, eventsTable, after, batchSize, cutoff.ms);
    const expired = page.filter((row) => Number(row.created) < cutoff.seconds && Number(row.kept) === 0).map((row) => row.id);
    if (expired.length > 0) {
      const started = performance.now();
      const deleted = await db.transaction((tx) => deleteEvents(tx, expired, cutoff));
      counts.events += deleted.events;
      counts.deliveries += deleted.deliveries;
      counts.attempts += deleted.attempts;
      // As long again before the next batch: on SQLite a batch holds the one write lock, and
      // requests' writes queued behind it go first (measured: a POST's p99 went from 37 ms to
      // 911 ms beside a purge that ran its batches back to back).
      await sleep(Math.min(performance.now() - started, MAX_PAUSE_MS));
    }
    const last = page.at(-1);
    // A short page is the end of the table; a page that reached young events, the end of the old ones.
    if (!last || page.length < batchSize || Number(last.created) >= cutoff.seconds) break;
    after = { created: Number(last.created), seq: Number(last.seq) };
  }
  return counts;
}

/** The next `limit` events after `after` in primary key order, each with whether a delivery keeps it. */
function readPage(db: Queryable, table: string, after: { created: number; seq: number } | undefined, limit: number, cutoffMs: number) {
  const walk = walkByPrimaryKey(db, 'e', after);
  return db.all<{ seq: number; id: string; created: number; kept: number }>(
    `SELECT e.seq, e.id, e.created, CASE WHEN EXISTS (${keepingDelivery('e')}) THEN 1 ELSE 0 END AS kept
     FROM ${table} e WHERE ${walk.where} ORDER BY ${walk.orderBy} LIMIT ${limit}`,
    [cutoffMs, ...walk.params],
  );
}

/**
 * One batch, in its transaction: the events are checked again (a delivery may have been retried
 * since the page was read), then their attempts, deliveries and the events themselves deleted.
 */
async function deleteEvents(
  tx: Queryable,
  candidates: readonly string[],
  cutoff: RetentionCutoff,
): Promise<EventPurgeCounts> {
  const events = (
    await tx.all<{ id: string }>(
      `SELECT e.id FROM events e WHERE ${inJsonArray(tx.dialect, 'e.id')} AND e.created < ? AND NOT EXISTS (${keepingDelivery('e')})`,
      [JSON.stringify(candidates), cutoff.seconds, cutoff.ms],
    )
  ).map((row) => row.id);
  if (events.length === 0) return { events: 0, deliveries: 0, attempts: 0 };
  const eventIds = JSON.stringify(events);
  // Through the `(account_id, event_id)` index, one seek per event.
  const deliveries = await tx.all<{ id: string }>(
    `SELECT d.id FROM events e JOIN webhook_deliveries d ON d.account_id = e.account_id AND d.event_id = e.id
     WHERE ${inJsonArray(tx.dialect, 'e.id')}`,
    [eventIds],
  );
  const deliveryIds = JSON.stringify(deliveries.map((row) => row.id));
  const attempts = deliveries.length === 0 ? 0 : await tx.run(`DELETE FROM webhook_attempts WHERE ${inJsonArray(tx.dialect, 'delivery_id')}`, [deliveryIds]);
  const deletedDeliveries =
    deliveries.length === 0 ? 0 : await tx.run(`DELETE FROM webhook_deliveries WHERE ${inJsonArray(tx.dialect, 'id')}`, [deliveryIds]);
  const deletedEvents = await tx.run(`DELETE FROM events WHERE ${inJsonArray(tx.dialect, 'id')}`, [eventIds]);
  return { events: deletedEvents, deliveries: deletedDeliveries, attempts };
}

/** What one run of {@link retireExpiredEvents} did: rows deleted one by one, and (Postgres) months dropped whole. */
export interface EventRetirement extends EventPurgeCounts {
  /** The months whose partitions were dropped (`2026-01`), oldest first. */
  droppedMonths: string[];
  /** Partitions created ahead, or for a month that had rows in the default partition. */
  createdPartitions: string[];
}

/**
 * One retention run of the worker. SQLite: {@link purgeExpiredEvents}. Postgres: the month partitions
 * ahead are made sure of, every month wholly past the cutoff whose deliveries keep none of its events
 * is dropped with its deliveries and attempts ({@link dropExpiredMonths}), and the default
 * partition's rows (a month that had no partition when they were written) are purged row by row.
 * A month that a delivery still keeps is dropped at a later run, once none does.
 */
export async function retireExpiredEvents(
  db: Queryable,
  nowMs: number,
  retentionDays: number,
  limits: EventPurgeLimits = {},
): Promise<EventRetirement> {
  if (!partitionsEvents(db)) {
    return { ...(await purgeExpiredEvents(db, nowMs, retentionDays, limits)), droppedMonths: [], createdPartitions: [] };
  }
  const createdPartitions = await ensureMonthPartitions(db, nowMs);
  const droppedMonths = await dropExpiredMonths(db, retentionCutoff(nowMs, retentionDays));
  const counts = await purgeExpiredEvents(db, nowMs, retentionDays, { ...limits, eventsTable: 'events_default' });
  return { ...counts, droppedMonths, createdPartitions };
}

/**
 * Postgres: drops the month partitions that end at or before the cutoff and hold no event a
 * delivery keeps (checked on that month's deliveries alone). Returns the months dropped; a month
 * whose locks were not had within the lock timeout is left for the next run.
 */
export async function dropExpiredMonths(db: Queryable, cutoff: RetentionCutoff): Promise<string[]> {
  // A drop a stop cut short between its detach and its drops.
  await dropDetachedMonths(db);
  const dropped: string[] = [];
  for (const month of await monthPartitions(db, 'events')) {
    if (monthBounds(month).to > cutoff.seconds) break;
    const deliveries = partitionName('webhook_deliveries', month);
    const kept = await db.one(
      `SELECT 1 AS kept FROM ${deliveries} k
       WHERE k.status = 'pending' OR (k.status = 'failed' AND (k.completed_at IS NULL OR k.completed_at >= ?)) LIMIT 1`,
      [cutoff.ms],
    );
    if (kept === undefined && (await dropMonth(db, month))) {
      dropped.push(`${month.year}-${String(month.month).padStart(2, '0')}`);
    }
  }
  return dropped;
}

/**
 * Runs {@link retireExpiredEvents} at once, then every `intervalMs`, as a repeating job (one run at
 * a time; stopping ends a run under way after its current batch).
 */
export function startEventRetention(
  deps: { db: Queryable; clock: Clock; logger: Logger; retentionDays: number },
  intervalMs: number,
): RepeatingJob {
  const { db, clock, logger, retentionDays } = deps;
  return startRepeatingJob({ name: 'event retention', logger, intervalMs, runAtStart: true }, async (job) => {
    const { createdPartitions, droppedMonths, ...counts } = await retireExpiredEvents(db, clock.nowMs(), retentionDays, {
      proceed: () => !job.stopping,
    });
    if (createdPartitions.length > 0) logger.info({ createdPartitions }, 'created month partitions');
    if (counts.events > 0 || droppedMonths.length > 0) {
      logger.info({ ...counts, droppedMonths, retentionDays }, 'purged events past their retention');
    }
  });
}
