/**
 * Events in bulk, straight in the database (as bench/store.ts makes charges): 10,000,000 API calls
 * would take hours and measure the API, not the grown tables. Each event copies the type, API
 * version and `data` of an event the API made (the template, read from another database), under
 * its own id, with `created` spread evenly over the `spanDays` days up to a day ago, in `seq`
 * order; one event in two gets a succeeded webhook delivery and one attempt, shaped as the worker leaves them (migrations 0001, 0003, 0008
 * and 0011: a delivery's `created` is its event's, an attempt's `delivery_created` its delivery's).
 *
 * Ids are `evt_bulk…`, `whd_bulk…` with the event's number, fixed width: they sort in insertion
 * order, so every index is appended to (real ids are random, which makes the id index's inserts,
 * not its look-ups, slower).
 */
import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { createMonthPartitions, monthOf } from '../src/db/partitions.js';
import { openDatabase } from '../src/db/open-database.js';
import type { Store } from './store.js';

const DAY_SECONDS = 86_400;
/** Rows per statement: bounds a statement's memory, and shows progress on a long insert. */
const CHUNK = 1_000_000;
/** The endpoint of the bulk deliveries: not in `webhook_endpoints`, so the API and the worker never send to it. */
export const BULK_ENDPOINT_ID = 'we_benchbulk0000000000000';

/** What a bulk insert of events left behind. */
export interface EventBulkResult {
  seconds: number;
  /** The oldest and newest `created` of the bulk events (unix seconds). */
  from: number;
  to: number;
}

/** SQL expressions of one event's rows, from its number `n` (the dialect's own functions). */
interface Expressions {
  /** `n` as a fixed-width decimal string. */
  padded: string;
  /** The event's `created`: the span's start, plus its share of the span, in `seq` order. */
  created: string;
  /** The numbers from the chunk's first to its last (a FROM item naming its column `n`). */
  numbers: (first: number, last: number) => string;
}

/** What every bulk event copies from an event the API made. */
export interface EventTemplate {
  type: string;
  api_version: string;
  data: string;
}

/** One statement and its parameters. */
interface Statement {
  sql: string;
  params: string[];
}

/**
 * The three INSERT … SELECT statements of a chunk; `p(i)` is the dialect's i-th placeholder
 * (1-based), and each statement's parameters are in the order of its placeholders.
 */
function chunkStatements(x: Expressions, first: number, last: number, p: (i: number) => string, account: string, template: EventTemplate): Statement[] {
  const created = x.created;
  const events = `INSERT INTO events (id, account_id, type, api_version, request_id, idempotency_key, data, object_id, pending_webhooks, created)
    SELECT 'evt_bulk' || ${x.padded}, ${p(1)}, ${p(2)}, ${p(3)}, 'req_bulk' || ${x.padded}, NULL, ${p(4)},
      'ch_bulk' || ${x.padded}, 0, ${created}
    FROM ${x.numbers(first, last)} ORDER BY n`;
  const deliveries = `INSERT INTO webhook_deliveries (id, account_id, event_id, endpoint_id, status, attempts, next_attempt_at,
      lease_owner, lease_until, last_response_status, last_error, manual_retry, created, completed_at)
    SELECT 'whd_bulk' || ${x.padded}, ${p(1)}, 'evt_bulk' || ${x.padded}, '${BULK_ENDPOINT_ID}', 'succeeded', 1,
      (${created}) * 1000, NULL, NULL, 200, NULL, FALSE, ${created}, (${created}) * 1000 + 40
    FROM ${x.numbers(first, last)} WHERE n % 2 = 0 ORDER BY n`;
  const attempts = `INSERT INTO webhook_attempts (delivery_id, account_id, delivery_created, started_at, duration_ms,
      response_status, response_body, error, manual)
    SELECT 'whd_bulk' || ${x.padded}, ${p(1)}, ${created}, (${created}) * 1000, 40, 200, 'ok', NULL, FALSE
    FROM ${x.numbers(first, last)} WHERE n % 2 = 0 ORDER BY n`;
  return [
    { sql: events, params: [account, template.type, template.api_version, template.data] },
    { sql: deliveries, params: [account] },
    { sql: attempts, params: [account] },
  ];
}

/**
 * Inserts `count` events copying `template` for the account that holds `apiKey` (found by the
 * key's SHA-256, as the server stores it), the newest a day old and the oldest `spanDays` days
 * before that; on Postgres, creates first the month partitions they fall in. Insert them before
 * the API makes any event, so that `seq` follows `created` as it does in production (the row
 * purge walks events by `seq` and stops at the first page of young ones).
 */
