/**
 * The cost part of `npm run bench` (issue 33): what a request costs the server in CPU, not only how
 * many it answers. Each server runs alone on CPU 0 (taskset), the load generator (this process) on
 * CPU 1; for each server and request, the server's user + system CPU over the measured run (from
 * /proc/<pid>/stat: every thread of it) divided by the requests answered. Servers: bare node:http,
 * the bare Express routes, Prism mocking the spec, and this server on SQLite (and on Postgres with
 * BENCH_DATABASE_URL; Postgres's own processes are not pinned and not counted). Requests: the GET
 * of a customer by id, the JSON `POST /v1/charges` with a fresh `Idempotency-Key`, a form
 * `POST /v1/customers`. Every figure is the median of BENCH_COST_ROUNDS (3) rounds, each round
 * loading every server in turn, so that a slow moment of the machine falls on all of them.
 *
 * For this server, a probe preloaded into its process (bench/server-probe.ts) also gives the bytes
 * its JavaScript heap allocated per request; and one more GET run under its CPU profiler gives the
 * stages a GET's CPU goes to (bench/cpu-stages.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { measure, type LoadSettings, type Measurement, type Scenario } from './load.js';
import { jsonPostScenario } from './json-post.js';
import { startServer, stopServer, type ServerProcess } from './processes.js';
import { startPrism } from './prism.js';
import { createPostgresDatabase } from './store.js';
import { STAGES, stageShares, type Stage } from './cpu-stages.js';
import type { Target } from './report.js';

/** What the cost part needs from run.ts. */
export interface CostContext {
  root: string;
  apiKey: string;
  seconds: number;
  warmupSeconds: number;
  serverEnv: (dataDir: string) => Record<string, string>;
  onCleanup: (undo: () => Promise<void> | void) => void;
}

type RequestKind = 'GET by id' | 'JSON POST, new key' | 'form POST';
const REQUESTS: RequestKind[] = ['GET by id', 'JSON POST, new key', 'form POST'];
const CONNECTIONS = 16;
const SERVER_CPU = '0';
const LOAD_CPU = '1';
/** Issue 33's targets. */
const P99_LIMIT_MS = 50;
const GET_CPU_OF_BARE_EXPRESS = 0.6;
const JSON_POST_OF_BARE = { sqlite: 0.45, postgres: 0.35 };
const JSON_POST_OVER_PRISM = 1.5;
/** KB the server's heap allocated per GET by id before round three (the median of 6 runs, 84.9–89.9): the target is half. */
const GET_ALLOCATED_KB_BEFORE = 85;

/** One server and request: medians over the rounds. */
export interface CostRow {
  server: string;
  request: RequestKind;
  requestsPerSecond: number;
  p99Ms: number;
  cpuMicrosPerRequest: number;
  /** This server only: KB its heap allocated per request. */
  allocatedKBPerRequest?: number;
  failures: number;
  targets: Target[];
}

/** What the part prints and keeps. */
export interface CostPass {
  rounds: number;
  connections: number;
  seconds: number;
  pinned: boolean;
  rows: CostRow[];
  /** The GET by id on SQLite: each stage's share of the busy samples, and its µs of the median CPU per GET. */
  stages: Array<{ stage: Stage; share: number; micros: number }>;
  profileSamples: number;
  loadAverage: number[];
}

interface Measured {
  name: string;
  server: ServerProcess;
  scenarios: Record<RequestKind, Scenario>;
  /** The probe's file, for this server's processes. */
  probeFile?: string;
}

/** How long Prism may take to start here. */
const PRISM_START_MS = 300_000;
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** CPU µs (user + system, every thread) a process has used so far. */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Signals the probe in a server and waits for its file to say the window is open, or to hold its report. */
async function toggleProbe(
  server: ServerProcess,
  file: string,
  opening: boolean,
): Promise<Record<string, number>> {
  fs.rmSync(file, { force: true });
  process.kill(server.child.pid!, 'SIGUSR2');
  for (let waited = 0; waited < 30_000; waited += 20) {
    if (fs.existsSync(file)) {
      const content = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
      if (opening === 'open' in content) return content;
    }
    await sleep(20);
  }
  throw new Error(`${server.name}: its probe did not answer. Its output:\n${server.output()}`);
}

