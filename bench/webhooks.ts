/**
 * The webhook part of `npm run bench`, on one database:
 * 1. throughput: events are created with only the API running (`ROLE=api`), then a separate
 *    `ROLE=worker` process is started on the same database; deliveries/s is the rate from the first
 *    delivery to the last (the target's measure: signed deliveries per second from the worker);
 *    the process's start-up and the rate counting it are printed beside it;
 * 2. commit-to-receipt latency at idle: with the server in `ROLE=all`, one customer at a time, from
 *    the arrival of the API response (the commit came before it) to the receiver getting the
 *    webhook of that customer's `customer.created` event;
 * 3. a backlog (issue 16, item 7): BENCH_WEBHOOK_BACKLOG events queued at once in bulk, straight in
 *    the database (bench/webhook-backlog.ts), drained by a fresh `ROLE=worker` process; its
 *    deliveries/s first → last against those of step 1, which must hold within 20%.
 * Everything stays on 127.0.0.1; the receiver answers 200 at once.
 *
 * Environment: BENCH_WEBHOOK_EVENTS (10000), BENCH_WEBHOOK_LATENCY_SAMPLES (200),
 * BENCH_WEBHOOK_BACKLOG (100000).
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  hasExited,
  startProcess,
  startServer,
  stopServer,
  type ServerProcess,
} from './processes.js';
import type { Target } from './report.js';
import { createPostgresDatabase, type Store } from './store.js';
import { insertWebhookBacklog } from './webhook-backlog.js';

/** What the webhook part needs from the runner. */
export interface WebhookBenchContext {
  root: string;
  apiKey: string;
  /** The server's environment on a data directory (SQLite there unless DATABASE_URL is set). */
  serverEnv(dataDir: string): Record<string, string>;
  /** Registers an undo step, run at the end or on an error or Ctrl-C (in reverse order). */
  onCleanup(undo: () => Promise<void> | void): void;
}

export interface WebhookPass {
  database: 'sqlite' | 'postgres';
  throughput: {
    events: number;
    /** Events created per second through the API (ROLE=api, no worker). */
    createPerSecond: number;
    /** Worker spawn to last delivery received. */
    seconds: number;
    deliveriesPerSecond: number;
    /** Worker spawn to first delivery received (node + tsx start-up, migrations check, first claim). */
    startupSeconds: number;
    /** First to last delivery received. */
    drainPerSecond: number;
    received: number;
    duplicates: number;
    target: Target;
  };
  latency: {
    samples: number;
    p50Ms: number;
    p90Ms: number;
    p99Ms: number;
    maxMs: number;
    target: Target;
  };
  backlog: {
    events: number;
    /** The bulk insert of the backlog, in the database. */
    insertSeconds: number;
    /** Worker spawn to first delivery received. */
    startupSeconds: number;
    /** First to last delivery received. */
    drainPerSecond: number;
    received: number;
    duplicates: number;
    /** drainPerSecond ≥ 0.80 × the throughput step's. */
    target: Target;
  };
}

function numberFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] || fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return Math.floor(value);
}

const EVENTS = numberFromEnv('BENCH_WEBHOOK_EVENTS', 10_000);
const LATENCY_SAMPLES = numberFromEnv('BENCH_WEBHOOK_LATENCY_SAMPLES', 200);
const BACKLOG = numberFromEnv('BENCH_WEBHOOK_BACKLOG', 100_000);
const CREATE_LOOPS = 8;
/** For all of a drain to arrive: 30 s, and 5 ms more per event (a backlog of 100,000: 530 s). */
const deliveryTimeoutMs = (events: number) => 30_000 + 5 * events;
const THROUGHPUT_TARGET = 2000;
/** Issue 16, item 7: a backlog drains within 20% of the small queue's rate. */
const BACKLOG_MINIMUM = 0.8;
/** Commit → receipt at idle (issue 16, item 4): p50 and p99 at most these. */
const LATENCY_P50_TARGET_MS = 5;
const LATENCY_P99_TARGET_MS = 50;
/** The worker's poll interval when idle (src/webhooks/worker.ts). */
const IDLE_POLL_MS = 50;

