/**
 * Where the CPU of a request goes on Postgres, for docs/scaling.md: one API process (`ROLE=api`)
 * under a load of JSON POSTs (new `Idempotency-Key` each) and of GETs by id, and a worker process
 * draining the deliveries the POSTs enqueued to a local receiver. For each, the CPU seconds the
 * API process, the worker and all of Postgres's processes spent, per request or delivery, read
 * from /proc before and after the run (Postgres: the backends connected to the bench's database). With those, the number of API processes one Postgres can
 * serve before its own CPU is the limit follows: its cores / (its CPU per request × rate).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/scaling.ts
 *
 * Linux only (/proc); Postgres on the same machine (its processes are found by their user).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { measure, type Scenario } from './load.js';
import { jsonPostScenario } from './json-post.js';
import { startProcess, startServer, stopServer, type ServerProcess } from './processes.js';
import { createPostgresDatabase } from './store.js';

const API_KEY = 'sk_test_scalingbench000000';
const AUTH = `Bearer ${API_KEY}`;
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0; // exited meanwhile
  }
}

/**
 * The Postgres backends serving the bench's database: their CPU is the database's cost of these
 * requests, whatever else the server is doing. Its shared processes (WAL writer, checkpointer) serve
 * every database and are left out.
 */
async function backendPids(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/** CPU seconds of the given processes, each read once. */
function sumCpuSeconds(pids: Iterable<number>): Map<number, number> {
  return new Map([...pids].map((pid) => [pid, cpuSeconds(pid)]));
}

interface Split {
  name: string;
  count: number;
  perSecond: number;
  apiMicros: number;
  workerMicros: number;
  postgresMicros: number;
}

/** Runs `work` and divides the CPU each side spent during it by the count it returns. */
async function split(
  name: string,
  pids: { api: number; worker?: number; databaseUrl: string },
  work: () => Promise<{ count: number; seconds: number }>,
): Promise<Split> {
  const before = { api: cpuSeconds(pids.api), worker: pids.worker ? cpuSeconds(pids.worker) : 0, pg: sumCpuSeconds(await backendPids(pids.databaseUrl)) };
  const { count, seconds } = await work();
  const after = sumCpuSeconds(await backendPids(pids.databaseUrl));
  // A backend that connected during the run started from nothing.
  const postgres = [...after].reduce((sum, [pid, cpu]) => sum + cpu - (before.pg.get(pid) ?? 0), 0);
  const per = (seconds: number) => Math.round((seconds / count) * 1e6);
  return {
    name,
    count,
    perSecond: Math.round(count / seconds),
    apiMicros: per(cpuSeconds(pids.api) - before.api),
    workerMicros: pids.worker ? per(cpuSeconds(pids.worker) - before.worker) : 0,
    postgresMicros: per(postgres),
  };
}

async function load(url: string, scenario: Scenario, connections: number) {
  const result = await measure(url, scenario, { connections, seconds: SECONDS, warmupSeconds: 2 });
  if (result.failures > 0) throw new Error(`${scenario.name}: ${result.failures} failed requests`);
  return { count: result.requests, seconds: SECONDS };
}

/** A webhook receiver on 127.0.0.1 that answers 200 at once and counts what it got. */
async function startReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      received++;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, received: () => received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) throw new Error('BENCH_DATABASE_URL (a Postgres server to create a database on) is required');
  const database = await createPostgresDatabase(adminUrl);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-scaling-'));
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    BOOTSTRAP_API_KEY: API_KEY,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    RATE_LIMIT_PER_SECOND: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const receiver = await startReceiver();
  let api: ServerProcess | undefined;
  let worker: ServerProcess | undefined;
  try {
    api = await startServer('api', ['--import', 'tsx', 'src/main.ts'], { ...env, ROLE: 'api' }, '/healthz');
    const endpoint = await fetch(`${api.url}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { Authorization: AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, enabled_events: ['charge.succeeded'] }),
    });
    if (!endpoint.ok) throw new Error(`webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);
    const charge = (await (await fetch(`${api.url}/v1/charges`, {
      method: 'POST',
      headers: { Authorization: AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: 2000, currency: 'usd', source: 'tok_visa' }),
    })).json()) as { id: string };

    const rows: Split[] = [];
    const pids = { api: api.child.pid!, databaseUrl: database.url };
    rows.push(await split('POST /v1/charges (JSON, new key), 16 connections', pids, () => load(api!.url, jsonPostScenario('POST', AUTH), 16)));
    rows.push(await split('GET /v1/charges/{id}, 10 connections', pids, () => load(api!.url, { name: 'GET', path: `/v1/charges/${charge.id}`, headers: { Authorization: AUTH } }, 10)));

    // The POSTs above enqueued a delivery each: a worker drains them.
    // Its health listener on a port the OS picks: nothing probes it here.
    worker = startProcess('worker', ['--import', 'tsx', 'src/main.ts'], { ...env, ROLE: 'worker', PORT: '0' });
    // Measured from its first delivery on: the start of a process (compiling with tsx) is not a delivery's cost.
    while (receiver.received() === 0) await sleep(50);
    const workerPids = { api: api.child.pid!, worker: worker.child.pid!, databaseUrl: database.url };
    rows.push(
      await split('webhook deliveries, one worker', workerPids, async () => {
        const first = receiver.received();
        const started = performance.now();
        let last = -1;
        let lastAt = started;
        // Until the receiver has had nothing new for half a second.
        while (receiver.received() !== last) {
          last = receiver.received();
          lastAt = performance.now();
          await sleep(500);
        }
        return { count: last - first, seconds: (lastAt - started) / 1000 };
      }),
    );
    console.log(`CPU per request on one machine (${os.cpus().length} cores, ${os.cpus()[0]?.model}); Postgres = the backends of the bench's database`);
    console.log('| load | count | per second | API process µs | worker µs | Postgres µs |');
    console.log('|---|---|---|---|---|---|');
    for (const row of rows) {
      console.log(`| ${row.name} | ${row.count} | ${row.perSecond} | ${row.apiMicros} | ${row.workerMicros} | ${row.postgresMicros} |`);
    }
  } finally {
    if (worker) await stopServer(worker);
    if (api) await stopServer(api);
    await receiver.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
