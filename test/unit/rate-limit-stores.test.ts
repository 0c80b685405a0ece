import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open-database.js';
import { postgresAllowanceStore } from '../../src/db/rate-limit-postgres.js';
import { openRedisAllowanceStore, REDIS_KEY_PREFIX } from '../../src/db/rate-limit-redis.js';
import type { AllowanceStore } from '../../src/db/rate-limit-slices.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { requireRedis, TEST_REDIS_URL, testRedisClient } from '../helpers/redis.js';

const MINUTE_MS = 60_000;

/** The contract `SlicedRateLimiter` relies on, for each shared store. */
function behavesAsAllowanceStore(
  open: () => Promise<{ store: AllowanceStore; close(): Promise<void> }>,
) {
  let opened: Awaited<ReturnType<typeof open>>;
  let key: string;
  beforeEach(async () => {
    opened = await open();
    key = `api:test:${randomBytes(6).toString('hex')}`;
  });
  afterEach(() => opened.close());

  it('adds concurrent takes up, within one window', async () => {
    const taken = await Promise.all(Array.from({ length: 20 }, () => opened.store.take(key, 3, MINUTE_MS)));
    expect(taken.map((t) => t.count).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 20 }, (_, i) => 3 * (i + 1)));
    expect(new Set(taken.map((t) => t.window)).size).to.equal(1);
    for (const t of taken) expect(t.msLeft).to.be.within(1, MINUTE_MS);
  });

  it('gives back into the window the points were taken in', async () => {
    const first = await opened.store.take(key, 5, MINUTE_MS);
    await opened.store.giveBack(key, 4, first.window);
    expect((await opened.store.take(key, 1, MINUTE_MS)).count).to.equal(2);
  });

  it('starts a new window once the last has ended, and drops a give-back for the ended one', async () => {
    // A window of a millisecond, over well before the next take.
    const first = await opened.store.take(key, 5, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await opened.store.take(key, 2, MINUTE_MS);
    expect(second.count).to.equal(2);
    expect(second.window).not.to.equal(first.window);
    await opened.store.giveBack(key, 4, first.window);
    expect((await opened.store.take(key, 1, MINUTE_MS)).count).to.equal(3);
  });
}

forEachDatabase('the Postgres allowance store', (engine) => {
  if (engine !== 'postgres') return;
  let database: TestDatabase;
  let db: Database;
  before(async () => {
    database = await createDatabase('postgres');
    db = await openDatabase(database.target);
  });
  after(async () => {
    await db?.close();
    await database?.drop();
  });

  behavesAsAllowanceStore(async () => ({
    store: postgresAllowanceStore(db),
    close: async () => undefined,
  }));
});

describe('the Redis allowance store', () => {
  before(async function () {
    await requireRedis(this);
  });

  const used: string[] = [];
  behavesAsAllowanceStore(async () => {
    const store = await openRedisAllowanceStore(TEST_REDIS_URL, pino({ level: 'silent' }));
    const client = testRedisClient();
    await client.connect();
    return {
      store: {
        ...store,
        take: (key, points, durationMs) => (used.push(key), store.take(key, points, durationMs)),
      },
      async close() {
        if (used.length > 0) await client.del(...used.splice(0).map((key) => REDIS_KEY_PREFIX + key));
        client.disconnect();
        await store.close();
      },
    };
  });
});
