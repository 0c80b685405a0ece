/**
 * A webhook backlog made in bulk, straight in the database (as bench/store.ts makes charges): 100,000
 * API calls would take minutes and measure the API, not the worker. Each queued event is a copy of
 * the newest event that has a delivery (one the API made), under a new id, with a pending delivery
 * of its own to the same endpoint, due now. Every column is copied from those two rows except the
 * ones that make a delivery new, so that columns added by later migrations follow without a change
 * here.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Store } from './store.js';

/** Columns of the copies that are not the template's (SQL expressions; `n` is the copy's number). */
type Overrides = Record<string, string>;

/** What a bulk insert of a backlog took. */
export interface BacklogResult {
  seconds: number;
}

/**
 * Queues `count` events with one pending delivery each, in one transaction, copying the newest
 * delivery of the database and its event. Nothing else may write to the database meanwhile.
 */
export async function insertWebhookBacklog(store: Store, count: number): Promise<BacklogResult> {
  const started = performance.now();
  if (store.kind === 'sqlite') insertSqlite(store.filename, count);
  else await insertPostgres(store.url, count);
  return { seconds: (performance.now() - started) / 1000 };
}

/** The id of copy `n`: the template's prefix (`evt`, …), then a marker and `n`, fixed width so ids sort. */
function copyId(templateId: string, number: (width: number) => string): string {
  const prefix = templateId.slice(0, templateId.indexOf('_') + 1);
  return `'${prefix}bulk' || ${number(20)}`;
}

function eventOverrides(eventId: string, number: (width: number) => string): Overrides {
  return { id: copyId(eventId, number), pending_webhooks: '1' };
}

function deliveryOverrides(
  template: { id: string; event_id: string },
  number: (width: number) => string,
  nowMs: number,
): Overrides {
  return {
    id: copyId(template.id, number),
    event_id: copyId(template.event_id, number),
    status: "'pending'",
    attempts: '0',
    next_attempt_at: String(nowMs),
    lease_owner: 'NULL',
    lease_until: 'NULL',
    last_response_status: 'NULL',
    last_error: 'NULL',
    manual_retry: 'FALSE',
    completed_at: 'NULL',
  };
}

/** `INSERT INTO table (…) SELECT … FROM <copies>, table t WHERE t.id = <param>`, `seq` left to the database. */
function copyStatement(table: string, columns: string[], overrides: Overrides, copies: string, param: string): string {
  const kept = columns.filter((column) => column !== 'seq');
  const values = kept.map((column) => overrides[column] ?? `t.${column}`);
  return `INSERT INTO ${table} (${kept.join(', ')})
    SELECT ${values.join(', ')} FROM ${copies}, ${table} t WHERE t.id = ${param} ORDER BY n`;
}

function insertSqlite(filename: string, count: number): void {
  const db = new BetterSqlite3(filename);
  try {
    db.pragma('busy_timeout = 5000');
    const template = db
      .prepare('SELECT id, event_id FROM webhook_deliveries ORDER BY seq DESC LIMIT 1')
      .get() as { id: string; event_id: string } | undefined;
    if (!template) throw new Error('No webhook delivery to copy: create events first');
    const columns = (table: string) =>
      (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
    const number = (width: number) => `printf('%0${width}d', n)`;
    // A recursive CTE counts the copies inside SQLite: one statement per table, no rows through JS.
    const copies = `(WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n + 1 < ${count}) SELECT n FROM g)`;
    db.transaction(() => {
      db.prepare(copyStatement('events', columns('events'), eventOverrides(template.event_id, number), copies, '?')).run(
        template.event_id,
      );
      const overrides = deliveryOverrides(template, number, Date.now());
      db.prepare(copyStatement('webhook_deliveries', columns('webhook_deliveries'), overrides, copies, '?')).run(
        template.id,
      );
    })();
    // Fold the large WAL back into the file, as after the bulk insert of charges.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

async function insertPostgres(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query<{ id: string; event_id: string }>(
      'SELECT id, event_id FROM webhook_deliveries ORDER BY seq DESC LIMIT 1',
    );
    const template = found.rows[0];
    if (!template) throw new Error('No webhook delivery to copy: create events first');
    const columns = async (table: string) =>
      (
        await client.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
          [table],
        )
      ).rows.map((row) => row.column_name);
    const number = (width: number) => `lpad(n::text, ${width}, '0')`;
    const copies = `generate_series(0, ${count - 1}) AS g(n)`;
    const eventsSql = copyStatement('events', await columns('events'), eventOverrides(template.event_id, number), copies, '$1');
    const deliveriesSql = copyStatement(
      'webhook_deliveries',
      await columns('webhook_deliveries'),
      deliveryOverrides(template, number, Date.now()),
      copies,
      '$1',
    );
    await client.query('BEGIN');
    try {
      await client.query(eventsSql, [template.event_id]);
      await client.query(deliveriesSql, [template.id]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    // The worker's claim plan depends on fresh statistics of the grown tables.
    await client.query('ANALYZE events');
    await client.query('ANALYZE webhook_deliveries');
  } finally {
    await client.end();
  }
}
