/**
 * Monthly range partitions on Postgres for the tables that grow with every event: `events` by
 * `created`, `webhook_deliveries` by `created` (their event's), `webhook_attempts` by
 * `delivery_created` (their delivery's, so their event's). All three keys are the event's creation
 * in unix seconds, so one month of events, their deliveries and their attempts live in partitions of
 * the same month (`events_y2026m11`, `webhook_deliveries_y2026m11`, `webhook_attempts_y2026m11`), and
 * leave together when that month is dropped (src/resources/events/events.retention.ts).
 *
 * Each table also has a DEFAULT partition: a row whose month has no partition yet (a process whose
 * clock is far off, a worker that has not run for months) is kept there rather than refused, and
 * {@link ensureMonthPartitions} moves such rows into their month's partition when it creates it.
 *
 * Locks: a partition is created as a table of its own and then attached, which takes only SHARE
 * UPDATE EXCLUSIVE on the parent (requests go on), and ACCESS EXCLUSIVE on the (normally empty)
 * default partition for the moment it is checked. Detaching takes ACCESS EXCLUSIVE on the parents
 * for the moment the catalog changes; every such statement runs under a short `lock_timeout`, so a
 * request waits at most that long behind it, and a run that cannot get its lock tries again later.
 * SQLite keeps plain tables; nothing here runs there.
 */
import type { Queryable } from './database.js';

/** A partitioned table and the column holding its rows' event creation time (unix seconds). */
export interface PartitionedTable {
  table: string;
  key: string;
}

/** The partitioned tables, dropped in this order (attempts before the deliveries they belong to, before their events). */
export const PARTITIONED_TABLES: readonly PartitionedTable[] = [
  { table: 'webhook_attempts', key: 'delivery_created' },
  { table: 'webhook_deliveries', key: 'created' },
  { table: 'events', key: 'created' },
];

/** Whether the database keeps events in month partitions (Postgres) or in plain tables (SQLite). */
export function partitionsEvents(db: Pick<Queryable, 'dialect'>): boolean {
  return db.dialect === 'postgres';
}

/**
 * A list's condition for rows created at or after `createdFrom` (unix seconds), for a keyset scan
 * by `seq` that must stop where they end: rows past it are kept on Postgres until their month is
 * dropped, and a scan that filtered them one by one would read up to a month of them for a last
 * page. So on Postgres the scan is also bounded below by the `seq` of the first row created since
 * (found through the primary key, `(created, seq)`, in the partitions from that month on). `seq`
 * follows creation to within the clock difference between processes, so a row created within
 * that much of the moment may leave the list that much early. SQLite deletes such rows within
 * minutes, so its condition is on `created` alone.
 */
export function retentionBound(db: Pick<Queryable, 'dialect'>, table: 'events' | 'webhook_deliveries', createdFrom: number): { sql: string; params: number[] } {
  if (!partitionsEvents(db)) return { sql: `${table}.created >= ?`, params: [createdFrom] };
  return {
    sql: `${table}.created >= ? AND ${table}.seq >= (SELECT b.seq FROM ${table} b WHERE b.created >= ? ORDER BY b.created, b.seq LIMIT 1)`,
    params: [createdFrom, createdFrom],
  };
}

/**
 * How the retention purge walks a table of events oldest first, in its primary key's order: by
 * `seq` on SQLite, by `(created, seq)` on Postgres, whose primary key leads with creation. `after`
 * is the last row of the previous page (none for the first page).
 */
export function walkByPrimaryKey(
  db: Pick<Queryable, 'dialect'>,
  alias: string,
  after: { created: number; seq: number } | undefined,
): { where: string; params: number[]; orderBy: string } {
  if (!partitionsEvents(db)) return { where: `${alias}.seq > ?`, params: [after?.seq ?? 0], orderBy: `${alias}.seq` };
  return {
    where: `(${alias}.created, ${alias}.seq) > (?, ?)`,
    params: after ? [after.created, after.seq] : [Number.MIN_SAFE_INTEGER, 0],
    orderBy: `${alias}.created, ${alias}.seq`,
  };
}

/** Months created ahead of the current one, so a worker that stops for a while leaves writes a partition to go to. */
export const MONTHS_AHEAD = 3;

/** How long a partition change waits for a lock before giving up until the next run. */
const LOCK_TIMEOUT = '200ms';

/** A calendar month in UTC: `month` is 1–12. */
export interface Month {
  year: number;
  month: number;
}

/** The month (UTC) of a unix time in seconds. */
export function monthOf(unixSeconds: number): Month {
  const date = new Date(unixSeconds * 1000);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 };
}

