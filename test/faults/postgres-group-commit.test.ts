/**
 * Group commit on Postgres (src/db/postgres-group-commit.ts): requests' transactions that run at
 * once share one Postgres transaction, each in a savepoint, committed once. What a unit's failure,
 * a group's failed commit and a deadlock between two groups do to the others, on a real server.
 */
import { expect } from 'chai';
import pg from 'pg';
import type { Queryable } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { DatabaseUnavailableError } from '../../src/domain/errors.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';

const GROUPED = { grouped: true } as const;

/** The settled outcomes of `promises`, in order. */
function settled(promises: Array<Promise<unknown>>): Promise<Array<PromiseSettledResult<unknown>>> {
  return Promise.allSettled(promises);
}

/** A promise and its resolver, to hold a transaction at a point until the test lets it go. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

forEachDatabase('group commit of requests’ transactions', (engine) => {
  // SQLite's group commit is its one connection's (test/api covers it); this is Postgres's.
  if (engine === 'sqlite') return;
  let database: TestDatabase;
  /** A pool: the test reads through it while the transactions under test answer. */
  let admin: pg.Pool;
  let url: string;
  const opened: PostgresDatabase[] = [];

  /** The database through `lanes` lanes of group commit. */
  function open(lanes: number): PostgresDatabase {
    const db = PostgresDatabase.open(url, 6, lanes);
    opened.push(db);
    return db;
  }

  async function ids(table: string): Promise<number[]> {
    const { rows } = await admin.query<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`);
    return rows.map((row) => row.id);
  }

  beforeEach(async () => {
    database = await createDatabase('postgres');
    url = (database.target as { url: string }).url;
    admin = new pg.Pool({ connectionString: url, max: 4 });
    await admin.query('CREATE TABLE grouped_rows (id integer PRIMARY KEY)');
  });

  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    await admin?.end();
    await database?.drop();
  });

  it('commits concurrent transactions once, together, and a failing one leaves the others committed', async () => {
    const db = open(1);
    const seenAtAnswer: number[][] = [];
    /** Inserts `id` and answers its transaction id (a savepoint reports its group's). */
    const unit = (id: number, fail?: 'throws' | 'statement') => async (tx: Queryable) => {
      const row = await tx.one<{ xid: string }>('SELECT txid_current()::text AS xid');
      await tx.write('INSERT INTO grouped_rows (id) VALUES (?)', [id]);
      if (fail === 'statement') await tx.write('INSERT INTO grouped_rows (id) VALUES (?)', [id]);
      if (fail === 'throws') throw new Error(`unit ${id} refused`);
      return row!.xid;
    };
    const record = <T>(promise: Promise<T>) =>
      promise.finally(async () => {
        seenAtAnswer.push(await ids('grouped_rows'));
      });
    const outcomes = await settled([
      record(db.transaction(unit(1), GROUPED)),
      record(db.transaction(unit(2, 'throws'), GROUPED)),
      record(db.transaction(unit(3, 'statement'), GROUPED)),
      record(db.transaction(unit(4), GROUPED)),
    ]);

    expect(outcomes.map((o) => o.status)).to.deep.equal([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    const [first, , , last] = outcomes as Array<PromiseFulfilledResult<string>>;
    expect(first.value, 'one transaction for the group').to.equal(last.value);
    expect(((outcomes[1] as PromiseRejectedResult).reason as Error).message).to.equal(
      'unit 2 refused',
    );
    expect((outcomes[2] as PromiseRejectedResult).reason).to.include({ code: '23505' });
    expect(await ids('grouped_rows')).to.deep.equal([1, 4]);
    // No unit answered before the group committed, the failed ones included.
    for (const seen of seenAtAnswer) expect(seen).to.deep.equal([1, 4]);
  });

  it('answers every transaction of a group whose COMMIT fails with a retryable 503, and writes none of them', async () => {
    const db = open(1);
    // Checked at COMMIT only: two units inserting the same id succeed, and the group's COMMIT fails.
    await admin.query(
      'CREATE TABLE deferred_rows (id integer, CONSTRAINT one_each UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)',
    );
    const outcomes = await settled([
      db.transaction((tx) => tx.write('INSERT INTO deferred_rows (id) VALUES (1)'), GROUPED),
      db.transaction((tx) => tx.write('INSERT INTO grouped_rows (id) VALUES (7)'), GROUPED),
      db.transaction((tx) => tx.write('INSERT INTO deferred_rows (id) VALUES (1)'), GROUPED),
    ]);

    for (const outcome of outcomes) {
      expect(outcome.status).to.equal('rejected');
      const error = (outcome as PromiseRejectedResult).reason as DatabaseUnavailableError;
      expect(error).to.be.instanceOf(DatabaseUnavailableError);
      expect(error.status).to.equal(503);
      expect(error.details.headers).to.deep.equal({ 'Retry-After': '1' });
    }
    expect(await ids('grouped_rows')).to.deep.equal([]);
    expect(await ids('deferred_rows')).to.deep.equal([]);
    // The lane goes on with a new group.
    await db.transaction((tx) => tx.write('INSERT INTO grouped_rows (id) VALUES (8)'), GROUPED);
    expect(await ids('grouped_rows')).to.deep.equal([8]);
  });

  it('runs again alone a transaction chosen as the victim of a deadlock between two groups, and commits all', async () => {
    const name = new URL(url).pathname.slice(1);
    await admin.query(`ALTER DATABASE ${name} SET deadlock_timeout = '50ms'`);
    await admin.query('CREATE TABLE counters (id integer PRIMARY KEY, hits integer NOT NULL)');
    await admin.query('INSERT INTO counters VALUES (1, 0), (2, 0)');
    const db = open(2);
    const bothLocked = gate();
    let locked = 0;
    const hit = (id: number) => (tx: Queryable) =>
      tx.run('UPDATE counters SET hits = hits + 1 WHERE id = ?', [id]);
    /** Locks a row, then waits until the other group has locked its own. */
    const lockThenWait = (id: number) => async (tx: Queryable) => {
      await hit(id)(tx);
      if (++locked === 2) bothLocked.open();
      await bothLocked.opened;
    };
    // The least busy lane is taken: 1 then 2 in the first lane, 2 then 1 in the second.
    const firsts = [
      db.transaction(lockThenWait(1), GROUPED),
      db.transaction(lockThenWait(2), GROUPED),
    ];
    const seconds = [db.transaction(hit(2), GROUPED), db.transaction(hit(1), GROUPED)];
    const outcomes = await settled([...firsts, ...seconds]);

    expect(outcomes.map((o) => o.status)).to.deep.equal([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const { rows } = await admin.query<{ id: number; hits: number }>(
      'SELECT id, hits FROM counters ORDER BY id',
    );
    expect(rows).to.deep.equal([
      { id: 1, hits: 2 },
      { id: 2, hits: 2 },
    ]);
  });
});
