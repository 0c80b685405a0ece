/**
 * The cores part of `npm run bench` (`BENCH_ONLY=cores`), on Postgres only (`BENCH_DATABASE_URL`):
 * the same `GET /v1/charges/{id}` load against the server started with `WEB_CONCURRENCY=1` and with
 * `WEB_CONCURRENCY=2` (both `ROLE=api`, so no worker runs beside them), one after the other on one
 * database. For each: requests per second, and the whole machine's CPU time per request, read from
 * /proc/stat over the measured run on every core: the load generator's and Postgres' share
 * included, so it is what a request costs this machine, not only the API processes.
 *
 * A cluster answers `/healthz` as soon as its first child listens; a run starts only once every
 * child has answered a connection (its owner asked of the kernel with `ss -p`), so that the
 * second process is not measured half-started. Linux only (/proc, ps, ss).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { measure, type LoadSettings, type Measurement, type Scenario } from './load.js';
import { startServer, stopServer, type ServerProcess } from './processes.js';
import { createPostgresDatabase } from './store.js';

const run = promisify(execFile);
const START_TIMEOUT_MS = 120_000;

/** What the cores part needs from the runner. */
export interface CoresBenchContext {
  root: string;
  apiKey: string;
  settings: LoadSettings;
  /** The server's environment (SQLite in a data directory unless DATABASE_URL is set). */
  serverEnv(dataDir: string): Record<string, string>;
  /** Registers an undo step, run at the end or on an error or Ctrl-C (in reverse order). */
  onCleanup(undo: () => Promise<void> | void): void;
}

/** One measured run against `processes` API processes. */
export interface CoresRow extends Measurement {
  processes: number;
  /** CPU time of the whole machine (every core, every process) per request, in milliseconds. */
  machineCpuMsPerRequest: number;
  /** Cores busy on average over the run (of `cores`). */
  busyCores: number;
}

export interface CoresPass {
  database: 'postgres';
  cores: number;
  rows: CoresRow[];
}

/** Runs the load against 1, then 2 API processes over one new Postgres database. */
export async function runCoresPass(
  context: CoresBenchContext,
  postgresUrl: string,
): Promise<CoresPass> {
  const created = await createPostgresDatabase(postgresUrl);
  context.onCleanup(created.drop);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-'));
  context.onCleanup(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...context.serverEnv(dataDir), DATABASE_URL: created.url, ROLE: 'api' };
  const rows: CoresRow[] = [];
  let chargeId: string | undefined;
  for (const processes of [1, 2]) {
    console.error(`[cores] ${processes} API process${processes === 1 ? '' : 'es'}`);
    const server = await startServer(
      `server (WEB_CONCURRENCY=${processes})`,
      ['--import', 'tsx', 'src/main.ts'],
      { ...env, WEB_CONCURRENCY: String(processes) },
      '/healthz',
      context.root,
      START_TIMEOUT_MS,
    );
    context.onCleanup(() => stopServer(server, 35_000));
    try {
      await everyChildServing(server, processes);
      chargeId ??= await createCharge(server, context.apiKey);
      const scenario = {
        name: `GET /v1/charges/{id}, WEB_CONCURRENCY=${processes}`,
        path: `/v1/charges/${chargeId}`,
        headers: { Authorization: `Bearer ${context.apiKey}` },
      };
      rows.push({ processes, ...(await measureWithCpu(server, scenario, context.settings)) });
    } finally {
      await stopServer(server, 35_000);
    }
  }
  return { database: 'postgres', cores: os.cpus().length, rows };
}

/** Warm-up, then the measured run between two readings of /proc/stat. */
async function measureWithCpu(
  server: ServerProcess,
  scenario: Scenario,
  settings: LoadSettings,
): Promise<Omit<CoresRow, 'processes'>> {
  await measure(server.url, scenario, {
    ...settings,
    seconds: settings.warmupSeconds,
    warmupSeconds: 0,
  });
  const before = machineTicks();
  const started = performance.now();
  const measured = await measure(server.url, scenario, { ...settings, warmupSeconds: 0 });
  const wallSeconds = (performance.now() - started) / 1000;
  const after = machineTicks();
  // Ticks are shares of all cores' time: busy / total × cores × wall is CPU seconds, with no CLK_TCK.
  const busyCores = ((after.busy - before.busy) / (after.total - before.total)) * os.cpus().length;
  return {
    ...measured,
    machineCpuMsPerRequest: (busyCores * wallSeconds * 1000) / measured.requests,
    busyCores,
  };
}

