import type { Queryable } from '../db/database.js';

/**
 * Counts stop here, so a scrape stays cheap however many deliveries pile up (failed ones are kept
 * for good). On SQLite a scrape runs on the API's own thread: with 150,000 deliveries a whole scrape
 * took ~7 ms with a cap of 100,000 and ~2.5 ms with this one (Postgres: ~18 ms with 100,000).
 * Beyond the cap, the oldest pending delivery's age tells how far behind the workers are.
 */
export const BACKLOG_COUNT_CAP = 10_000;

/** Deliveries in a status, counted on the `(status, next_attempt_at)` index up to `BACKLOG_COUNT_CAP`. */
export async function countDeliveriesInStatus(db: Queryable, status: 'pending' | 'failed'): Promise<number> {
  const row = await db.one<{ n: number | string }>(
    'SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE status = ? LIMIT ?) capped',
    [status, BACKLOG_COUNT_CAP],
  );
  return Number(row?.n ?? 0);
}

/** When the earliest pending delivery is or was due (unix ms), one seek on the same index; null when none is pending. */
export async function earliestPendingDueAt(db: Queryable): Promise<number | null> {
  const row = await db.one<{ due: number | string | null }>(
    "SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE status = 'pending'",
  );
  return row?.due == null ? null : Number(row.due);
}