/** The month `count` months after `from` (before, for a negative count). */
export function addMonths(from: Month, count: number): Month {
  const index = from.year * 12 + (from.month - 1) + count;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** The month's range in unix seconds: from its first instant, up to (not including) the next month's. */
export function monthBounds(month: Month): { from: number; to: number } {
  const next = addMonths(month, 1);
  return { from: Date.UTC(month.year, month.month - 1, 1) / 1000, to: Date.UTC(next.year, next.month - 1, 1) / 1000 };
}

/** The name of a table's partition for a month: `events_y2026m01`. */
export function partitionName(table: string, month: Month): string {
  return `${table}_y${month.year}m${String(month.month).padStart(2, '0')}`;
}

/** The name of a table's default partition. */
export function defaultPartitionName(table: string): string {
  return `${table}_default`;
}

const MONTH_SUFFIX = /_y(\d{4})m(\d{2})$/;

/** The month partitions a table has, oldest first. */
export async function monthPartitions(db: Pick<Queryable, 'all'>, table: string): Promise<Month[]> {
  const rows = await db.all<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = ? AND p.relnamespace = current_schema()::regnamespace`,
    [table],
  );
  return rows
    .map((row) => MONTH_SUFFIX.exec(row.name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ year: Number(match[1]), month: Number(match[2]) }))
    .sort((a, b) => a.year * 12 + a.month - (b.year * 12 + b.month));
}

/**
 * Creates, for every partitioned table, the partitions of the months from `from` to `to` that do
 * not exist yet, each in its own short transaction (see the module comment for its locks). Rows the
 * default partition holds for such a month move into it. Returns the partitions created.
 */
export async function createMonthPartitions(db: Queryable, from: Month, to: Month): Promise<string[]> {
  const created: string[] = [];
  for (const { table, key } of PARTITIONED_TABLES) {
    const existing = new Set((await monthPartitions(db, table)).map((month) => partitionName(table, month)));
    for (let month = from; compareMonths(month, to) <= 0; month = addMonths(month, 1)) {
      const name = partitionName(table, month);
      if (existing.has(name)) continue;
      await db.transaction((tx) => attachMonth(tx, { table, key }, month));
      created.push(name);
    }
  }
  return created;
}

/** Creates the partitions of the current month and the {@link MONTHS_AHEAD} after it that are missing. */
export function ensureMonthPartitions(db: Queryable, nowMs: number): Promise<string[]> {
  const current = monthOf(Math.floor(nowMs / 1000));
  return createMonthPartitions(db, current, addMonths(current, MONTHS_AHEAD));
}

/** One month's partition of one table, created apart, filled from the default partition, then attached. */
async function attachMonth(tx: Queryable, { table, key }: PartitionedTable, month: Month): Promise<void> {
  const name = partitionName(table, month);
  const fallback = defaultPartitionName(table);
  const { from, to } = monthBounds(month);
  await tx.run(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
  // The parent's defaults (its sequence) and NOT NULLs; its indexes come with the ATTACH.
  await tx.run(`CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS)`);
  await tx.run(`INSERT INTO ${name} SELECT * FROM ${fallback} WHERE ${key} >= ? AND ${key} < ?`, [from, to]);
  await tx.run(`DELETE FROM ${fallback} WHERE ${key} >= ? AND ${key} < ?`, [from, to]);
  await tx.run(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM (${from}) TO (${to})`);
}

/** How long dropping a month took: detaching it (the parents locked), then dropping its tables (nothing locked that a request uses). */
export interface MonthDropped {
  detachMs: number;
  dropMs: number;
}

/**
 * Detaches one month's partitions of every partitioned table, in one transaction that waits at
 * most the lock timeout for its locks, then drops the detached tables one by one, outside it: the
 * parents are locked only for the catalog change, never while files are removed (seconds for a
 * month of millions of rows). Undefined when the locks were not had (nothing changed: try again
 * later). A drop cut short leaves detached tables, which {@link dropDetachedMonths} removes.
 */
export async function dropMonth(db: Queryable, month: Month): Promise<MonthDropped | undefined> {
  const started = performance.now();
  try {
    await db.transaction(async (tx) => {
      await tx.run(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      for (const { table } of PARTITIONED_TABLES) {
        const name = partitionName(table, month);
        const exists = await tx.one('SELECT 1 AS found FROM pg_class WHERE oid = to_regclass(?)', [name]);
        if (exists !== undefined) await tx.run(`ALTER TABLE ${table} DETACH PARTITION ${name}`);
      }
    });
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return undefined; // lock_not_available
    throw error;
  }
  const detached = performance.now();
  await dropDetachedMonths(db);
  return { detachMs: detached - started, dropMs: performance.now() - detached };
}

/** Drops the month tables of the partitioned tables that are no longer attached (see {@link dropMonth}). */
export async function dropDetachedMonths(db: Queryable): Promise<string[]> {
  const names = PARTITIONED_TABLES.map(({ table }) => table).join('|');
  const detached = await db.all<{ name: string }>(
    `SELECT relname AS name FROM pg_class
     WHERE relkind = 'r' AND NOT relispartition AND relnamespace = current_schema()::regnamespace AND relname ~ ?`,
    [`^(${names})_y[0-9]{4}m[0-9]{2}$`],
  );
  for (const { name } of detached) await db.run(`DROP TABLE ${name}`);
  return detached.map(({ name }) => name);
}

/** Negative, zero or positive as `a` is before, the same as, or after `b`. */
export function compareMonths(a: Month, b: Month): number {
  return a.year * 12 + a.month - (b.year * 12 + b.month);
}
