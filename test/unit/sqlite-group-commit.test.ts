import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { SqliteDatabase } from '../../src/db/sqlite.js';

/**
 * Concurrent transactions on SQLite commit together, yet each is acknowledged only once it is
 * committed, and each fails alone.
 */
describe('SQLite group commit', () => {
  let dir: string;
  let filename: string;
  let db: SqliteDatabase;
  /** Another connection to the same file: it sees only what is committed. */
  let observer: BetterSqlite3.Database;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
    filename = path.join(dir, 'db.sqlite');
    // Without the background checkpointer, so that the write-ahead log shows every commit's pages.
    const connection = new BetterSqlite3(filename);
    connection.pragma('journal_mode = WAL');
    connection.pragma('wal_autocheckpoint = 0');
    db = new SqliteDatabase(connection);
    await db.run('CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    await db.run('CREATE INDEX items_n ON items (n)');
    observer = new BetterSqlite3(filename);
  });
  afterEach(async () => {
    observer.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const committedIds = () => (observer.prepare('SELECT id FROM items ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
  const insert = (id: string, n: number) =>
    db.transaction(async (tx) => {
      await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', [id, n]);
      return id;
    });
  /** Frames in the write-ahead log: two writes per page per commit, so fewer commits, fewer frames. */
  const walFrames = () => (observer.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0].log;

  it('acknowledges each transaction only once another connection can read its writes', async () => {
    const seenAtAcknowledgement = await Promise.all(
      Array.from({ length: 10 }, (_, i) => insert(`k${i}`, i).then((id) => committedIds().includes(id))),
    );
    expect(seenAtAcknowledgement).to.deep.equal(Array(10).fill(true));
  });

  it('writes concurrent transactions in far fewer log frames than the same ones one after the other', async () => {
    for (let i = 0; i < 20; i++) await insert(`seq${String(i).padStart(2, '0')}`, i);
    const sequentialFrames = walFrames();
    observer.pragma('wal_checkpoint(TRUNCATE)');
    await Promise.all(Array.from({ length: 20 }, (_, i) => insert(`con${String(i).padStart(2, '0')}`, i)));
    const concurrentFrames = walFrames();
    expect(committedIds()).to.have.length(40);
    expect(concurrentFrames).to.be.greaterThan(0);
    expect(concurrentFrames * 5).to.be.at.most(sequentialFrames);
  });

  it('rolls a failed transaction back alone: the others of its group commit', async () => {
    const outcomes = await Promise.allSettled([
      insert('a', 1),
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['doomed', 2]);
        throw new Error('refused');
      }),
      // A constraint violation fails its own statement only.
      insert('a', 3),
      insert('c', 4),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(committedIds()).to.deep.equal(['a', 'c']);
    expect((observer.prepare("SELECT n FROM items WHERE id = 'a'").get() as { n: number }).n).to.equal(1);
  });

  it('makes a statement outside transactions wait for the open group, so it reads only committed rows', async () => {
    const written = insert('x', 1);
    // Issued while the group is still open: it must come after the commit, not inside the group.
    const counted = db
      .one<{ n: number }>('SELECT COUNT(*) AS n FROM items')
      .then((row) => ({ n: row!.n, committedThen: committedIds() }));
    const [, count] = await Promise.all([written, counted]);
    expect(count).to.deep.equal({ n: 1, committedThen: ['x'] });
  });
});
