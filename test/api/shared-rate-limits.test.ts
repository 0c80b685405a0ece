import { expect } from 'chai';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { REDIS_KEY_PREFIX } from '../../src/db/rate-limit-redis.js';
import { sliceSize } from '../../src/db/rate-limit-slices.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { freePort, startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { createDatabase, forEachDatabase, type Engine, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { requireRedis, TEST_REDIS_URL, testRedisClient } from '../helpers/redis.js';
import { ADMIN_AUTHORIZATION } from '../helpers/test-server.js';

/** 60 per minute: a window far longer than a test, so that none ends in the middle of one. */
const LIMIT = 60;
const LIMITED_ENV = { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_WINDOW_SECONDS: '60' };
/** docs/conventions.md#rate-limits: with P processes, a key may be refused early by (P − 1) × slice. */
const EARLY_REFUSALS_OF_TWO = sliceSize(LIMIT);
/** Starting API processes of tsx on a busy machine takes a while. */
const START_TIMEOUT_MS = 120_000;

type Store = 'postgres' | 'redis';

/** A new account's API key, and the name its count has in the store (`api:api_key:<key id>`). */
interface TestKey {
  secret: string;
  storeKey: string;
}

/** Where the API processes of a suite count, read back by the test. */
interface Counts {
  /** The key's count in its current window, as the store holds it. */
  of(key: TestKey): Promise<number>;
  close(): Promise<void>;
}

async function newKey(url: string): Promise<TestKey> {
  const admin = { headers: { Authorization: ADMIN_AUTHORIZATION } };
  const account = await new ApiClient(url).post('/admin/accounts', { name: 'Limited', email: 'limited@example.com' }, admin);
  expect(account.status, JSON.stringify(account.body)).to.equal(200);
  const keys = await new ApiClient(url).get(`/admin/accounts/${account.body.id}/api_keys`, admin);
  // The account's secret key (its publishable key is listed beside it).
  const secretKeys = keys.body.data.filter((key: { type: string }) => key.type !== 'publishable');
  expect(secretKeys).to.have.length(1);
  return { secret: account.body.api_key, storeKey: `api:api_key:${secretKeys[0].id}` };
}

/** Sends `count` requests at once to each process, with one key; every answer is a 200 or a 429. */
async function burst(processes: ApiProcess[], key: TestKey, count: number): Promise<ApiResponse[]> {
  const sends = processes.flatMap((p) => Array.from({ length: count }, () => new ApiClient(p.url, key.secret).get('/v1/charges?limit=1')));
  const responses = await Promise.all(sends);
  for (const res of responses) expect([200, 429], JSON.stringify(res.body)).to.include(res.status);
  return responses;
}

const admitted = (responses: ApiResponse[]) => responses.filter((res) => res.status === 200).length;
const remainingOf = (res: ApiResponse) => Number(res.headers.get('ratelimit-remaining'));

function postgresCounts(url: string): Counts {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    async of(key) {
      await connected;
      const { rows } = await client.query('SELECT points FROM rate_limits WHERE key = $1', [key.storeKey]);
      return rows.length === 0 ? 0 : Number(rows[0].points);
    },
    close: () => client.end(),
  };
}

function redisCounts(client: Redis, keys: TestKey[]): Counts {
  return {
    async of(key) {
      return Number((await client.hget(REDIS_KEY_PREFIX + key.storeKey, 'n')) ?? 0);
    },
    async close() {
      // The keys would expire with their window; a run leaves none behind.
      if (keys.length > 0) await client.del(...keys.map((key) => REDIS_KEY_PREFIX + key.storeKey));
      client.disconnect();
    },
  };
}

/**
 * Starts `count` API processes over a new database of `engine`, counting in `store`, for the
 * suite: `processes` and `counts` are filled in `before` and emptied in `after`, with the
 * counters of the keys it made.
 */
function useLimitedProcesses(engine: Engine, store: Store, count: number) {
  const redisKeys: TestKey[] = [];
  const suite = {
    processes: [] as ApiProcess[],
    counts: undefined as unknown as Counts,
    /** A new account's key, whose counter the suite removes from Redis at the end. */
    async newKey(): Promise<TestKey> {
      const key = await newKey(suite.processes[0].url);
      redisKeys.push(key);
      return key;
    },
  };
  let database: TestDatabase | undefined;
  before(async function () {
    requireProcesses(this);
    this.timeout(START_TIMEOUT_MS);
    if (store === 'redis') await requireRedis(this);
    database = await createDatabase(engine);
    const env = store === 'redis' ? { ...LIMITED_ENV, REDIS_URL: TEST_REDIS_URL } : LIMITED_ENV;
    for (let i = 0; i < count; i++) suite.processes.push(await startApiProcess(database.target, env));
    if (store === 'redis') {
      const client = testRedisClient();
      await client.connect();
      suite.counts = redisCounts(client, redisKeys);
    } else suite.counts = postgresCounts((database.target as { url: string }).url);
  });
  after(async () => {
    await Promise.all(suite.processes.splice(0).map((p) => p.stop()));
    await suite.counts?.close();
    await database?.drop();
  });
  return suite;
}

