import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Queryable, SqlValue } from './database.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.js';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** A prepared statement, with the result columns it reads that are declared `boolean`. */
interface Prepared {
  statement: Statement;
  /** SQLite stores booleans as 0/1: these columns are handed back as `true`/`false`, as Postgres does. */
  booleans: readonly string[];
}

/**
 * A write transaction shared by consecutive `transaction` calls (group commit): each call runs in
 * a savepoint of its own, and all of them commit at once.
 */
interface OpenBatch {
  units: number;
  /** Settled by the commit (or its failure); every unit of the batch answers after it. */
  committed: Promise<void>;
  settle(error?: unknown): void;
}

/** A caller waiting for the connection: a transaction may join an open batch, a statement may not. */
interface Waiter {
  joinsBatch: boolean;
  resume(): void;
}

/** Units per batch at most, so that a steady stream of writers still sees its commits promptly. */
const MAX_UNITS_PER_BATCH = 32;

/**
 * SQLite through one better-sqlite3 connection.
 *
 * better-sqlite3 is synchronous, so a query outside a transaction runs at once. A transaction
 * spans awaits, though, so it takes an in-process lock: while it is open, other queries wait for
 * it rather than slip into it. Writers take the database lock up front (`BEGIN IMMEDIATE`) so two
 * processes never deadlock on a read-to-write upgrade; `busy_timeout` makes the second one wait.
 *
 * Transactions are committed in groups. A commit costs two writes per changed page, and
 * concurrent requests change the same pages (the tables' and indexes' newest leaves, the key of
 * the last id), so a transaction that finds another one just finished joins its still-open write
 * transaction, in a savepoint, and the group commits once: when no further transaction is waiting,
 * at the end of the event loop's turn, or after {@link MAX_UNITS_PER_BATCH}. Each caller's promise
 * settles only after that commit, so nothing is acknowledged before it is committed; a failed
 * caller is rolled back to its savepoint alone. Statements outside transactions never see an
 * uncommitted group: they wait for its commit.
 */
