import BetterSqlite3 from 'better-sqlite3';
import type { Database, Queryable, SqlValue } from './database.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.js';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/**
 * SQLite through one better-sqlite3 connection.
 *
 * better-sqlite3 is synchronous, so a query outside a transaction runs at once. A transaction
 * spans awaits, though, so it takes an in-process lock: while it is open, other queries wait for
 * it rather than slip into it. Writers take the database lock up front (`BEGIN IMMEDIATE`) so two
 * processes never deadlock on a read-to-write upgrade; `busy_timeout` makes the second one wait.
 */
export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  private locked = false;
  private readonly waiters: Array<() => void> = [];
  private readonly direct: Queryable;

  private checkpointer: { stop(): Promise<void> } | undefined;

  constructor(private readonly connection: BetterSqlite3.Database) {
    // Inside a transaction the lock is already held: statements run directly.
    this.direct = {
      dialect: 'sqlite',
      all: async <T>(sql: string, params?: readonly SqlValue[]) => this.allNow<T>(sql, params),
      one: async <T>(sql: string, params?: readonly SqlValue[]) => this.allNow<T>(sql, params)[0],
      run: async (sql: string, params?: readonly SqlValue[]) => this.runNow(sql, params),
      transaction: (work) => work(this.direct),
    };
  }

  /** Opens (creating if needed) the file in WAL mode; see README "Durability on SQLite" for `synchronous`. */
  static open(filename: string): SqliteDatabase {
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
    if (!this.locked) return this.allNow<T>(sql, params);
    return this.whenUnlocked(() => this.allNow<T>(sql, params));
  }

  async one<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    if (!this.locked) return this.runNow(sql, params);
    return this.whenUnlocked(() => this.runNow(sql, params));
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      this.connection.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.direct);
        this.connection.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.connection.inTransaction) this.connection.exec('ROLLBACK');
        throw error;
      }
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    await this.acquire();
    await this.checkpointer?.stop();
    this.connection.close();
  }

  private allNow<T>(sql: string, params?: readonly SqlValue[]): T[] {
    const statement = this.prepare(sql);
    const values = bind(params);
    if (statement.reader) { const t = process.hrtime.bigint(); const r = statement.all(...values) as T[]; (globalThis as any).__t = ((globalThis as any).__t ?? 0n) + process.hrtime.bigint() - t; const n = (globalThis as any).__n = ((globalThis as any).__n ?? 0) + 1; if (n % 20000 === 0) { console.error('allNow avg us', Number((globalThis as any).__t) / 1e3 / 20000, sql.slice(0, 60)); (globalThis as any).__t = 0n; } return r; }
    statement.run(...values);
    return [];
  }

  private runNow(sql: string, params?: readonly SqlValue[]): number {
    return this.prepare(sql).run(...bind(params)).changes;
  }

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private async whenUnlocked<T>(work: () => T): Promise<T> {
    await this.acquire();
    try {
      return work();
    } finally {
      this.release();
    }
  }

  private async acquire(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return;
    }
    // The releaser hands the lock straight to the next waiter, so `locked` stays true.
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }
}

/** better-sqlite3 binds numbers, strings and null, not booleans. */
function bind(params: readonly SqlValue[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}
