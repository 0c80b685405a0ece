/**
 * The events part of `npm run bench` (`BENCH_ONLY=events`): the "measured growth". On an
 * empty database, then on a second one grown by `BENCH_EVENTS` (10,000,000) events inserted in bulk
 * (bench/event-store.ts),
 * each against the bare routes as in bench/run.ts (interleaved, ratio of their ratios): the JSON
 * POST /v1/charges (it writes an event), GET /v1/events/{id}, the events list's first page and a page
 * 99.9% of the way down. Then the GET by id and the POST with no purge and while a row purge runs in
 * another process (bench/event-purge-process.ts); then, the servers stopped, the worker's claim on
 * the empty and the grown database (bench/event-claim.ts), and what retention costs
 * (bench/event-retention.ts).
 *
 * The server keeps events 90 days (`EVENT_RETENTION_DAYS`), so that all the bulk events (60 days)
 * are the API's, and its own retention timer deletes none of them while it is measured.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterleaver, target, type Baseline, type Interleaver } from './interleave.js';
import { jsonPostScenario } from './json-post.js';
import { measure, type LoadSettings, type Scenario } from './load.js';
import { hasExited, startProcess, stopServer, type ServerProcess } from './processes.js';
import type { StartNode } from './prism.js';
import { formatPass, type Pass, type Row } from './report.js';
import { measureClaims, type ClaimResult } from './event-claim.js';
import { measureRetention, purgeClockMs, purgeRate, type PurgeRate, type RetentionCost } from './event-retention.js';
import { eventDeepDown, insertEvents, readTemplate } from './event-store.js';
import { createPostgresDatabase, type Store } from './store.js';

const SPAN_DAYS = 60;
const SEED_CHARGES = 100;
const PAGE = 10;

/** What the part needs from bench/run.ts. */
export interface EventGrowthContext {
  root: string;
  apiKey: string;
  settings: LoadSettings;
  serverEnv: (dataDir: string) => Record<string, string>;
  startNode: StartNode;
  onCleanup: (undo: () => Promise<void> | void) => void;
  getBaseline: Baseline;
  barePost: Baseline;
  /** Events inserted in bulk; events purged by the row purge timed on SQLite (a tenth on Postgres); claims timed per database. */
  sizes: { events: number; purgeEvents: number; claims: number };
}

/** One database's results: the HTTP rows (a bench/report.ts pass) and the direct measurements. */
export interface EventGrowthPass extends Pass {
  events: number;
  insertSeconds: number;
  claim: ClaimResult;
  claimMet: boolean;
  retention: RetentionCost;
  /** The purge process while the requests ran, if it reported. */
  purgeUnderLoad?: PurgeRate;
}

/** A fresh database of the engine (a data directory, or a Postgres database), dropped at cleanup. */
async function freshStore(ctx: EventGrowthContext, database: Pass['database']): Promise<{ store: Store; env: Record<string, string> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-events-'));
  ctx.onCleanup(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...ctx.serverEnv(dataDir), EVENT_RETENTION_DAYS: '90' };
  if (database === 'sqlite') return { store: { kind: 'sqlite', filename: path.join(dataDir, 'payments.sqlite') }, env };
  const created = await createPostgresDatabase(process.env.BENCH_DATABASE_URL!);
  ctx.onCleanup(created.drop);
  return { store: { kind: 'postgres', url: created.url }, env: { ...env, DATABASE_URL: created.url } };
}

