import type { Database } from './database.js';
import type { AllowanceStore } from './rate-limit-slices.js';

/** Now in Unix milliseconds by the database's clock, so that processes with skewed clocks agree on windows. */
const NOW_MS = '(extract(epoch from now()) * 1000)::bigint';

/**
 * One increment: a row whose window has ended (or no row) starts a new window at `points`. The
 * SET expressions both read the row as it was, and the row lock of the upsert makes concurrent
 * takes of a key add up. Rows are those of migration 0005, shared with `RateLimiterPostgres`
 * (failed authentications) under other key prefixes.
 */
const TAKE = `
  INSERT INTO rate_limits (key, points, expire) VALUES ($1, $2, ${NOW_MS} + $3)
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN rate_limits.expire > ${NOW_MS} THEN rate_limits.points + excluded.points ELSE excluded.points END,
    expire = CASE WHEN rate_limits.expire > ${NOW_MS} THEN rate_limits.expire ELSE excluded.expire END
  RETURNING points, expire, expire - ${NOW_MS} AS ms_left`;

/** A window is named by its end: a later window of the key always ends later. */
const GIVE_BACK = 'UPDATE rate_limits SET points = points - $2 WHERE key = $1 AND expire = $3';

interface TakenRow {
  points: number;
  /** Unix milliseconds (bigint, which postgres.ts reads as a number). */
  expire: number;
  ms_left: number;
}

/**
 * The `rate_limits` table of a Postgres database as the shared store of `SlicedRateLimiter`:
 * a take is one upsert, a give-back one update, both on the process's pool.
 */
export function postgresAllowanceStore(db: Database): AllowanceStore {
  return {
    async take(key, points, durationMs) {
      const [row] = await db.all<TakenRow>(TAKE, [key, points, durationMs]);
      // `now()` is when each transaction began: a take that began a moment before the one that
      // started the window reads it as ending up to that moment beyond its duration.
      return { count: Number(row.points), msLeft: Math.min(durationMs, Number(row.ms_left)), window: String(row.expire) };
    },
    async giveBack(key, points, window) {
      await db.run(GIVE_BACK, [key, points, window]);
    },
    // The database is the process's, closed with it.
    close: async () => undefined,
  };
}
