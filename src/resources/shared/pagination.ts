import type { Queryable, SqlValue } from '../../db/database.js';
import { ApiError } from '../../domain/errors.js';

/** The spec's pagination parameters (`limit` already defaulted by the validator). */
export interface PageParams {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/** What to list: a table, the account, and equality filters on trusted column names. */
export interface ListScope {
  table: string;
  accountId: string;
  filters?: ReadonlyArray<readonly [column: string, value: SqlValue]>;
  /** Further conditions written in SQL by the caller (trusted text, values as parameters). */
  conditions?: ReadonlyArray<{ sql: string; params: SqlValue[] }>;
}

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

const DEFAULT_LIMIT = 10;

/**
 * One page, newest first, by index seek on `(account_id, …, seq)`: never OFFSET, so page
 * 100,000 costs what page 1 costs, and cursors stay valid while rows are inserted.
 * `has_more` says whether more rows lie in the direction of the request.
 */
export async function fetchPage<Row extends { seq: number }>(
  db: Queryable,
  scope: ListScope,
  page: PageParams,
): Promise<{ rows: Row[]; hasMore: boolean }> {
  const limit = page.limit ?? DEFAULT_LIMIT;
  if (page.starting_after && page.ending_before) {
    throw new ApiError('parameter_invalid', 'Pass either starting_after or ending_before, not both.', {
      param: 'ending_before',
    });
  }
  const where = ['account_id = ?'];
  const params: SqlValue[] = [scope.accountId];
  for (const [column, value] of scope.filters ?? []) {
    where.push(`${column} = ?`);
    params.push(value);
  }
  for (const condition of scope.conditions ?? []) {
    where.push(condition.sql);
    params.push(...condition.params);
  }
  const cursorParam = page.starting_after ? 'starting_after' : page.ending_before ? 'ending_before' : null;
  if (cursorParam) {
    // The cursor's position is read inside the page's own statement (one round trip, one seek);
    // a cursor that names no row of the account makes it NULL, so the page comes back empty.
    where.push(`seq ${cursorParam === 'starting_after' ? '<' : '>'} (${CURSOR_SEQ(scope.table)})`);
    params.push(scope.accountId, page[cursorParam]!);
  }
  const newerFirst = cursorParam !== 'ending_before';
  params.push(limit + 1);
  const rows = await db.all<Row>(
    `SELECT * FROM ${scope.table} WHERE ${where.join(' AND ')} ORDER BY seq ${newerFirst ? 'DESC' : 'ASC'} LIMIT ?`,
    params,
  );
  // Only an empty page asks whether the cursor exists: the end of the list, or an unknown id.
  if (cursorParam && rows.length === 0) await requireCursor(db, scope, cursorParam, page[cursorParam]!);
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  if (!newerFirst) pageRows.reverse();
  return { rows: pageRows, hasMore };
}

/** The position (`seq`) of the account's row with a given id. */
const CURSOR_SEQ = (table: string) => `SELECT seq FROM ${table} WHERE account_id = ? AND id = ?`;

/** A cursor must name one of the account's rows: 400 naming the parameter otherwise. */
async function requireCursor(db: Queryable, scope: ListScope, param: string, cursor: string): Promise<void> {
  const row = await db.one(CURSOR_SEQ(scope.table), [scope.accountId, cursor]);
  if (!row) throw new ApiError('parameter_invalid', `No such object: '${cursor}'`, { param });
}

/** The list envelope of DESIGN §3. */
export function listOf<Row, T>(url: string, page: { rows: Row[]; hasMore: boolean }, map: (row: Row) => T): ListEnvelope<T> {
  return { object: 'list', data: page.rows.map(map), has_more: page.hasMore, url };
}
