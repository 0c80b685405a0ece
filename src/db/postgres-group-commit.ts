import type pg from 'pg';
import type { Queryable, SqlValue } from './database.js';
import { DatabaseUnavailableError } from '../domain/errors.js';
import { asUnavailable, isConnectionFault } from './connection-faults.js';
import { PipelinedTransaction } from './postgres-transaction.js';

/** Units per group at most, so that a steady stream of requests still sees its commits promptly. */
const MAX_UNITS_PER_GROUP = 16;

/** Postgres's `deadlock_detected`. */
const DEADLOCK = '40P01';

type Statement = (sql: string, params?: readonly SqlValue[]) => pg.QueryConfig;

/** One connection's open transaction, shared by the units that joined it. */
interface Group {
  client: pg.PoolClient;
  units: number;
  /** Settled by the group's COMMIT (or its failure); every unit of the group answers after it. */
  committed: Promise<void>;
  settle(error?: unknown): void;
}

/** Where a lane takes its connection from, and gives it back (closed if `broken`). */
export interface LaneConnections {
  connect(): Promise<pg.PoolClient>;
  release(client: pg.PoolClient, broken: boolean): void;
}

type Outcome<T> = { result: T } | { failure: unknown };

/**
 * Group commit on Postgres. A request's transaction (`transaction(work, { grouped: true })`)
 * joins the open transaction of a lane, in a savepoint of its own, and the lane commits once for
 * all that joined: when no further unit waits for it, at the end of the event loop's turn, or
 * after {@link MAX_UNITS_PER_GROUP}. A lane runs its units one at a time on its connection (the
 * statements of two savepoints cannot interleave), so there are a few lanes, each its own group.
 *
 * What holds, for each unit:
 * - it settles only after its group's COMMIT, whether it succeeded or failed (a refusal may rest
 *   on what an earlier unit of the group wrote), so nothing is answered before it is committed;
 * - a failure rolls back its own savepoint only: its writes, its row locks and its advisory locks
 *   (a key's claim) go, the group's other units are untouched;
 * - what it keeps (row locks, a key's claim) is held until the group commits, so other
 *   processes still find a key claimed, or its row stored, never both free and executed;
 * - a COMMIT that fails (or a connection that breaks) fails every unit of the group with a
 *   `DatabaseUnavailableError`, a 503 to retry: nothing of the group was written, its keys are
 *   free;
 * - a unit chosen as a deadlock's victim (waiting on a lock that another group holds, whose own
 *   unit waits on one that this group holds) is rolled back to its savepoint and run again in a
 *   transaction of its own, once its group has committed and so released what it held.
 * Notifications (`pg_notify`) of a unit are sent at its group's commit, and dropped with a
 * savepoint that is rolled back.
 */
export class GroupCommitLane {
  private locked = false;
  private readonly waiters: Array<() => void> = [];
  private group: Group | undefined;
  private commitScheduled = false;

  constructor(
    private readonly connections: LaneConnections,
    private readonly statement: Statement,
  ) {}

  /** How many units run or wait here (the unit running counts one). */
  get load(): number {
    return (this.locked ? 1 : 0) + this.waiters.length;
  }

  /** Runs `work` as a unit of this lane's group; `alone` runs it in a transaction of its own. */
  async run<T>(
    work: (tx: Queryable) => Promise<T>,
    alone: (work: (tx: Queryable) => Promise<T>) => Promise<T>,
  ): Promise<T> {
    await this.acquire();
    let group: Group;
    let outcome: Outcome<T>;
    try {
      const joined = await this.join();
      group = joined.group;
      outcome = await this.runUnit(joined, work);
    } finally {
      this.release();
    }
    await group.committed;
    if ('result' in outcome) return outcome.result;
    if ((outcome.failure as { code?: unknown } | null)?.code === DEADLOCK) return alone(work);
    throw outcome.failure;
  }

  private async runUnit<T>(
    { group, opened }: { group: Group; opened: boolean },
    work: (tx: Queryable) => Promise<T>,
  ): Promise<Outcome<T>> {
    const tx = new PipelinedTransaction(group.client, this.statement);
    if (opened) tx.begin();
    tx.sendBare('SAVEPOINT unit');
    let result: T;
    try {
      result = await work(tx.queryable);
      // Alone in its group, with no one waiting to join: it commits in the round trip that would
      // have released its savepoint, as a transaction of its own would.
      if (group.units === 1 && this.waiters.length === 0)
        return await this.commitAlone(group, tx, result);
      await tx.finish('RELEASE SAVEPOINT unit');
      return { result };
    } catch (error) {
      try {
        await tx.rollBackTo('unit');
      } catch (rollbackError) {
        // The group's transaction is lost (a broken connection, or a failure outside any unit).
        this.fail(group, rollbackError);
      }
      // After the rollback: the statements sent before it have all been answered by then.
      return { failure: asUnavailable(tx.failureOf(error)) };
    }
  }

  /** Commits a group of one unit: its failure (a statement's or the commit's) is the unit's alone. */
  private async commitAlone<T>(
    group: Group,
    tx: PipelinedTransaction,
    result: T,
  ): Promise<Outcome<T>> {
    this.group = undefined;
    let outcome: Outcome<T> = { result };
    let broken = false;
    try {
      await tx.commit();
    } catch (error) {
      const failure = tx.failureOf(error);
      broken = isConnectionFault(failure);
      outcome = { failure: asUnavailable(failure) };
    }
    this.connections.release(group.client, broken);
    group.settle();
    return outcome;
  }

  /**
   * The open group, with one more unit; a new one if none is open (its `BEGIN` goes with the
   * unit's first statement).
   */
  private async join(): Promise<{ group: Group; opened: boolean }> {
    if (this.group && this.group.units >= MAX_UNITS_PER_GROUP) await this.commit();
    let opened = false;
    if (!this.group) {
      const client = await this.connections.connect();
      let settle!: (error?: unknown) => void;
      const committed = new Promise<void>((resolve, reject) => {
        settle = (error) => (error === undefined ? resolve() : reject(error));
      });
      // Its units await it; a group whose units all failed may have no one to: no crash.
      committed.catch(() => undefined);
      this.group = { client, units: 0, committed, settle };
      opened = true;
    }
    this.group.units++;
    return { group: this.group, opened };
  }

  /** Ends the group: its transaction is rolled back (its connection closed), its units fail. */
  private fail(group: Group, error: unknown): void {
    if (this.group === group) this.group = undefined;
    this.connections.release(group.client, true);
    group.settle(new DatabaseUnavailableError(error));
  }

  private async commit(): Promise<void> {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    let result: pg.QueryResult;
    try {
      result = await group.client.query('COMMIT');
    } catch (error) {
      this.connections.release(group.client, isConnectionFault(error));
      group.settle(new DatabaseUnavailableError(error));
      return;
    }
    this.connections.release(group.client, false);
    // Postgres answers the COMMIT of an aborted transaction with a rollback, not an error.
    if (result.command !== 'COMMIT')
      group.settle(new DatabaseUnavailableError(new Error(`COMMIT answered ${result.command}`)));
    else group.settle();
  }

  private async acquire(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return;
    }
    // The releaser hands the lane straight to the next waiter, so `locked` stays true.
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) {
      next();
      return;
    }
    this.locked = false;
    if (this.group) this.scheduleCommit();
  }

  /** Commits the open group at the end of this turn of the event loop, unless a unit runs then. */
  private scheduleCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => {
      this.commitScheduled = false;
      if (this.locked || !this.group) return; // a unit runs: its release schedules the commit again
      this.locked = true;
      void this.commit().finally(() => this.release());
    });
  }
}
