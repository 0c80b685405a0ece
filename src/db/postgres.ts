import pg from 'pg';
import type { Database, Queryable, SqlValue, TransactionOptions } from './database.js';
import { asUnavailable, isConnectionFault, wasNotSent } from './connection-faults.js';
import { GroupCommitLane } from './postgres-group-commit.js';
import { PipelinedTransaction } from './postgres-transaction.js';

// int8 (bigint, count(*)) comes back as text by default; our integers stay below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

interface Prepared {
  name: string;
  text: string;
}

/**
 * Settings of every session the service opens. No JIT compilation: it pays off for long analytic
 * queries, and here costs an OLTP statement whose estimate crosses `jit_above_cost` (a plan made
 * once for every execution of a list over 10,000,000 events) over a second each time it runs.
 */
export const SESSION_OPTIONS = '-c jit=off';

/** How the service's sessions are named in `pg_stat_activity` (the LISTEN connection adds `-listen`). */
export const APPLICATION_NAME = 'payments-api';

/**
 * Lanes of group commit (postgres-group-commit.ts) of a process's primary: each runs its units one
 * at a time on one connection, so more than one keeps the requests of a busy process from queueing
 * behind one another's round trips.
 */
export const GROUP_COMMIT_LANES = 2;

function ignoreError(): void {}

/**
 * Postgres through a pg pool. Queries are written with `?` and rewritten to `$n` once; each
 * distinct statement gets a name, so every pooled connection prepares it only once. Transactions
 * pipeline their statements (postgres-transaction.ts); requests' transactions (`grouped`) share
 * commits (postgres-group-commit.ts). A connection that breaks never ends the
 * process: its statements fail with a `DatabaseUnavailableError`, and the pool opens new ones.
 */
export class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  private readonly prepared = new Map<string, Prepared>();
  private readonly lanes: GroupCommitLane[];

  /** `groupLanes`: 0 runs every transaction alone (a read replica's pool). */
  constructor(
    private readonly pool: pg.Pool,
    groupLanes = 0,
  ) {
    const statement = (sql: string, params?: readonly SqlValue[]) => this.statement(sql, params);
    const connections = {
      connect: () => this.connect(),
      release: (client: pg.PoolClient, broken: boolean) => {
        client.off('error', ignoreError);
        client.release(broken);
      },
    };
    this.lanes = Array.from({ length: groupLanes }, () => new GroupCommitLane(connections, statement));
  }

  static open(connectionString: string, max = 10, groupLanes = GROUP_COMMIT_LANES): PostgresDatabase {
    // Pipelining: a transaction's statements go out without waiting for each other's answers.
    const pool = new pg.Pool({ connectionString, max, pipeline: true, options: SESSION_OPTIONS, application_name: APPLICATION_NAME });
    // An idle client's error (the server restarted) must not crash the process.
    pool.on('error', () => undefined);
    return new PostgresDatabase(pool, groupLanes);
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.onConnection(async (client) => (await client.query(this.statement(sql, params))).rows as T[]);
  }

  async one<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.onConnection(async (client) => (await client.query(this.statement(sql, params))).rowCount ?? 0);
  }

  async write(sql: string, params?: readonly SqlValue[]): Promise<void> {
    await this.run(sql, params);
  }

  /**
   * Runs `work` in a transaction whose statements are pipelined (see `PipelinedTransaction`); a
   * `grouped` one as a savepoint of a group's transaction, on the least busy lane.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
    if (options?.grouped && this.lanes.length > 0) {
      let lane = this.lanes[0];
      for (const candidate of this.lanes) if (candidate.load < lane.load) lane = candidate;
      return lane.run(work, (alone) => this.transaction(alone));
    }
    return this.onConnection(async (client, connection) => {
      const tx = new PipelinedTransaction(client, (sql, params) => this.statement(sql, params));
      try {
        tx.begin();
        const result = await work(tx.queryable);
        await tx.commit();
        return result;
      } catch (error) {
        // A connection that could not even roll back is closed rather than handed to the next request.
        if (!(await tx.rollBack())) connection.broken = true;
        throw tx.failureOf(error);
      }
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /** A pooled connection for a lane of group commit, made once more if the first attempt failed to connect. */
  private async connect(): Promise<pg.PoolClient> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const client = await this.pool.connect();
        // As in `onConnection`: a checked-out connection's socket failure must not end the process.
        client.on('error', ignoreError);
        return client;
      } catch (error) {
        if (attempt === 1 && isConnectionFault(error)) continue;
        throw asUnavailable(error);
      }
    }
  }

  /**
   * Runs `use` on a pooled connection. A broken connection is closed, not pooled again, and its
   * failure is a `DatabaseUnavailableError` (a 503); `use` runs once more on a fresh connection when
   * nothing had been sent (the connection could not be made, or pg knew it broken), since then the
   * server cannot have carried out any of it.
   */
  private async onConnection<T>(use: (client: pg.PoolClient, connection: { broken: boolean }) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        if (attempt === 1 && isConnectionFault(error)) continue;
        throw asUnavailable(error);
      }
      // A checked-out connection reports its socket's failure on itself alone; unheard, that error
      // would end the process. Its queries fail with it anyway.
      client.on('error', ignoreError);
      const connection = { broken: false };
      try {
        return await use(client, connection);
      } catch (error) {
        if (isConnectionFault(error)) connection.broken = true;
        if (attempt === 1 && wasNotSent(error)) continue;
        throw asUnavailable(error);
      } finally {
        client.release(connection.broken);
        client.off('error', ignoreError);
      }
    }
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