export async function insertEvents(
  store: Store,
  apiKey: string,
  template: EventTemplate,
  count: number,
  spanDays: number,
  onProgress: (done: number) => void = () => undefined,
): Promise<EventBulkResult> {
  const keyHash = createHash('sha256').update(apiKey).digest('hex');
  // A day before now: the events the API makes during the run stay younger than every bulk event.
  const to = Math.floor(Date.now() / 1000) - DAY_SECONDS;
  const from = to - spanDays * DAY_SECONDS;
  const started = performance.now();
  const span = { count, from, to, keyHash, template, onProgress };
  if (store.kind === 'sqlite') insertSqlite(store.filename, span);
  else await insertPostgres(store.url, span);
  return { seconds: (performance.now() - started) / 1000, from, to };
}

/** What a bulk insert is asked for, for either engine. */
interface Span {
  count: number;
  from: number;
  to: number;
  keyHash: string;
  template: EventTemplate;
  onProgress: (done: number) => void;
}

function insertSqlite(filename: string, span: Span): void {
  const { count, from, to } = span;
  const db = new BetterSqlite3(filename);
  try {
    db.pragma('busy_timeout = 5000');
    const account = accountOf(db.prepare('SELECT account_id FROM api_keys WHERE key_hash = ?').pluck().get(span.keyHash));
    const x: Expressions = {
      padded: "printf('%020d', n)",
      created: `(${from} + (n * ${to - from}) / ${count})`,
      // A recursive CTE counts inside SQLite: no row goes through JavaScript.
      numbers: (first, last) =>
        `(WITH RECURSIVE g(n) AS (SELECT ${first} UNION ALL SELECT n + 1 FROM g WHERE n < ${last}) SELECT n FROM g)`,
    };
    db.transaction(() => {
      for (let first = 0; first < count; first += CHUNK) {
        const last = Math.min(first + CHUNK, count) - 1;
        for (const { sql, params } of chunkStatements(x, first, last, () => '?', account, span.template)) db.prepare(sql).run(params);
        span.onProgress(last + 1);
      }
    })();
    // Fold the WAL back into the file, so that the server's reads do not go through it.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

function accountOf(found: unknown): string {
  if (typeof found !== 'string') throw new Error('The bench API key is not in the database');
  return found;
}

async function insertPostgres(url: string, span: Span): Promise<void> {
  const { count, from, to } = span;
  // The months the rows fall in get their partitions first, so that no row lands in the default one.
  const queryable = await openDatabase({ kind: 'postgres', url });
  try {
    await createMonthPartitions(queryable, monthOf(from), monthOf(to));
  } finally {
    await queryable.close();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const key = await client.query<{ account_id: string }>('SELECT account_id FROM api_keys WHERE key_hash = $1', [span.keyHash]);
    const account = accountOf(key.rows[0]?.account_id);
    const x: Expressions = {
      padded: "lpad(n::text, 20, '0')",
      created: `(${from} + (n::bigint * ${to - from}) / ${count})`,
      numbers: (first, last) => `generate_series(${first}, ${last}) AS g(n)`,
    };
    // One statement per table and chunk, each its own transaction: a failure leaves whole chunks.
    for (let first = 0; first < count; first += CHUNK) {
      const last = Math.min(first + CHUNK, count) - 1;
      for (const { sql, params } of chunkStatements(x, first, last, (i) => `$${i}`, account, span.template)) await client.query(sql, params);
      span.onProgress(last + 1);
    }
    for (const table of ['events', 'webhook_deliveries', 'webhook_attempts']) await client.query(`ANALYZE ${table}`);
  } finally {
    await client.end();
  }
}

/** The columns of an event that bulk events copy. */
export async function readTemplate(store: Store, eventId: string): Promise<EventTemplate> {
  const db = await openDatabase(store);
  try {
    const row = await db.one<EventTemplate>('SELECT type, api_version, data FROM events WHERE id = ?', [eventId]);
    if (!row) throw new Error(`No event ${eventId}`);
    return row;
  } finally {
    await db.close();
  }
}

/**
 * The id of the event `fraction` of the way down the list, newest first (for `starting_after`),
 * but at least a full page of `pageSize` above the oldest, so that the page after it is a full one.
 */
export async function eventDeepDown(store: Store, fraction: number, pageSize: number): Promise<string> {
  const db = await openDatabase(store);
  try {
    const total = Number((await db.one<{ total: number | string }>('SELECT COUNT(*) AS total FROM events'))?.total ?? 0);
    const depth = Math.max(0, Math.min(Math.floor(total * fraction), total - pageSize - 1));
    const row = await db.one<{ id: string }>('SELECT id FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?', [depth]);
    if (!row) throw new Error(`No event ${depth} deep`);
    return row.id;
  } finally {
    await db.close();
  }
}
