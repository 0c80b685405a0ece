/**
 * What rate limits cost (issue 16, item 3: at most 10% of a GET). The pass's server runs with
 * limits off; for these rows a second server process is started on the same database with limits
 * on (`RATE_LIMIT_PER_SECOND=1000000`, so nothing is refused: the cost of counting is measured,
 * not that of 429s), and, on Postgres, a third with `REDIS_URL` (the counters in Redis). Each runs
 * back to back with the server with limits off, both after one baseline run, and is stopped after.
 *
 * Before measuring, the bench proves what it measures: the limited server sends `RateLimit-Limit`
 * and the other does not; the Redis one holds a connection to Redis once it has counted a request.
 * Otherwise the Redis row is skipped with a note (so is it when Redis cannot be reached, or
 * `BENCH_REDIS_URL` is set empty). The server takes allowance in slices, not a command per
 * request, so the commands Redis processed during the run (every client's) are noted, not required.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { target, type Baseline, type Interleaver } from './interleave.js';
import { measure, type Scenario } from './load.js';
import type { Row } from './report.js';
import type { StartNode } from './prism.js';
import { stopServer, type ServerProcess } from './processes.js';

const run = promisify(execFile);
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** High enough that the bench's load is never refused. */
const LIMITED_ENV = { RATE_LIMIT_PER_SECOND: '1000000' };
const MINIMUM = 0.9;

/** What the rate-limit rows need from the pass. */
export interface RateLimitContext {
  database: 'sqlite' | 'postgres';
  /** The pass's server environment (its database), which the limited servers share. */
  env: Record<string, string>;
  /** The pass's server, limits off. */
  server: ServerProcess;
  getBaseline: Baseline;
  /** `GET /v1/charges/{id}` of the pass. */
  byId: Scenario;
  interleaver: Interleaver;
  startNode: StartNode;
}

interface Variant {
  name: string;
  env: Record<string, string>;
  redisUrl?: string;
}

/** Measures the rate-limit rows of a pass; returns notes (rows skipped and why, Redis's commands). */
export async function measureRateLimits(ctx: RateLimitContext): Promise<string[]> {
  const notes: string[] = [];
  const variants: Variant[] = [{ name: `${ctx.byId.name}, rate limits on`, env: {} }];
  if (ctx.database === 'postgres') {
    const name = `${ctx.byId.name}, rate limits in Redis`;
    const redisUrl = process.env.BENCH_REDIS_URL ?? DEFAULT_REDIS_URL;
    const unreachable = redisUrl ? await whyUnreachable(redisUrl) : 'BENCH_REDIS_URL is set empty';
    if (unreachable) notes.push(`"${name}" skipped: ${unreachable}.`);
    else variants.push({ name, env: { REDIS_URL: redisUrl }, redisUrl });
  }
  for (const variant of variants) {
    const note = await measureVariant(ctx, variant);
    if (note) notes.push(note);
  }
  return notes;
}

/** Starts the variant's server, proves its limits are on (and in Redis), measures, stops it. */
async function measureVariant(ctx: RateLimitContext, variant: Variant): Promise<string | undefined> {
  const limited = await ctx.startNode(
    `server (${ctx.database}, ${variant.name})`,
    ['--import', 'tsx', 'src/main.ts'],
    // ROLE=api: one webhook worker on the database is enough (the pass's server has it).
    { ...ctx.env, ...LIMITED_ENV, ...variant.env, ROLE: 'api' },
    '/healthz',
  );
  try {
    await expectLimitHeaders(ctx.server, ctx.byId, false);
    await expectLimitHeaders(limited, ctx.byId, true);
    // A process started just now runs colder code than the pass's server, warmed by every row
    // before: one discarded run first, so that the comparison is of the limits, not of the JIT.
    await measure(limited.url, ctx.byId, ctx.getBaseline.settings);
    if (!variant.redisUrl) {
      await measureAgainstLimitsOff(ctx, limited, variant.name);
      return undefined;
    }
    if (!(await holdsConnectionTo(limited.child.pid!, redisPort(variant.redisUrl))))
      return `"${variant.name}" skipped: the server opened no connection to Redis at ${variant.redisUrl} (does it read REDIS_URL?).`;
    const redis = await commandCounter(variant.redisUrl);
    try {
      const on = await measureAgainstLimitsOff(ctx, limited, variant.name, redis.start);
      return (
        `"${variant.name}": Redis processed ${await redis.count()} commands (every client's) ` +
        `during its run of ${on.requests} requests and its warm-up.`
      );
    } finally {
      redis.close();
    }
  } finally {
    await stopServer(limited);
  }
}

