import pg from 'pg';
import type { Database, Queryable, SqlValue } from './database.js';
import { PipelinedTransaction } from './postgres-transaction.js';

// int8 (bigint, count(*)) comes back as text by default; our integers stay below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

interface Prepared {
  name: string;
  text: string;
}

/**
 * Postgres through a pg pool. Queries are written with `?` and rewritten to `$n` once; each
 * distinct statement gets a name, so every pooled connection prepares it only once. Transactions
 * pipeline their statements (postgres-transaction.ts).
 */
/**
 * Settings of every session the service opens. No JIT compilation: it pays off for long analytic
 * queries, and here costs an OLTP statement whose estimate crosses `jit_above_cost` (a plan made
 * once for every execution of a list over 10,000,000 events) over a second each time it runs.
 */
export const SESSION_OPTIONS = '-c jit=off';

export class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  private readonly prepared = new Map<string, Prepared>();

  constructor(private readonly pool: pg.Pool) {}

  static open(connectionString: string, max = 10): PostgresDatabase {
    // Pipelining: a transaction's statements go out without waiting for each other's answers.
    const pool = new pg.Pool({ connectionString, max, pipeline: true, options: SESSION_OPTIONS });
    // An idle client's error (the server restarted) must not crash the process.
    pool.on('error', () => undefined);
    return new PostgresDatabase(pool);
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.queryOn(this.pool, sql, params);
  }

  async one<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.queryOn<T>(this.pool, sql, params))[0];
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    const result = await this.pool.query(this.statement(sql, params));
    return result.rowCount ?? 0;
  }

  async write(sql: string, params?: readonly SqlValue[]): Promise<void> {
    await this.pool.query(this.statement(sql, params));
  }

  /** Runs `work` in a transaction whose statements are pipelined (see `PipelinedTransaction`). */
  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx = new PipelinedTransaction(client, (sql, params) => this.statement(sql, params));
    let broken = false;
    try {
      tx.begin();
      const result = await work(tx.queryable);
      await tx.commit();
      return result;
    } catch (error) {
      broken = !(await tx.rollBack());
      throw tx.failureOf(error);
    } finally {
      // A connection that could not even roll back is closed rather than handed to the next request.
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async queryOn<T>(
    on: pg.Pool | pg.PoolClient,
    sql: string,
    params?: readonly SqlValue[],
  ): Promise<T[]> {
    const result = await on.query(this.statement(sql, params));
    return result.rows as T[];
  }

  private statement(sql: string, params?: readonly SqlValue[]): pg.QueryConfig {
    let prepared = this.prepared.get(sql);
    if (!prepared) {
      let n = 0;
      prepared = { name: `s${this.prepared.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
      this.prepared.set(sql, prepared);
    }
    return { name: prepared.name, text: prepared.text, values: params ? [...params] : [] };
  }
}