/** A local webhook receiver: answers 200 at once, notes when each event arrived. */
interface Receiver {
  url: string;
  requests: number;
  /** Distinct `webhook-id`s received. */
  distinct(): number;
  firstAt: number | undefined;
  lastAt: number | undefined;
  /** Resolves with the arrival time (performance.now()) of the webhook about `objectId`. */
  arrivalOf(objectId: string, timeoutMs: number): Promise<number>;
  /** Resolves once `count` distinct events have arrived; rejects after `timeoutMs` or if `abort()` says so. */
  waitForDistinct(count: number, timeoutMs: number, abort: () => string | undefined): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  let ids = new Set<string>();
  let byObject = new Map<string, number>();
  let waiters = new Map<string, (at: number) => void>();
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      receiver.requests++;
      receiver.firstAt ??= at;
      receiver.lastAt = at;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') ids.add(id);
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          data?: { object?: { id?: string } };
        };
        const objectId = event.data?.object?.id;
        if (objectId) {
          if (!byObject.has(objectId)) byObject.set(objectId, at);
          waiters.get(objectId)?.(at);
        }
      } catch {
        // not JSON: counted, not matched
      }
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' }).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(0, '127.0.0.1', resolve),
  );
  const { port } = server.address() as net.AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    requests: 0,
    distinct: () => ids.size,
    firstAt: undefined,
    lastAt: undefined,
    arrivalOf(objectId, timeoutMs) {
      const known = byObject.get(objectId);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(objectId);
          reject(new Error(`no webhook about ${objectId} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.set(objectId, (at) => {
          clearTimeout(timer);
          waiters.delete(objectId);
          resolve(at);
        });
      });
    },
    async waitForDistinct(count, timeoutMs, abort) {
      const deadline = performance.now() + timeoutMs;
      while (ids.size < count) {
        const reason = abort();
        if (reason) throw new Error(reason);
        if (performance.now() > deadline)
          throw new Error(`only ${ids.size} of ${count} webhooks arrived within ${timeoutMs} ms`);
        await sleep(2);
      }
    },
    reset() {
      ids = new Set();
      byObject = new Map();
      waiters = new Map();
      receiver.requests = 0;
      receiver.firstAt = undefined;
      receiver.lastAt = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

/** POSTs a form to the API; throws on an unexpected status. */
async function post(
  server: ServerProcess,
  apiKey: string,
  url: string,
  body: string,
): Promise<Record<string, unknown>> {
  const res = await fetch(server.url + url, {
    method: 'POST',
    body,
    headers: {
      Authorization: `Bearer ${apiKey}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs both webhook measurements on a fresh database of the given kind. */
export async function runWebhookPass(
  ctx: WebhookBenchContext,
  database: WebhookPass['database'],
): Promise<WebhookPass> {
  const log = (text: string) => console.error(`[${database}] webhooks: ${text}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-webhooks-'));
  ctx.onCleanup(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = {
    ...ctx.serverEnv(dataDir),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  let store: Store = { kind: 'sqlite', filename: path.join(dataDir, 'payments.sqlite') };
  if (database === 'postgres') {
    const created = await createPostgresDatabase(process.env.BENCH_DATABASE_URL!);
    ctx.onCleanup(created.drop);
    env.DATABASE_URL = created.url;
    store = { kind: 'postgres', url: created.url };
  }
  const receiver = await startReceiver();
  ctx.onCleanup(() => receiver.close());
  const processes: ServerProcess[] = [];
  ctx.onCleanup(async () => {
    for (const p of processes) await stopServer(p);
  });
  const startApi = async (role: 'api' | 'all') => {
    const server = await startServer(
      `server (${database}, ROLE=${role})`,
      ['--import', 'tsx', 'src/main.ts'],
      { ...env, ROLE: role },
      '/healthz',
      ctx.root,
    );
    processes.push(server);
    return server;
  };

  // 1. Throughput: the outbox filled with the worker off, then drained by a fresh worker process.
  const api = await startApi('api');
  await post(
    api,
    ctx.apiKey,
    '/v1/webhook_endpoints',
    [`url=${encodeURIComponent(receiver.url)}`, `${encodeURIComponent('enabled_events[]')}=*`].join(
      '&',
    ),
  );
  log(`creating ${EVENTS} customers (ROLE=api, no worker)`);
  const createStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATE_LOOPS }, async () => {
      while (next < EVENTS) {
        const n = next++;
        await post(api, ctx.apiKey, '/v1/customers', `email=hook${n}%40example.com&name=Hook`);
      }
    }),
  );
  const createPerSecond = EVENTS / ((performance.now() - createStarted) / 1000);
  await stopServer(api);
  if (receiver.requests > 0) throw new Error('webhooks arrived with no worker running');

  /** A fresh ROLE=worker process drains `events` queued deliveries to the receiver, then stops. */
  const drain = async (events: number) => {
    log(`starting a ROLE=worker process to deliver ${events} events`);
    const spawnedAt = performance.now();
    const worker = startProcess(
      `worker (${database})`,
      ['--import', 'tsx', 'src/main.ts'],
      // Its health listener on a port the OS picks: nothing probes it here.
      { ...env, ROLE: 'worker', PORT: '0' },
      ctx.root,
    );
    processes.push(worker);
    await receiver.waitForDistinct(events, deliveryTimeoutMs(events), () =>
      hasExited(worker) ? `the worker exited early. Its output:\n${worker.output()}` : undefined,
    );
    const drainSeconds = (receiver.lastAt! - receiver.firstAt!) / 1000;
    const measured = {
      seconds: (receiver.lastAt! - spawnedAt) / 1000,
      startupSeconds: (receiver.firstAt! - spawnedAt) / 1000,
      drainPerSecond: drainSeconds > 0 ? (events - 1) / drainSeconds : Infinity,
    };
    // Let late duplicates (if any) show before counting them.
    await sleep(200);
    await stopServer(worker);
    return { ...measured, received: receiver.requests, duplicates: receiver.requests - events };
  };
  const { seconds, startupSeconds, drainPerSecond, received } = await drain(EVENTS);
  const deliveriesPerSecond = EVENTS / seconds;

  // 2. Latency at idle, with the worker inside the API process.
  receiver.reset();
  const server = await startApi('all');
  // Let the worker reach its idle polling before measuring.
  await sleep(300);
  log(`${LATENCY_SAMPLES} sequential customers (ROLE=all)`);
  const latencies: number[] = [];
  for (let n = 0; n < LATENCY_SAMPLES; n++) {
    // A random pause, so that requests land at any point of the worker's 50 ms idle poll rather
    // than always just after its last claim (which a closed loop would do).
    await sleep(Math.random() * IDLE_POLL_MS);
    const customer = await post(
      server,
      ctx.apiKey,
      '/v1/customers',
      `email=idle${n}%40example.com&name=Idle`,
    );
    const responded = performance.now();
    const arrived = await receiver.arrivalOf(String(customer.id), 5000);
    latencies.push(arrived - responded);
  }
  await stopServer(server);
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99Ms = percentile(sorted, 99);

  // 3. A backlog, last so that its rows do not weigh on the steps above: queued in bulk with no
  // process on the database, then drained by a fresh worker process like step 1's.
  log(`queuing a backlog of ${BACKLOG} events in bulk`);
  const { seconds: insertSeconds } = await insertWebhookBacklog(store, BACKLOG);
  receiver.reset();
  const backlog = await drain(BACKLOG);
  const overSmall = backlog.drainPerSecond / drainPerSecond;

  return {
    database,
    throughput: {
      events: EVENTS,
      createPerSecond,
      seconds,
      deliveriesPerSecond,
      startupSeconds,
      drainPerSecond,
      received,
      duplicates: received - EVENTS,
      target: {
        text: `≥ ${THROUGHPUT_TARGET}/s`,
        value: `${drainPerSecond.toFixed(0)}/s`,
        met: drainPerSecond >= THROUGHPUT_TARGET,
      },
    },
    latency: {
      samples: LATENCY_SAMPLES,
      p50Ms: percentile(sorted, 50),
      p90Ms: percentile(sorted, 90),
      p99Ms,
      maxMs: sorted[sorted.length - 1],
      target: {
        text: `p50 ≤ ${LATENCY_P50_TARGET_MS}, p99 ≤ ${LATENCY_P99_TARGET_MS} ms`,
        value: `${percentile(sorted, 50).toFixed(1)} / ${p99Ms.toFixed(1)} ms`,
        met: percentile(sorted, 50) <= LATENCY_P50_TARGET_MS && p99Ms <= LATENCY_P99_TARGET_MS,
      },
    },
    backlog: {
      events: BACKLOG,
      insertSeconds,
      startupSeconds: backlog.startupSeconds,
      drainPerSecond: backlog.drainPerSecond,
      received: backlog.received,
      duplicates: backlog.duplicates,
      target: {
        text: `≥ ${BACKLOG_MINIMUM.toFixed(2)} × ${EVENTS} queued`,
        value: `${overSmall.toFixed(2)} (${backlog.drainPerSecond.toFixed(0)}/s)`,
        met: overSmall >= BACKLOG_MINIMUM,
      },
    },
  };
}

/** Renders the webhook passes as one aligned text table, with notes below. */
export function formatWebhookPasses(passes: WebhookPass[]): string {
  const header = ['database', 'measurement', 'value', 'target', 'reached', 'result'];
  const verdict = (t: Target) => (t.met ? 'PASS' : 'FAIL');
  const lines = passes.flatMap((pass) => {
    const t = pass.throughput;
    const l = pass.latency;
    return [
      [
        pass.database,
        `deliveries/s first → last, ${t.events} queued`,
        `${(t.events / t.drainPerSecond).toFixed(2)} s`,
        t.target.text,
        t.target.value,
        verdict(t.target),
      ],
      [
        pass.database,
        `deliveries/s first → last, backlog of ${pass.backlog.events}`,
        `${(pass.backlog.events / pass.backlog.drainPerSecond).toFixed(2)} s`,
        pass.backlog.target.text,
        pass.backlog.target.value,
        verdict(pass.backlog.target),
      ],
      [
        pass.database,
        `commit → receipt at idle, p50 / p90 / p99 (${l.samples})`,
        `${l.p50Ms.toFixed(1)} / ${l.p90Ms.toFixed(1)} / ${l.p99Ms.toFixed(1)} ms`,
        l.target.text,
        l.target.value,
        verdict(l.target),
      ],
    ];
  });
  const table = [header, ...lines];
  const widths = header.map((_, column) => Math.max(...table.map((cells) => cells[column].length)));
  const render = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 2 ? cell.padStart(widths[column]) : cell.padEnd(widths[column]),
      )
      .join('  ')
      .trimEnd();
  const notes = passes.map((pass) => {
    const t = pass.throughput;
    return (
      `${pass.database}: worker spawn → first delivery ${t.startupSeconds.toFixed(2)} s ` +
      `(${t.deliveriesPerSecond.toFixed(0)}/s counting it); ${t.received} requests received ` +
      `(${t.duplicates} duplicates); events created at ${t.createPerSecond.toFixed(0)}/s ` +
      `(ROLE=api); latency max ${pass.latency.maxMs.toFixed(1)} ms; backlog of ${pass.backlog.events} ` +
      `queued in bulk in ${pass.backlog.insertSeconds.toFixed(1)} s, worker spawn → first delivery ` +
      `${pass.backlog.startupSeconds.toFixed(2)} s, ${pass.backlog.received} requests received ` +
      `(${pass.backlog.duplicates} duplicates).`
    );
  });
  return [
    '== webhooks ==',
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...lines.map(render),
    ...notes.map((note) => `  ${note}`),
  ].join('\n');
}
