/**
 * The values a query parameter may take. Booleans are stored as 0/1 on SQLite; columns declared
 * `boolean` are read back as `true`/`false` on both engines.
 */
export type SqlValue = string | number | boolean | null;

export type Dialect = 'sqlite' | 'postgres';

/** How a transaction runs. */
export interface TransactionOptions {
  /**
   * A request's transaction, which may share its commit with other requests' transactions of this
   * process (group commit): it runs in a savepoint of their transaction, and settles once that has
   * committed. SQLite groups every transaction of its one connection; Postgres groups these only
   * (postgres-group-commit.ts). What it locks is held until the group commits.
   */
  grouped?: boolean;
}

/**
 * Something queries run on: the database itself, or one open transaction.
 *
 * SQL is written once with `?` placeholders in the subset both engines accept; statements are
 * prepared once and reused. `transaction` on a transaction runs the function inside it.
 */
export interface Queryable {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  one<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Runs a statement and returns how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * Runs a statement for its effect alone (an INSERT whose row the caller already has, a lock):
   * its answer is never needed, only that it succeeded. In a Postgres transaction it is sent
   * without waiting for the server (pipelined with the statements after it), and a failure fails
   * the transaction: at the next statement awaited in it, or at its commit, as the error of the
   * statement that failed first. Elsewhere it runs like `run`.
   */
  write(sql: string, params?: readonly SqlValue[]): Promise<void>;
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** The process's database: queries, transactions, and shutdown. */
export interface Database extends Queryable {
  close(): Promise<void>;
  /**
   * Calls `listener` after each commit of this process's write transactions; returns the function
   * that stops it. Only an engine whose other processes cannot announce their commits has it
   * (SQLite); Postgres processes hear every process's commits through LISTEN instead.
   */
  onCommit?(listener: () => void): () => void;
}
