import type { Dialect } from './database.js';

/**
 * The one place that knows how SQLite and Postgres differ. Everything else writes SQL that both
 * engines accept (`RETURNING`, `ON CONFLICT`, `?` placeholders).
 */

/** Whether a driver error is a unique-constraint violation (a duplicate key). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** SQLite stores booleans as 0/1; Postgres returns real booleans. */
export function toBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
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
 * An INSERT (`insert`, without `RETURNING`) that also announces its rows to the other processes, in
 * one statement: on Postgres one `pg_notify` on {@link EVENTS_CHANNEL} per announced row, delivered
 * when, and only if, the transaction commits, whose payloads are the statement's last `notices`
 * parameters. SQLite has nothing to announce (readers poll the table): the INSERT alone, without
 * the payload parameters.
 */
export function announcedInsert(dialect: Dialect, insert: string, notices: number): { sql: string; takesPayloads: boolean } {
  if (dialect !== 'postgres') return { sql: insert, takesPayloads: false };
  // A data-modifying WITH runs to completion whether or not the query reads it.
  const payloads = new Array<string>(notices).fill('(?)').join(', ');
  return {
    sql: `WITH inserted AS (${insert}) SELECT pg_notify('${EVENTS_CHANNEL}', notice) FROM (VALUES ${payloads}) AS notices(notice)`,
    takesPayloads: true,
  };
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
