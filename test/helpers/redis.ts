import { Redis } from 'ioredis';
import { FAST_RUN } from './fast-run.js';

/** The Redis that tests count rate limits in (the machine's, by default). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** CI sets REQUIRE_POSTGRES (or REQUIRE_REDIS): a run that cannot reach Redis then fails instead of skipping its tests. */
const REDIS_REQUIRED = process.env.REQUIRE_POSTGRES === 'true' || process.env.REQUIRE_REDIS === 'true';

let reachable: Promise<boolean> | undefined;

/** A client of `url` that fails at once rather than queueing or retrying, and says nothing on its own. */
export function testRedisClient(url = TEST_REDIS_URL): Redis {
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined); // reported by the command that failed
  return client;
}

async function canReachRedis(): Promise<boolean> {
  const client = testRedisClient();
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    if (REDIS_REQUIRED) throw new Error(`REQUIRE_POSTGRES is set but Redis at ${TEST_REDIS_URL} is unreachable: ${String(error)}`);
    return false;
  } finally {
    client.disconnect();
  }
}

/** In a `before` hook: skips the suite when Redis is unreachable or in the fast run, or fails it when CI requires Redis. */
export async function requireRedis(context: Mocha.Context): Promise<void> {
  if (FAST_RUN) context.skip();
  reachable ??= canReachRedis();
  if (!(await reachable)) context.skip();
}
