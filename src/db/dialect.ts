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
