import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database, SqlValue } from './database.js';

/** How many requests one key may make per window, and how long a window lasts. */
export interface RateLimitWindow {
  points: number;
  durationSeconds: number;
}

/** The subset of a pg client that `RateLimiterPostgres` calls: `query({ text, values })`. */
interface PgLikeClient {
  query(statement: { text: string; values?: SqlValue[] }): Promise<{ rows: unknown[]; rowCount: number }>;
}

/**
 * The counters of a rate limiter, kept where every API process of this database sees them.
 * `keyPrefix` keeps limiters apart in one table: `api` counts requests per credential, `authfail`
 * failed authentications per client address (http/auth-failures.ts).
 *
 * - SQLite serves one process: the counters live in its memory and cost nothing.
 * - Postgres may serve many: each request is one upsert into `rate_limits` (migration 0005), so a
 *   key's allowance is shared by every process. Once a key has spent its allowance, this process
 *   refuses it from memory until the window ends, so a client hammering past its limit costs no
 *   further writes here. Should the database fail, each process falls back to counting alone in
 *   memory rather than turning every request into a 500.
 */
export function createRateLimitStore(db: Database, window: RateLimitWindow, keyPrefix = 'api'): RateLimiterAbstract {
  const options = { keyPrefix, points: window.points, duration: window.durationSeconds };
  if (db.dialect === 'sqlite') return new RateLimiterMemory(options);
  return new RateLimiterPostgres({
    ...options,
    storeClient: pgClientOver(db),
    storeType: 'client',
    tableName: 'rate_limits',
    tableCreated: true,
    inMemoryBlockOnConsumed: window.points,
    insuranceLimiter: new RateLimiterMemory(options),
  });
}

/**
 * Our database seen as the pg client the library expects, so that its statements run on the
 * process's one pool (prepared once per connection, like ours). Its SQL is already numbered
 * (`$1`), which our `?` rewriting leaves alone.
 */
function pgClientOver(db: Database): PgLikeClient {
  return {
    async query({ text, values }) {
      // A DELETE reports how many rows went (the library's `delete` answers whether the key existed).
      if (/^\s*DELETE\b/i.test(text)) return { rows: [], rowCount: await db.run(text, values) };
      const rows = await db.all<unknown>(text, values);
      return { rows, rowCount: rows.length };
    },
  };
}
