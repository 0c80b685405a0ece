import type { Dialect, Queryable, SqlValue } from './database.js';

/**
 * The one place that knows how SQLite and Postgres differ. Everything else writes SQL that both
 * engines accept (`RETURNING`, `ON CONFLICT`, `?` placeholders).
 */

/** Whether a driver error is a unique-constraint violation (a duplicate key). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Whether a driver error is a unique-constraint violation on `table` (Postgres names it; SQLite's message does). */
export function isUniqueViolationOn(error: unknown, table: string): boolean {
  if (!isUniqueViolation(error)) return false;
  const { table: violated, message } = error as { table?: unknown; message?: unknown };
  return violated === table || (typeof message === 'string' && message.includes(`constraint failed: ${table}.`));
}

/** The row-locking suffix for a `SELECT` inside a transaction (SQLite locks the whole file). */
export function forUpdate(dialect: Dialect): string {
  return dialect === 'postgres' ? ' FOR UPDATE' : '';
}

/**
 * The suffix that lets concurrent workers each lock different rows of the same `SELECT`
 * (Postgres); SQLite runs one writing statement at a time, so the plain statement is enough.
 */
export function forUpdateSkipLocked(dialect: Dialect): string {
  return dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
}

/** The Postgres channel on which committed events are announced (see src/resources/events/event-notification.ts). */
export const EVENTS_CHANNEL = 'payments_events';

/**
 * An INSERT (`insert` with its `params`, without `RETURNING`) that also announces its rows to the
 * other processes, in one statement: on Postgres one `pg_notify` on {@link EVENTS_CHANNEL} per
 * notice, delivered when, and only if, the transaction commits (see `commitNotificationsOf`).
 * SQLite has nothing to announce (readers poll the table): the INSERT alone.
 */
export function announcedInsert(
  dialect: Dialect,
  insert: string,
  params: readonly SqlValue[],
  notices: readonly string[],
): { sql: string; params: readonly SqlValue[] } {
  if (dialect !== 'postgres') return { sql: insert, params };
  // A data-modifying WITH runs to completion whether or not the query reads it.
  const payloads = new Array<string>(notices.length).fill('(?)').join(', ');
  return {
    sql: `WITH inserted AS (${insert}) SELECT pg_notify('${EVENTS_CHANNEL}', notice) FROM (VALUES ${payloads}) AS notices(notice)`,
    params: [...params, ...notices],
  };
}

/**
 * Runs `work`, a query that reads the first rows of an index in its order, with the planner told
 * to walk that index. Postgres plans such a query from its statistics, which lag behind a table
 * that grew in a burst, and may then bitmap-scan and sort every matching row instead; here it runs
 * in a transaction of its own with bitmap and sequential scans off for that transaction only.
 * SQLite's planner walks the index anyway: `work` runs as it is.
 */
export function preferringIndexScans<T>(db: Queryable, work: (q: Queryable) => Promise<T>): Promise<T> {
  if (db.dialect !== 'postgres') return work(db);
  return db.transaction(async (tx) => {
    // Pipelined with the query itself: no round trip of its own.
    await tx.write("SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)");
    return work(tx);
  });
}

/**
 * `<column> IN (…)` against one parameter holding a JSON array of strings, so that a list of any
 * length is one prepared statement rather than one statement per length.
 */
export function inJsonArray(dialect: Dialect, column: string): string {
  return dialect === 'postgres'
    ? `${column} IN (SELECT json_array_elements_text(?::json))`
    : `${column} IN (SELECT value FROM json_each(?))`;
}

/**
 * The `FROM` of an `INSERT … SELECT` whose commit does not wait for its WAL to reach the disk on
 * Postgres (`synchronous_commit` off for that one transaction: the commit returns at once, and
 * the WAL writer flushes it within a few hundred milliseconds). For rows worth a flush to nobody:
 * a crash may lose the last moment of them, never the table, and never another transaction's
 * rows. SQLite in WAL mode does not wait for the disk at commit anyway: nothing is added there.
 */
export function withoutCommitWait(dialect: Dialect): string {
  return dialect === 'postgres' ? "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS without_commit_wait" : '';
}