/** The machine's CPU ticks since boot, summed over every core: busy (not idle, not waiting on I/O) and total. */
function machineTicks(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  // user nice system idle iowait irq softirq steal (guest time is already counted in user and nice).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** Resolves once each of the server's `count` children has answered a connection of its own. */
async function everyChildServing(server: ServerProcess, count: number): Promise<void> {
  if (count === 1) return;
  const deadline = Date.now() + START_TIMEOUT_MS;
  const answered = new Set<number>();
  while (answered.size < count) {
    if (Date.now() > deadline)
      throw new Error(
        `only ${answered.size} of ${count} API processes answered:\n${server.output()}`,
      );
    const children = await childrenOf(server.child.pid!);
    const pid = await answeringPid(server.url, children);
    if (pid !== undefined) answered.add(pid);
    else await sleep(100);
  }
}

async function childrenOf(pid: number): Promise<number[]> {
  // ps exits 1 when it lists nothing.
  const { stdout } = await run('ps', ['--ppid', String(pid), '-o', 'pid=']).catch(
    (error: { stdout: string }) => error,
  );
  return stdout.split(/\s+/).filter(Boolean).map(Number);
}

/** Which of `candidates` holds the server's end of a new keep-alive connection to `url` (undefined: none). */
async function answeringPid(url: string, candidates: number[]): Promise<number | undefined> {
  const port = Number(new URL(url).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const clientPort = await new Promise<number>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: '/healthz', agent }, (response) => {
        response.resume().once('end', () => resolve(request.socket!.localPort!));
      });
      request.once('error', reject);
    });
    const { stdout } = await run('ss', [
      '-Htnp',
      'state',
      'established',
      `( sport = :${port} and dport = :${clientPort} )`,
    ]);
    return [...stdout.matchAll(/pid=(\d+)/g)]
      .map((match) => Number(match[1]))
      .find((pid) => candidates.includes(pid));
  } finally {
    agent.destroy();
  }
}

async function createCharge(server: ServerProcess, apiKey: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/charges`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'amount=2000&currency=usd&source=tok_visa',
  });
  const json = (await res.json()) as { id: string };
  if (!res.ok) throw new Error(`POST /v1/charges answered ${res.status}: ${JSON.stringify(json)}`);
  return json.id;
}

/** The cores table: each run, and the second against the first. */
export function formatCoresPass(pass: CoresPass): string {
  const header = [
    'API processes',
    'req/s',
    'p50 ms',
    'p99 ms',
    'failed',
    'busy cores',
    'machine CPU ms/req',
  ];
  const lines = pass.rows.map((row) => [
    String(row.processes),
    row.requestsPerSecond.toFixed(0),
    row.p50Ms.toFixed(1),
    row.p99Ms.toFixed(1),
    String(row.failures),
    `${row.busyCores.toFixed(2)} of ${pass.cores}`,
    row.machineCpuMsPerRequest.toFixed(3),
  ]);
  const widths = header.map((_, column) =>
    Math.max(...[header, ...lines].map((cells) => cells[column].length)),
  );
  const render = (cells: string[]) =>
    cells.map((cell, column) => cell.padStart(widths[column])).join('  ');
  const [one, two] = pass.rows;
  return [
    `== ${pass.database}: GET /v1/charges/{id}, WEB_CONCURRENCY=1 and 2 ==`,
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...lines.map(render),
    `  2 processes × 1: ${(two.requestsPerSecond / one.requestsPerSecond).toFixed(2)} req/s, ` +
      `${(two.machineCpuMsPerRequest / one.machineCpuMsPerRequest).toFixed(2)} machine CPU per request ` +
      `(the load generator and Postgres share the ${pass.cores} cores).`,
  ].join('\n');
}