export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Prepared>();
  private locked = false;
  private readonly waiters: Waiter[] = [];
  private batch: OpenBatch | undefined;
  private commitScheduled = false;
  private readonly direct: Queryable;

  private checkpointer: { stop(): Promise<void> } | undefined;
  private readonly commitListeners = new Set<() => void>();

  constructor(private readonly connection: BetterSqlite3.Database) {
    // Inside a transaction the lock is already held: statements run directly.
    this.direct = {
      dialect: 'sqlite',
      all: async <T>(sql: string, params?: readonly SqlValue[]) => this.allNow<T>(sql, params),
      one: async <T>(sql: string, params?: readonly SqlValue[]) => this.allNow<T>(sql, params)[0],
      run: async (sql: string, params?: readonly SqlValue[]) => this.runNow(sql, params),
      write: async (sql: string, params?: readonly SqlValue[]) => void this.runNow(sql, params),
      transaction: (work) => work(this.direct),
    };
  }

  /** Opens (creating if needed) the file in WAL mode; see docs/operating.md#durability-on-sqlite for `synchronous`. */
  static open(filename: string): SqliteDatabase {
    keepSqliteFilesPrivate(filename);
    const connection = new BetterSqlite3(filename);
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    connection.pragma('busy_timeout = 5000');
    connection.pragma('foreign_keys = ON');
    // Checkpoints run on a background thread; see sqlite-checkpointer.ts.
    connection.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    const database = new SqliteDatabase(connection);
    database.checkpointer = startCheckpointer(filename);
    return database;
  }

  async all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    if (this.isFree()) return this.allNow<T>(sql, params);
    return this.whenFree(() => this.allNow<T>(sql, params));
  }

  async one<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    if (this.isFree()) return this.runNow(sql, params);
    return this.whenFree(() => this.runNow(sql, params));
  }

  async write(sql: string, params?: readonly SqlValue[]): Promise<void> {
    await this.run(sql, params);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    await this.acquire(true);
    let batch: OpenBatch;
    let result: T;
    try {
      batch = this.joinBatch();
      this.connection.exec('SAVEPOINT unit');
      try {
        result = await work(this.direct);
        this.connection.exec('RELEASE unit');
      } catch (error) {
        this.rollBackUnit();
        throw error;
      }
    } finally {
      this.release();
    }
    await batch.committed;
    return result;
  }

  onCommit(listener: () => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.acquire(false);
    await this.checkpointer?.stop();
    this.connection.close();
  }

  private allNow<T>(sql: string, params?: readonly SqlValue[]): T[] {
    const { statement, booleans } = this.prepare(sql);
    const values = bind(params);
    if (!statement.reader) {
      statement.run(...values);
      return [];
    }
    const rows = statement.all(...values) as Array<Record<string, unknown>>;
    if (booleans.length > 0) decodeBooleans(rows, booleans);
    return rows as T[];
  }

  private runNow(sql: string, params?: readonly SqlValue[]): number {
    return this.prepare(sql).statement.run(...bind(params)).changes;
  }

  private prepare(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      const statement = this.connection.prepare(sql);
      prepared = { statement, booleans: statement.reader ? booleanColumns(statement) : [] };
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** The open batch, with one more unit; a new one (`BEGIN IMMEDIATE`) if none is open. */
  private joinBatch(): OpenBatch {
    if (this.batch && this.batch.units >= MAX_UNITS_PER_BATCH) this.commitBatch();
    if (!this.batch) {
      this.connection.exec('BEGIN IMMEDIATE');
      let settle!: (error?: unknown) => void;
      const committed = new Promise<void>((resolve, reject) => {
        settle = (error) => (error === undefined ? resolve() : reject(error));
      });
      // Its units await it; a batch whose only unit failed has no one to, and that is no crash.
      committed.catch(() => undefined);
      this.batch = { units: 0, committed, settle };
    }
    this.batch.units++;
    return this.batch;
  }

  /** Undoes a failed unit's writes; if SQLite already aborted the whole transaction, the batch fails. */
  private rollBackUnit(): void {
    if (this.connection.inTransaction) {
      this.connection.exec('ROLLBACK TO unit');
      this.connection.exec('RELEASE unit');
      return;
    }
    const batch = this.batch;
    this.batch = undefined;
    batch?.settle(new Error('The SQLite transaction was aborted by a failed statement of another request'));
  }

  private commitBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      this.connection.exec('COMMIT');
      batch.settle();
    } catch (error) {
      if (this.connection.inTransaction) this.connection.exec('ROLLBACK');
      batch.settle(error);
      return;
    }
    for (const listener of this.commitListeners) listener();
  }

  /** A statement outside a transaction may run now: nothing holds the connection, no group is open. */
  private isFree(): boolean {
    return !this.locked && !this.batch;
  }

  private async whenFree<T>(work: () => T): Promise<T> {
    await this.acquire(false);
    try {
      return work();
    } finally {
      this.release();
    }
  }

  private async acquire(joinsBatch: boolean): Promise<void> {
    if (!this.locked && (joinsBatch || !this.batch)) {
      this.locked = true;
      return;
    }
    // The releaser hands the lock straight to the next waiter, so `locked` stays true.
    await new Promise<void>((resolve) => this.waiters.push({ joinsBatch, resume: resolve }));
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) {
      // A statement must not see the open group, so it is committed first.
      if (!next.joinsBatch) this.commitBatch();
      next.resume();
      return;
    }
    this.locked = false;
    if (this.batch) this.scheduleCommit();
  }

  /** Commits the open group at the end of this turn of the event loop, unless a unit is running then. */
  private scheduleCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => {
      this.commitScheduled = false;
      if (this.locked) return; // its release schedules the commit again
      this.commitBatch();
      const next = this.waiters.shift();
      if (next) {
        this.locked = true;
        next.resume();
      }
    });
  }
}

/** The files of a SQLite database: the database itself, its write-ahead log and its shared-memory index. */
export function sqliteFiles(filename: string): string[] {
  return [filename, `${filename}-wal`, `${filename}-shm`];
}

/**
 * Makes the database file readable by its owner only (0600), creating it empty if it is missing,
 * before SQLite opens it. SQLite creates the `-wal` and `-shm` files with the database file's own
 * permissions (os_unix.c, whatever the umask), so they are 0600 too; an existing database made
 * readable by others by an earlier version is narrowed to its owner, files left beside it included.
 * Not the umask: it is the whole process's, and would change every file made meanwhile.
 */
export function keepSqliteFilesPrivate(filename: string): void {
  // `a`: created if missing (0600 before the umask, which only ever removes bits), never truncated.
  fs.closeSync(fs.openSync(filename, 'a', 0o600));
  for (const file of sqliteFiles(filename)) {
    try {
      // Only the group's and others' bits go: a file its owner made read-only stays so.
      const { mode } = fs.statSync(file);
      if ((mode & 0o077) !== 0) fs.chmodSync(file, mode & 0o700);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * The result columns declared `boolean` (Knex's `t.boolean`), as SQLite reports them for a column
 * read directly, through an alias, a subquery or `RETURNING`; an expression has no declared type.
 */
function booleanColumns(statement: Statement): string[] {
  return statement
    .columns()
    .filter((column) => column.type?.toLowerCase() === 'boolean')
    .map((column) => column.name);
}

/** Turns the 0/1 of boolean columns into `false`/`true` in place (NULL stays null). */
function decodeBooleans(rows: Array<Record<string, unknown>>, columns: readonly string[]): void {
  for (const row of rows) {
    for (const column of columns) {
      const value = row[column];
      if (value !== null && value !== undefined) row[column] = Number(value) !== 0;
    }
  }
}

/** better-sqlite3 binds numbers, strings and null, not booleans. */
function bind(params: readonly SqlValue[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}