/** Charges through the API (each writes its events); the id of the newest event. */
async function seedEvents(server: ServerProcess, apiKey: string): Promise<string> {
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/x-www-form-urlencoded' };
  for (let n = 0; n < SEED_CHARGES; n++) {
    const res = await fetch(`${server.url}/v1/charges`, { method: 'POST', headers, body: 'amount=2000&currency=usd&source=tok_visa' });
    if (!res.ok) throw new Error(`POST /v1/charges answered ${res.status}: ${await res.text()}`);
  }
  const res = await fetch(`${server.url}/v1/events?limit=1`, { headers: { Authorization: headers.Authorization } });
  const json = (await res.json()) as { data?: Array<{ id: string }> };
  if (!res.ok || !json.data?.[0]) throw new Error(`GET /v1/events answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data[0].id;
}

/** The four requests the issue names, each with the bare route it is compared with. */
function requestSteps(
  ctx: EventGrowthContext,
  scenarios: { eventId: string; deepCursor: string; suffix: string },
): Array<{ baseline: Baseline; scenario: Scenario }> {
  const auth = { Authorization: `Bearer ${ctx.apiKey}` };
  const { eventId, deepCursor, suffix } = scenarios;
  const get = (name: string, url: string) => ({
    baseline: ctx.getBaseline,
    scenario: { name: `${name} ${suffix}`, path: url, headers: auth },
  });
  return [
    get('GET /v1/events/{id}', `/v1/events/${eventId}`),
    get('GET /v1/events?limit=10 first page', `/v1/events?limit=${PAGE}`),
    get('GET /v1/events?limit=10 99.9% down', `/v1/events?limit=${PAGE}&starting_after=${deepCursor}`),
    { baseline: ctx.barePost, scenario: jsonPostScenario(`POST /v1/charges JSON (new key, 16 conn.) ${suffix}`, auth.Authorization) },
  ];
}

/**
 * The four requests on the database as it is now, each against its baseline. With `warmUp`, each
 * is first run once and discarded: a server started just now would be measured colder on the empty
 * database than later on the grown one, which would flatter growth.
 */
async function measureRequests(
  ctx: EventGrowthContext,
  interleaver: Interleaver,
  server: ServerProcess,
  scenarios: { eventId: string; deepCursor: string; suffix: string; warmUp?: boolean },
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { baseline, scenario } of requestSteps(ctx, scenarios)) {
    if (scenarios.warmUp) await measure(server.url, scenario, baseline.settings);
    rows.push(await interleaver.against(baseline, { url: server.url, scenario }));
  }
  return rows;
}

/** Sets each grown row's target: its ratio to its baseline within 20% of the empty database's. */
function targetGrowth(grown: Row[], empty: Row[]): void {
  for (const [i, row] of grown.entries()) target(row, '≥ 0.80 × empty DB', row.ratioToBaseline / empty[i].ratioToBaseline, 0.8);
}

/**
 * The GET by id and the POST with no purge, then again while a row purge runs in its own process
 * on the same database; returns what the purge process reported, if it did.
 */
async function measureDuringPurge(
  ctx: EventGrowthContext,
  interleaver: Interleaver,
  server: ServerProcess,
  store: Store,
  eventId: string,
): Promise<{ purge?: PurgeRate; endedEarly: boolean }> {
  const auth = { Authorization: `Bearer ${ctx.apiKey}` };
  const measureBoth = async (suffix: string) => {
    const byId = { name: `GET /v1/events/{id} ${suffix}`, path: `/v1/events/${eventId}`, headers: auth };
    await interleaver.against(ctx.getBaseline, { url: server.url, scenario: byId });
    const post = jsonPostScenario(`POST /v1/charges JSON (16 conn.) ${suffix}`, auth.Authorization);
    await interleaver.against(ctx.barePost, { url: server.url, scenario: post });
  };
  await measureBoth('(no purge)');
  const purger = startProcess('row purge', ['--import', 'tsx', 'bench/event-purge-process.ts'], {
    BENCH_PURGE_STORE: JSON.stringify(store),
    BENCH_PURGE_NOW_MS: String(purgeClockMs()),
  }, ctx.root);
  ctx.onCleanup(() => stopServer(purger));
  while (!purger.output().includes('purging')) {
    if (hasExited(purger)) throw new Error(`The purge process ended: ${purger.output()}`);
    await sleep(50);
  }
  await measureBoth('(row purge running)');
  const endedEarly = hasExited(purger);
  await stopServer(purger, 60_000);
  const line = purger.output().split('\n').find((l) => l.startsWith('{'));
  if (!line) return { endedEarly };
  const { seconds, ...counts } = JSON.parse(line) as { seconds: number; events: number; deliveries: number; attempts: number };
  return { purge: purgeRate(counts, seconds), endedEarly };
}

/**
 * The whole part on one engine. The empty database and the grown one are two databases, each with
 * a server started for it and warmed up: the grown one gets its bulk events before the API makes
 * any, so that `seq` follows `created` there as in production (see bench/event-store.ts).
 */
export async function runEventGrowthPass(ctx: EventGrowthContext, database: Pass['database']): Promise<EventGrowthPass> {
  const label = `${database}, events`;
  const interleaver = createInterleaver(label);
  const start = (env: Record<string, string>) => ctx.startNode(`server (${label})`, ['--import', 'tsx', 'src/main.ts'], env, '/healthz');
  const emptyDb = await freshStore(ctx, database);
  let server = await start(emptyDb.env);
  let eventId = await seedEvents(server, ctx.apiKey);
  const deepCursor = await eventDeepDown(emptyDb.store, 0.999, PAGE);
  const empty = await measureRequests(ctx, interleaver, server, { eventId, deepCursor, suffix: '(empty DB)', warmUp: true });
  const template = await readTemplate(emptyDb.store, eventId);
  await stopServer(server);

  const { events } = ctx.sizes;
  const grownDb = await freshStore(ctx, database);
  server = await start(grownDb.env);
  console.error(`[${label}] inserting ${events} events`);
  const progress = (done: number) => console.error(`[${label}] ${done} events inserted`);
  const bulk = await insertEvents(grownDb.store, ctx.apiKey, template, events, SPAN_DAYS, progress);
  console.error(`[${label}] inserted in ${bulk.seconds.toFixed(1)} s`);
  eventId = await seedEvents(server, ctx.apiKey);
  const suffix = `(+${events} events)`;
  const grownCursor = await eventDeepDown(grownDb.store, 0.999, PAGE);
  const grown = await measureRequests(ctx, interleaver, server, { eventId, deepCursor: grownCursor, suffix, warmUp: true });
  targetGrowth(grown, empty);
  const duringPurge = await measureDuringPurge(ctx, interleaver, server, grownDb.store, eventId);
  await stopServer(server);

  console.error(`[${label}] timing the claim, then retention`);
  const claim = await measureClaims(emptyDb.store, grownDb.store, ctx.sizes.claims);
  const purgeEvents = database === 'sqlite' ? ctx.sizes.purgeEvents : Math.ceil(ctx.sizes.purgeEvents / 10);
  const retention = await measureRetention(grownDb.store, purgeEvents);
  const result: EventGrowthPass = {
    database,
    rows: interleaver.rows,
    baselineRuns: interleaver.baselineRuns,
    notes: [],
    events,
    insertSeconds: bulk.seconds,
    claim,
    claimMet: claim.ratio <= 1.2,
    retention,
    purgeUnderLoad: duringPurge.purge,
  };
  result.notes = notesOf(result, duringPurge.endedEarly);
  return result;
}

const fixed = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The figures that are not request rows, as the lines under the table. */
function notesOf(pass: EventGrowthPass, purgeEndedEarly: boolean): string[] {
  const { claim, retention, purgeUnderLoad } = pass;
  const notes = [
    `bulk insert of ${fixed(pass.events)} events (one in two with a delivery and an attempt), over ${SPAN_DAYS} days: ${fixed(pass.insertSeconds, 1)} s.`,
    `worker's claim of 10 due deliveries (${claim.empty.calls} calls each): empty DB ${fixed(claim.empty.meanUs)} µs mean, ` +
      `${fixed(claim.empty.p99Us)} µs p99; grown ${fixed(claim.grown.meanUs)} µs mean, ${fixed(claim.grown.p99Us)} µs p99; ` +
      `grown × empty ${claim.ratio.toFixed(2)} (target ≤ 1.20): ${pass.claimMet ? 'PASS' : 'FAIL'}.`,
    `row purge alone: ${fixed(retention.purge.events)} events, ${fixed(retention.purge.deliveries)} deliveries, ` +
      `${fixed(retention.purge.attempts)} attempts in ${fixed(retention.purge.seconds, 1)} s: ` +
      `${fixed(retention.purge.eventsPerSecond)} events/s, ${fixed(retention.purge.rowsPerSecond)} rows/s.`,
  ];
  if (retention.drop) {
    const { drop } = retention;
    notes.push(`dropMonth(${drop.month}): ${fixed(drop.events)} events (${fixed(drop.rows)} rows with deliveries and attempts) in ${fixed(drop.seconds * 1000, 1)} ms, of which the detach (the parents locked) ${fixed(drop.detachMs, 1)} ms.`);
  }
  if (purgeUnderLoad) {
    notes.push(
      `row purge process during the "row purge running" rows: ${fixed(purgeUnderLoad.events)} events in ${fixed(purgeUnderLoad.seconds, 1)} s ` +
        `(${fixed(purgeUnderLoad.eventsPerSecond)} events/s)${purgeEndedEarly ? '; it ran out of events before the rows ended' : ''}.`,
    );
  }
  return notes;
}

/** Renders the passes as bench/report.ts tables. */
export function formatEventGrowthPasses(passes: EventGrowthPass[]): string {
  return passes.map((pass) => formatPass(pass).replace(/^== (\w+) ==/, '== $1: events growth ==')).join('\n\n');
}
