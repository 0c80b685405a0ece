import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logging/logger.js';
import type { Database, SqlValue } from './database.js';
import { postgresAllowanceStore } from './rate-limit-postgres.js';
import { openRedisAllowanceStore } from './rate-limit-redis.js';
import { SlicedRateLimiter } from './rate-limit-slices.js';

/** How many requests one key may make per window, and how long a window lasts. */
export interface RateLimitWindow {
  points: number;
  durationSeconds: number;
}

/** A limiter of requests per key, and how to close what it holds (slices to give back, a Redis connection). */
export type RequestRateLimiter = Pick<RateLimiterAbstract, 'consume' | 'points' | 'duration'> & { close(): Promise<void> };

/** Where the API's request counters may live besides the database. */
export interface RequestRateLimiterOptions {
  /** `REDIS_URL`: count in this Redis, on either engine. */
  redisUrl?: string;
  logger: Logger;
}

/**
 * The limiter of API requests per credential (`api:` keys), shared by every API process:
 *
 * - with `redisUrl`, over Redis (either engine), in slices (`SlicedRateLimiter`);
 * - else on Postgres, over `rate_limits`, in slices;
 * - else (SQLite, one process) in memory, at no cost.
 *
 * It resolves even when Redis is unreachable: the limiter then counts in memory until Redis answers.
 */
export async function createRequestRateLimiter(
  db: Database,
  window: RateLimitWindow,
  options: RequestRateLimiterOptions,
): Promise<RequestRateLimiter> {
  const sliced = { keyPrefix: 'api', logger: options.logger };
  if (options.redisUrl) return new SlicedRateLimiter(await openRedisAllowanceStore(options.redisUrl, options.logger), window, sliced);
  if (db.dialect === 'postgres') return new SlicedRateLimiter(postgresAllowanceStore(db), window, sliced);
  const memory = new RateLimiterMemory({ keyPrefix: 'api', points: window.points, duration: window.durationSeconds });
  return Object.assign(memory, { close: async () => undefined });
}

/** The subset of a pg client that `RateLimiterPostgres` calls: `query({ text, values })`. */
interface PgLikeClient {
  query(statement: { text: string; values?: SqlValue[] }): Promise<{ rows: unknown[]; rowCount: number }>;
}

/**
 * The counters of a rate limiter that counts every event in the store, kept where every API
 * process of this database sees them: the failed authentications per client address
 * (auth/auth-failures.ts, `keyPrefix` `authfail`), which are few and read with `get`. Requests per
 * credential are counted by `createRequestRateLimiter`, in slices.
 *
 * - SQLite serves one process: the counters live in its memory and cost nothing.
 * - Postgres may serve many: each count is one upsert into `rate_limits` (migration 0005), so a
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