describe('REDIS_URL', () => {
  it('takes a redis:// or rediss:// URL, and refuses anything else at start', () => {
    expect(loadConfig({}).redisUrl).to.equal(undefined);
    expect(loadConfig({ REDIS_URL: 'rediss://user:secret@cache.internal:6380/2' }).redisUrl).to.equal('rediss://user:secret@cache.internal:6380/2');
    for (const wrong of ['http://127.0.0.1:6379', '127.0.0.1:6379']) {
      expect(() => loadConfig({ REDIS_URL: wrong })).to.throw('REDIS_URL must be a redis:// or rediss:// URL');
    }
  });
});

forEachDatabase('rate limits shared in slices', (engine) => {
  // Several API processes share a database only on Postgres; Redis serves either engine.
  const stores: Store[] = engine === 'postgres' ? ['postgres', 'redis'] : ['redis'];
  for (const store of stores) {
    describe(`counted in ${store}`, () => {
      const processCount = engine === 'postgres' ? 2 : 1;
      const suite = useLimitedProcesses(engine, store, processCount);
      const tolerance = (processCount - 1) * EARLY_REFUSALS_OF_TWO;

      const who = processCount === 1 ? 'one process admits the limit' : 'two processes admit the limit between them';
      it(`${who} (to within the stated tolerance), never more, and the store counts what was admitted`, async function () {
        this.timeout(60_000);
        const key = await suite.newKey();
        const responses = await burst(suite.processes, key, LIMIT);
        expect(admitted(responses)).to.be.within(LIMIT - tolerance, LIMIT);
        expect(responses.every((res) => res.headers.get('ratelimit-limit') === String(LIMIT))).to.equal(true);
        // The store counted what was admitted: what it counted beyond the limit was given back,
        // and so was anything a process held unused (once idle).
        await eventually(async () => expect(await suite.counts.of(key)).to.equal(admitted(responses)), 10_000);
        const more = await burst(suite.processes, key, 5);
        expect(admitted(responses) + admitted(more)).to.be.at.most(LIMIT);
      });

      it('answers RateLimit-Remaining that never rises for the requests one process serves', async function () {
        this.timeout(30_000);
        const key = await suite.newKey();
        const seen: number[][] = suite.processes.map(() => []);
        for (let i = 0; i < 10; i++) {
          for (const [n, p] of suite.processes.entries()) {
            const res = await new ApiClient(p.url, key.secret).get('/v1/charges?limit=1');
            expect(res.status).to.equal(200);
            seen[n].push(remainingOf(res));
          }
        }
        for (const remaining of seen) {
          for (let i = 1; i < remaining.length; i++) expect(remaining[i], remaining.join(',')).to.be.lessThan(remaining[i - 1]);
        }
        // One process alone sees the key's whole count: one less per request.
        if (processCount === 1) expect(seen[0]).to.deep.equal(Array.from({ length: 10 }, (_, i) => LIMIT - 1 - i));
      });

      if (processCount > 1) {
        it('gives back a slice left idle, so that another process can use all of the rest', async function () {
          this.timeout(30_000);
          const [a, b] = suite.processes;
          const key = await suite.newKey();
          expect((await new ApiClient(a.url, key.secret).get('/v1/charges?limit=1')).status).to.equal(200);
          expect(await suite.counts.of(key)).to.equal(sliceSize(LIMIT));
          // a used one point of its slice; the rest goes back once the key is idle there.
          await eventually(async () => expect(await suite.counts.of(key)).to.equal(1), 10_000);
          const atB = await burst([b], key, LIMIT + 10);
          expect(admitted(atB)).to.equal(LIMIT - 1);
          expect((await new ApiClient(a.url, key.secret).get('/v1/charges?limit=1')).status).to.equal(429);
        });
      }
    });
  }

  describe('Redis unreachable', () => {
    let database: TestDatabase | undefined;
    let server: ApiProcess | undefined;
    after(async () => {
      await server?.stop();
      await database?.drop();
    });

    it('starts, says so, and serves requests counting them in memory, with no 500', async function () {
      requireProcesses(this);
      this.timeout(START_TIMEOUT_MS);
      database = await createDatabase(engine);
      // A port nothing listens on: connections are refused.
      const closed = `redis://127.0.0.1:${await freePort()}`;
      server = await startApiProcess(database.target, { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_WINDOW_SECONDS: '3', REDIS_URL: closed });
      expect(server.output()).to.match(/Redis unreachable at start/);
      const key = await newKey(server.url);
      const responses: ApiResponse[] = [];
      for (let i = 0; i < 5; i++) responses.push(await new ApiClient(server.url, key.secret).get('/v1/charges?limit=1'));
      expect(responses.map((res) => res.status)).to.deep.equal([200, 200, 200, 429, 429]);
      expect(responses.slice(0, 3).map(remainingOf)).to.deep.equal([2, 1, 0]);
    });
  });
});