/** One baseline run, the pass's server (limits off), then `limited`: the latter's row, with its target. */
async function measureAgainstLimitsOff(
  ctx: RateLimitContext,
  limited: ServerProcess,
  name: string,
  beforeRun?: () => Promise<void>,
): Promise<Row> {
  const [off, on] = await ctx.interleaver.againstOne(ctx.getBaseline, [
    { url: ctx.server.url, scenario: { ...ctx.byId, name: `${ctx.byId.name}, rate limits off (before the next)` } },
    { url: limited.url, scenario: { ...ctx.byId, name }, beforeRun },
  ]);
  target(on, `≥ ${MINIMUM.toFixed(2)} × limits off`, on.requestsPerSecond / off.requestsPerSecond, MINIMUM);
  return on;
}

/** Throws unless the server's answer to the scenario has `RateLimit-Limit` exactly when `limited`. */
async function expectLimitHeaders(server: ServerProcess, scenario: Scenario, limited: boolean): Promise<void> {
  const res = await fetch(server.url + scenario.path, { headers: scenario.headers });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${server.name}: GET ${scenario.path} answered ${res.status}`);
  if (res.headers.has('ratelimit-limit') !== limited)
    throw new Error(`${server.name}: rate limits are ${limited ? 'off' : 'on'}, expected ${limited ? 'on' : 'off'}`);
}

/** Undefined if Redis at `url` answers a PING, else why not. */
async function whyUnreachable(url: string): Promise<string | undefined> {
  const client = quietClient(url);
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `Redis at ${url} does not answer (${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
}

/** Counts the commands Redis processes (every client's) from `start()` to `count()`. */
async function commandCounter(
  url: string,
): Promise<{ start(): Promise<void>; count(): Promise<number>; close(): void }> {
  const client = quietClient(url);
  await client.connect();
  let before = 0;
  return {
    start: async () => void (before = await commandsProcessed(client)),
    // Less one: the INFO that read `before` is counted once it has run.
    count: async () => (await commandsProcessed(client)) - before - 1,
    close: () => client.disconnect(),
  };
}

function redisPort(url: string): number {
  return Number(new URL(url).port || 6379);
}

/** A client that fails at once instead of retrying, and says nothing on its own. */
function quietClient(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {
    // reported by the command that failed
  });
  return client;
}

/** The server's count of commands processed since it started (every client's). */
async function commandsProcessed(client: Redis): Promise<number> {
  const stats = await client.info('stats');
  const match = /total_commands_processed:(\d+)/.exec(stats);
  if (!match) throw new Error('Redis INFO stats has no total_commands_processed');
  return Number(match[1]);
}

/** Whether `pid` or one of its children has an established TCP connection to `port` (Linux: ss, ps). */
async function holdsConnectionTo(pid: number, port: number): Promise<boolean> {
  // ps exits 1 when it lists nothing.
  const children = await run('ps', ['--ppid', String(pid), '-o', 'pid=']).then(
    ({ stdout }) => stdout.split(/\s+/).filter(Boolean).map(Number),
    () => [],
  );
  const { stdout } = await run('ss', ['-Htnp', 'state', 'established', `( dport = :${port} )`]);
  const owners = new Set([...stdout.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1])));
  return [pid, ...children].some((candidate) => owners.has(candidate));
}
