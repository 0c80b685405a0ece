import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.js';
import type { AllowanceStore } from './rate-limit-slices.js';

/** Where this service's counters live in a Redis that others may share. */
export const REDIS_KEY_PREFIX = 'payments-api:rate-limit:';

/**
 * One increment. A key is a hash, `n` the count and `w` the window's name, and expires with its
 * window: a missing key starts a new window named `ARGV[3]`. Scripts run atomically, and a key does
 * not expire while one runs.
 */
const TAKE = `
if redis.call('exists', KEYS[1]) == 0 then
  redis.call('hset', KEYS[1], 'w', ARGV[3])
  redis.call('pexpire', KEYS[1], ARGV[2])
end
local count = redis.call('hincrby', KEYS[1], 'n', ARGV[1])
return {count, redis.call('pttl', KEYS[1]), redis.call('hget', KEYS[1], 'w')}`;

/** Only into the window the points were taken from. */
const GIVE_BACK = `
if redis.call('hget', KEYS[1], 'w') == ARGV[2] then
  return redis.call('hincrby', KEYS[1], 'n', -tonumber(ARGV[1]))
end
return false`;

/** The client with the two scripts defined on it (ioredis sends them by SHA, loading them once). */
interface ScriptedRedis extends Redis {
  rateLimitTake(key: string, points: number, durationMs: number, window: string): Promise<[number, number, string]>;
  rateLimitGiveBack(key: string, points: number, window: string): Promise<number | null>;
}

/** How long a connection attempt, and then a command, may take before the limiter counts in memory. */
const CONNECT_TIMEOUT_MS = 2000;
const COMMAND_TIMEOUT_MS = 1000;

/**
 * Redis at `url` as the shared store of `SlicedRateLimiter`. It resolves even when Redis does not
 * answer (a warning is logged): the client keeps reconnecting in the background, and meanwhile
 * each command fails at once (no offline queue), so the limiter counts in memory rather than
 * making requests wait. Connection losses and recoveries are logged once each.
 */
export async function openRedisAllowanceStore(url: string, logger: Logger): Promise<AllowanceStore> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
  }) as ScriptedRedis;
  client.defineCommand('rateLimitTake', { numberOfKeys: 1, lua: TAKE });
  client.defineCommand('rateLimitGiveBack', { numberOfKeys: 1, lua: GIVE_BACK });
  reportConnection(client, url, logger);
  await client.connect().catch(() => undefined); // reported by reportConnection
  const windowNames = windowNamer();
  return {
    async take(key, points, durationMs) {
      const [count, msLeft, window] = await client.rateLimitTake(REDIS_KEY_PREFIX + key, points, durationMs, windowNames());
      return { count: Number(count), msLeft: Number(msLeft), window: String(window) };
    },
    async giveBack(key, points, window) {
      await client.rateLimitGiveBack(REDIS_KEY_PREFIX + key, points, window);
    },
    async close() {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}

/** Logs the first error of each outage (ioredis emits one per reconnection attempt) and each recovery. */
function reportConnection(client: Redis, url: string, logger: Logger): void {
  const where = redactedUrl(url);
  let down = false;
  let everReady = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    const when = everReady ? 'lost' : 'unreachable at start';
    logger.warn({ redis: where, err: error }, `Redis ${when}: rate limits are counted in each process's memory until it answers`);
  });
  client.on('ready', () => {
    if (down) logger.info({ redis: where }, 'Redis answers: rate limits are shared again');
    down = false;
    everReady = true;
  });
}

/** Names for new windows, unique across processes: a random prefix per process and a counter. */
function windowNamer(): () => string {
  const prefix = randomBytes(6).toString('base64url');
  let next = 0;
  return () => `${prefix}.${next++}`;
}

/** The URL without its password, for logs. */
function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
