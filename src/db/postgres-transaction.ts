import type pg from 'pg';
import type { Queryable, SqlValue } from './database.js';

/**
 * One Postgres transaction on a pipelining connection (pg's `pipeline` mode): statements are
 * written to the server without waiting for the answers of those before them, so a transaction
 * costs one round trip per statement whose answer the code needs, plus its commit, rather than one
 * per statement. `BEGIN` and every `write` travel with the next statement awaited.
 *
 * A statement that fails aborts the transaction on the server, and every statement after it then
 * fails with "current transaction is aborted". The error reported is always that of the statement
 * that failed first, in the order they were sent, whichever statement the code was awaiting.
 */
export class PipelinedTransaction {
  readonly queryable: Queryable;
  /** The statements sent for their effect and not yet answered (answers arrive in order). */
  private readonly unanswered = new Set<Promise<unknown>>();
  /** The failure of the first statement that failed, if one has. */
  private firstFailure: { error: unknown } | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly statement: (sql: string, params?: readonly SqlValue[]) => pg.QueryConfig,
  ) {
    const tx: Queryable = {
      dialect: 'postgres',
      all: <T>(sql: string, params?: readonly SqlValue[]) => this.rows<T>(sql, params),
      one: async <T>(sql: string, params?: readonly SqlValue[]) => (await this.rows<T>(sql, params))[0],
      run: async (sql, params) => (await this.awaited(this.statement(sql, params))).rowCount ?? 0,
      write: async (sql, params) => this.send(this.statement(sql, params)),
      transaction: (inner) => inner(tx),
    };
    this.queryable = tx;
  }

  /** Sends `BEGIN`; it travels with the transaction's first statement. */
  begin(): void {
    this.send({ text: 'BEGIN' });
  }

  /** Sends a statement without parameters (`SAVEPOINT`) that travels with the next one awaited. */
  sendBare(text: string): void {
    this.send({ text });
  }

  /**
   * Commits, and throws the first failure if a statement failed: Postgres answers the COMMIT of an
   * aborted transaction by rolling it back, without an error of its own.
   */
  async commit(): Promise<void> {
    await this.finish('COMMIT');
  }

  /** Sends `text` (`COMMIT`, `RELEASE SAVEPOINT`), waits for it, and throws the first failure if a statement failed. */
  async finish(text: string): Promise<void> {
    await this.awaited({ text });
    this.throwFirstFailure();
  }

  /** Rolls back to a savepoint after a failure; throws only if that fails too (the transaction is lost). */
  async rollBackTo(savepoint: string): Promise<void> {
    await this.client.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
  }

  /** Rolls back; false when that failed too (the connection is broken and must not be reused). */
  async rollBack(): Promise<boolean> {
    try {
      await this.client.query('ROLLBACK');
      return true;
    } catch {
      return false;
    }
  }

  /** The error to report for `error`, thrown by the transaction's work: the first failure, if any. */
  failureOf(error: unknown): unknown {
    return this.firstFailure ? this.firstFailure.error : error;
  }

  private async rows<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return (await this.awaited(this.statement(sql, params))).rows as T[];
  }

  /** Sends a statement whose answer only matters if it is a failure. */
  private send(config: pg.QueryConfig): void {
    const answer = this.client.query(config).then(
      () => undefined,
      (error: unknown) => void (this.firstFailure ??= { error }),
    );
    this.unanswered.add(answer);
    void answer.finally(() => this.unanswered.delete(answer));
  }

  /** Sends a statement and waits for its answer; a failure is reported as the first failure. */
  private async awaited(config: pg.QueryConfig): Promise<pg.QueryResult> {
    let result: pg.QueryResult;
    try {
      result = await this.client.query(config);
    } catch (error) {
      // Answers arrive in order: every statement sent before this one has been answered.
      await Promise.all(this.unanswered);
      throw this.failureOf(error);
    }
    // A statement sent earlier may have failed without aborting this one's answer (a COMMIT).
    await Promise.all(this.unanswered);
    this.throwFirstFailure();
    return result;
  }

  private throwFirstFailure(): void {
    if (this.firstFailure) throw this.firstFailure.error;
  }
}
