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
    const cursor = page[cursorParam]!;
    const row = await db.one<{ seq: number }>(`SELECT seq FROM ${scope.table} WHERE account_id = ? AND id = ?`, [
      scope.accountId,
      cursor,
    ]);
    if (!row) throw new ApiError('parameter_invalid', `No such object: '${cursor}'`, { param: cursorParam });
    where.push(cursorParam === 'starting_after' ? 'seq < ?' : 'seq > ?');
    params.push(row.seq);
  }
  const newerFirst = cursorParam !== 'ending_before';
  params.push(limit + 1);
  const rows = await db.all<Row>(
    `SELECT * FROM ${scope.table} WHERE ${where.join(' AND ')} ORDER BY seq ${newerFirst ? 'DESC' : 'ASC'} LIMIT ?`,
    params,
  );
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  if (!newerFirst) pageRows.reverse();
  return { rows: pageRows, hasMore };
}

/** The list envelope of DESIGN §3. */
export function listOf<Row, T>(url: string, page: { rows: Row[]; hasMore: boolean }, map: (row: Row) => T): ListEnvelope<T> {
  return { object: 'list', data: page.rows.map(map), has_more: page.hasMore, url };
}