/** One measured run of a request on a server, after its own warm-up run. */
async function run(target: Measured, kind: RequestKind, settings: LoadSettings) {
  const scenario = target.scenarios[kind];
  const url = target.server.url;
  await measure(url, scenario, { ...settings, seconds: settings.warmupSeconds, warmupSeconds: 0 });
  const pid = target.server.child.pid!;
  if (target.probeFile) await toggleProbe(target.server, target.probeFile, true);
  const before = cpuMicros(pid);
  const measured: Measurement = await measure(url, scenario, { ...settings, warmupSeconds: 0 });
  const cpu = cpuMicros(pid) - before;
  const probe = target.probeFile
    ? await toggleProbe(target.server, target.probeFile, false)
    : undefined;
  return {
    measured,
    cpuMicrosPerRequest: cpu / measured.requests,
    allocatedKBPerRequest: probe ? probe.allocatedBytes / 1024 / measured.requests : undefined,
  };
}

/** Pins every thread of a process (and so the threads it starts later) to `cpus`. */
function pin(pid: number, cpus: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The cost part: every server, every request, BENCH_COST_ROUNDS rounds, then the GET's profile. */
export async function runCostPass(ctx: CostContext): Promise<CostPass> {
  const rounds = Math.max(1, Math.floor(Number(process.env.BENCH_COST_ROUNDS || 3)));
  const pinned = os.cpus().length >= 2;
  const settings: LoadSettings = {
    connections: CONNECTIONS,
    seconds: ctx.seconds,
    warmupSeconds: ctx.warmupSeconds,
  };
  const allCpus = `0-${os.cpus().length - 1}`;
  try {
    const start = async (
      name: string,
      args: string[] | ((port: number) => string[]),
      env: Record<string, string>,
      ready: string,
      timeoutMs?: number,
    ) => {
      // Started on every CPU (Prism reads the whole spec before it listens), pinned once ready;
      // this process is pinned only after (a child starts on its parent's CPUs).
      const server = await startServer(name, args, env, ready, ctx.root, timeoutMs);
      ctx.onCleanup(() => stopServer(server));
      if (pinned) pin(server.child.pid!, SERVER_CPU);
      return server;
    };
    const authorization = `Bearer ${ctx.apiKey}`;
    const bareScenarios = (customerId: string) => scenariosFor(customerId, authorization);
    const targets: Measured[] = [];
    const http = await start(
      'bare node:http',
      ['--import', 'tsx', 'bench/bare-http-server.ts'],
      {},
      '/v1/customers/cus_ready',
    );
    targets.push({
      name: 'bare node:http',
      server: http,
      scenarios: bareScenarios('cus_NffrFeUfNV2Hib7ixN3Bt8Ua'),
    });
    const express = await start(
      'bare Express',
      ['--import', 'tsx', 'bench/baseline-server.ts'],
      {},
      '/v1/customers/cus_ready',
    );
    targets.push({
      name: 'bare Express',
      server: express,
      scenarios: bareScenarios('cus_NffrFeUfNV2Hib7ixN3Bt8Ua'),
    });
    // On a machine loaded by other work, Prism's start takes minutes.
    const prism = await startPrism(ctx.root, (name, args, env, ready, timeoutMs) =>
      start(name, args, env, ready, Math.max(timeoutMs ?? 0, PRISM_START_MS)),
    );
    targets.push({
      name: 'Prism',
      server: prism,
      scenarios: bareScenarios('cus_NffrFeUfNV2Hib7ixN3Bt8Ua'),
    });
    for (const database of process.env.BENCH_DATABASE_URL
      ? (['sqlite', 'postgres'] as const)
      : (['sqlite'] as const)) {
      targets.push(await startThisServer(ctx, database, start, authorization));
    }
    for (const target of targets) for (const kind of REQUESTS) await expectAnswer(target, kind);
    if (pinned) pin(process.pid, LOAD_CPU);

    const runs = new Map<string, Array<Awaited<ReturnType<typeof run>>>>();
    for (let round = 1; round <= rounds; round++) {
      for (const kind of REQUESTS) {
        for (const target of targets) {
          console.error(`[cost] round ${round}/${rounds}: ${target.name}, ${kind}`);
          const key = `${target.name}\n${kind}`;
          runs.set(key, [...(runs.get(key) ?? []), await run(target, kind, settings)]);
        }
      }
    }
    const rows: CostRow[] = [];
    for (const target of targets) {
      for (const kind of REQUESTS) {
        const of = runs.get(`${target.name}\n${kind}`)!;
        const allocated = of
          .map((r) => r.allocatedKBPerRequest)
          .filter((kb): kb is number => kb !== undefined);
        rows.push({
          server: target.name,
          request: kind,
          requestsPerSecond: median(of.map((r) => r.measured.requestsPerSecond)),
          p99Ms: median(of.map((r) => r.measured.p99Ms)),
          cpuMicrosPerRequest: median(of.map((r) => r.cpuMicrosPerRequest)),
          allocatedKBPerRequest: allocated.length ? median(allocated) : undefined,
          failures: of.reduce((sum, r) => sum + r.measured.failures, 0),
          targets: [],
        });
      }
    }
    setTargets(rows);

    const sqlite = targets.find((t) => t.name === 'this server (SQLite)')!;
    const getCpu = rows.find(
      (r) => r.server === sqlite.name && r.request === 'GET by id',
    )!.cpuMicrosPerRequest;
    const profileFile = path.join(path.dirname(sqlite.probeFile!), 'get.cpuprofile');
    fs.writeFileSync(`${sqlite.probeFile}.profile`, profileFile);
    console.error(`[cost] profiling ${sqlite.name}, GET by id`);
    await run(sqlite, 'GET by id', settings);
    const { shares, samples } = stageShares(profileFile, ctx.root);
    const stages = STAGES.map((stage) => ({
      stage,
      share: shares[stage],
      micros: shares[stage] * getCpu,
    }));
    for (const target of targets) await stopServer(target.server);
    return {
      rounds,
      connections: CONNECTIONS,
      seconds: ctx.seconds,
      pinned,
      rows,
      stages,
      profileSamples: samples,
      loadAverage: os.loadavg(),
    };
  } finally {
    if (pinned) pin(process.pid, allCpus);
  }
}

/** The three requests, on the server's own customer for the GET. */
function scenariosFor(customerId: string, authorization: string): Record<RequestKind, Scenario> {
  return {
    'GET by id': {
      name: 'GET /v1/customers/{id}',
      path: `/v1/customers/${customerId}`,
      headers: { Authorization: authorization },
    },
    'JSON POST, new key': jsonPostScenario('POST /v1/charges JSON, new key', authorization),
    'form POST': {
      name: 'POST /v1/customers form',
      path: '/v1/customers',
      method: 'POST',
      headers: {
        Authorization: authorization,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'email=jenny%40example.com&name=Jenny+Rosen',
    },
  };
}

type Start = (
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: string,
) => Promise<ServerProcess>;

/** This server on a database, with the probe preloaded, and a customer to read. */
async function startThisServer(
  ctx: CostContext,
  database: 'sqlite' | 'postgres',
  start: Start,
  authorization: string,
): Promise<Measured> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-cost-'));
  ctx.onCleanup(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const probeFile = path.join(dataDir, 'probe.json');
  const env: Record<string, string> = { ...ctx.serverEnv(dataDir), BENCH_PROBE_FILE: probeFile };
  if (database === 'postgres') {
    const created = await createPostgresDatabase(process.env.BENCH_DATABASE_URL!);
    ctx.onCleanup(created.drop);
    env.DATABASE_URL = created.url;
  }
  const name = `this server (${database === 'sqlite' ? 'SQLite' : 'Postgres'})`;
  const server = await start(
    name,
    ['--import', 'tsx', '--import', './bench/server-probe.ts', 'src/main.ts'],
    env,
    '/healthz',
  );
  const res = await fetch(`${server.url}/v1/customers`, {
    method: 'POST',
    headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'email=bench%40example.com&name=Bench',
  });
  const customer = (await res.json()) as { id?: string };
  if (!res.ok || !customer.id)
    throw new Error(`${name}: POST /v1/customers answered ${res.status}`);
  return { name, server, scenarios: scenariosFor(customer.id, authorization), probeFile };
}

/** Throws unless the server answers the request with a 2xx (once, before any measurement). */
async function expectAnswer(target: Measured, kind: RequestKind): Promise<void> {
  const scenario = target.scenarios[kind];
  const headers = {
    ...scenario.headers,
    ...(scenario.freshIdempotencyKey ? { 'Idempotency-Key': `bench_check_${randomUUID()}` } : {}),
  };
  const res = await fetch(target.server.url + scenario.path, {
    method: scenario.method ?? 'GET',
    headers,
    body: scenario.body,
  });
  if (!res.ok)
    throw new Error(`${target.name}: ${scenario.name} answered ${res.status}: ${await res.text()}`);
}

/** Issue 33's targets, on this server's rows. */
function setTargets(rows: CostRow[]): void {
  const row = (server: string, request: RequestKind) =>
    rows.find((r) => r.server === server && r.request === request);
  const bareGet = row('bare Express', 'GET by id')!;
  const barePost = row('bare Express', 'JSON POST, new key')!;
  const prismPost = row('Prism', 'JSON POST, new key')!;
  for (const r of rows.filter((r) => r.server.startsWith('this server'))) {
    r.targets.push({
      text: `p99 ≤ ${P99_LIMIT_MS} ms`,
      value: `${r.p99Ms.toFixed(0)} ms`,
      met: r.p99Ms <= P99_LIMIT_MS,
    });
  }
  const sqliteGet = row('this server (SQLite)', 'GET by id')!;
  const cpuRatio = bareGet.cpuMicrosPerRequest / sqliteGet.cpuMicrosPerRequest;
  sqliteGet.targets.push({
    text: `CPU ≥ ${GET_CPU_OF_BARE_EXPRESS.toFixed(2)} of bare Express (≤ 160 µs there)`,
    value: cpuRatio.toFixed(2),
    met: cpuRatio >= GET_CPU_OF_BARE_EXPRESS,
  });
  if (sqliteGet.allocatedKBPerRequest !== undefined) {
    const limit = GET_ALLOCATED_KB_BEFORE / 2;
    sqliteGet.targets.push({
      text: `allocated ≤ ${limit.toFixed(1)} KB (half of ${GET_ALLOCATED_KB_BEFORE})`,
      value: `${sqliteGet.allocatedKBPerRequest.toFixed(1)} KB`,
      met: sqliteGet.allocatedKBPerRequest <= limit,
    });
  }
  for (const database of ['sqlite', 'postgres'] as const) {
    const post = row(
      `this server (${database === 'sqlite' ? 'SQLite' : 'Postgres'})`,
      'JSON POST, new key',
    );
    if (!post) continue;
    const ofBare = post.requestsPerSecond / barePost.requestsPerSecond;
    post.targets.push({
      text: `≥ ${JSON_POST_OF_BARE[database].toFixed(2)} × bare Express POST`,
      value: ofBare.toFixed(2),
      met: ofBare >= JSON_POST_OF_BARE[database],
    });
    if (database === 'postgres') {
      const overPrism = post.requestsPerSecond / prismPost.requestsPerSecond;
      post.targets.push({
        text: `≥ ${JSON_POST_OVER_PRISM.toFixed(2)} × Prism`,
        value: overPrism.toFixed(2),
        met: overPrism >= JSON_POST_OVER_PRISM,
      });
    }
  }
}

/** The part's tables: one row per server and request, then the GET's stages. */
export function formatCostPass(pass: CostPass): string {
  const header = [
    'server',
    'request',
    'req/s',
    'p99 ms',
    'CPU µs/req',
    'heap KB/req',
    'failed',
    'target',
    'reached',
    'result',
  ];
  const lines = pass.rows.flatMap((row) => {
    const cells = [
      row.server,
      row.request,
      row.requestsPerSecond.toFixed(0),
      row.p99Ms.toFixed(1),
      row.cpuMicrosPerRequest.toFixed(0),
      row.allocatedKBPerRequest === undefined ? '' : row.allocatedKBPerRequest.toFixed(1),
      String(row.failures),
    ];
    if (!row.targets.length) return [[...cells, '', '', '']];
    return row.targets.map((t, i) => [
      ...(i === 0 ? cells : cells.map(() => '')),
      t.text,
      t.value,
      t.met ? 'met' : 'not met',
    ]);
  });
  const stageLines = pass.stages.map((s) => [
    s.stage,
    `${(s.share * 100).toFixed(1)}%`,
    s.micros.toFixed(0),
  ]);
  return [
    `== cost per request: each server alone on CPU ${SERVER_CPU}, the load on CPU ${LOAD_CPU}${pass.pinned ? '' : ' (not pinned: fewer than 2 CPUs)'}, ` +
      `${pass.connections} connections, ${pass.seconds} s per run, median of ${pass.rounds} rounds ==`,
    ...table(header, lines, (c) => c < 2 || c >= 7),
    `  CPU: the server process's user + system time over the run (every thread) ÷ requests; heap: what its JavaScript heap allocated ÷ requests.`,
    `  Load average at the end: ${pass.loadAverage.map((l) => l.toFixed(2)).join(', ')}.`,
    '',
    `== where a GET by id's CPU goes (this server, SQLite; ${pass.profileSamples} busy samples of a CPU profile under the same load) ==`,
    ...table(['stage', 'share', 'µs/req'], stageLines, (c) => c === 0),
  ].join('\n');
}

/** An aligned text table; columns for which `left` holds are aligned left, the others right. */
function table(header: string[], lines: string[][], left: (column: number) => boolean): string[] {
  const all = [header, ...lines];
  const widths = header.map((_, c) => Math.max(...all.map((cells) => cells[c].length)));
  const render = (cells: string[]) =>
    cells
      .map((cell, c) => (left(c) ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join('  ')
      .trimEnd();
  return [render(header), render(widths.map((w) => '-'.repeat(w))), ...lines.map(render)];
}
