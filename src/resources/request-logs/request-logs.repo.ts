import type { Queryable, SqlValue } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface RequestLogRow {
  seq: number;
  /** The request's `Request-Id`. */
  id: string;
  account_id: string;
  /** Unix seconds of the answer. */
  created: number;
  method: string;
  /** The path as sent, without its query string. */
  path: string;
  status: number;
  duration_ms: number;
  idempotency_key: string | null;
}

/** A row as the recorder hands it over: `seq` is the table's to give. */
export type NewRequestLogRow = Omit<RequestLogRow, 'seq'>;

const COLUMNS = '(id, account_id, created, method, path, status, duration_ms, idempotency_key)';
const ROW_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?)';
/** The largest INSERT: a power of two, so that every batch is written by the sizes below it. */
const LARGEST_INSERT = 256;

/**
 * Writes a batch of entries, in order, in one transaction (one commit). The batch is cut into
 * INSERTs of power-of-two sizes (500 rows: 256 + 128 + 64 + 32 + 16 + 4), because each distinct
 * statement text is prepared once per connection and kept: a statement per batch size would have
 * each connection keep up to 500 of them, where these are nine.
 */
export async function insertRequestLogs(db: Queryable, rows: readonly NewRequestLogRow[]): Promise<void> {
  const chunks: Array<readonly NewRequestLogRow[]> = [];
  let start = 0;
  for (let size = LARGEST_INSERT; size >= 1; size /= 2) {
    while (rows.length - start >= size) {
      chunks.push(rows.slice(start, start + size));
      start += size;
    }
  }
  if (chunks.length === 1) return insertChunk(db, chunks[0]);
  if (chunks.length > 1) {
    await db.transaction(async (tx) => {
      for (const chunk of chunks) await insertChunk(tx, chunk);
    });
  }
}

async function insertChunk(db: Queryable, rows: readonly NewRequestLogRow[]): Promise<void> {
  const values = new Array<string>(rows.length).fill(ROW_VALUES).join(', ');
  const params = rows.flatMap((row): SqlValue[] => [
    row.id,
    row.account_id,
    row.created,
    row.method,
    row.path,
    row.status,
    row.duration_ms,
    row.idempotency_key,
  ]);
  await db.run(`INSERT INTO request_logs ${COLUMNS} VALUES ${values}`, params);
}

/** A page of the account's entries, newest first (see `fetchPage`). */
export function listRequestLogRows(db: Queryable, accountId: string, page: PageParams) {
  return fetchPage<RequestLogRow>(db, { table: 'request_logs', accountId }, page);
}

/** Rows deleted per statement, so that a purge never holds a long lock nor builds a large transaction. */
const PURGE_BATCH = 5000;

/**
 * Deletes the entries created before `before` (unix seconds), a bounded batch at a time, and
 * returns how many. Each batch is its own statement, so requests' flushes interleave with a long
 * purge rather than wait for it.
 */
export async function purgeRequestLogs(db: Queryable, before: number): Promise<number> {
  let purged = 0;
  for (;;) {
    const deleted = await db.run(
      `DELETE FROM request_logs WHERE seq IN (SELECT seq FROM request_logs WHERE created < ? LIMIT ${PURGE_BATCH})`,
      [before],
    );
    purged += deleted;
    if (deleted < PURGE_BATCH) return purged;
  }
}
