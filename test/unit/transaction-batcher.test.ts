import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Queryable } from '../../src/db/database.js';
import { SqliteDatabase } from '../../src/db/sqlite.js';
import { batchTransactions } from '../../src/webhooks/transaction-batcher.js';

/** Attempt outcomes recorded several to a transaction must still succeed or fail one by one. */
describe('batchTransactions', () => {
  let dir: string;
  let db: SqliteDatabase;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batcher-'));
    db = SqliteDatabase.open(path.join(dir, 'db.sqlite'));
    await db.run('CREATE TABLE outcomes (id TEXT PRIMARY KEY)');
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const names = async () => (await db.all<{ id: string }>('SELECT id FROM outcomes ORDER BY id')).map((row) => row.id);

  it('runs the units queued together in one transaction and gives each its own result', async () => {
    const batcher = batchTransactions(db);
    let transactions = 0;
    const original = db.transaction.bind(db);
    db.transaction = (work) => {
      transactions += 1;
      return original(work);
    };
    const results = await Promise.all(
      ['a', 'b', 'c'].map((id) => batcher.run(async (tx) => (await tx.run('INSERT INTO outcomes (id) VALUES (?)', [id])) && id)),
    );
    expect(results).to.deep.equal(['a', 'b', 'c']);
    expect(transactions).to.equal(1);
    expect(await names()).to.deep.equal(['a', 'b', 'c']);
  });

  it('fails only the unit at fault when one of a batch fails, and keeps the others\' writes', async () => {
    await db.run("INSERT INTO outcomes (id) VALUES ('taken')");
    const batcher = batchTransactions(db);
    const outcomes = await Promise.allSettled(
      ['x', 'taken', 'y'].map((id) => batcher.run((tx) => tx.run('INSERT INTO outcomes (id) VALUES (?)', [id]))),
    );
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(await names()).to.deep.equal(['taken', 'x', 'y']);
  });

  it('hands the rows queued for a writer to one call of it, and writes them one by one when the batch fails', async () => {
    const calls: string[][] = [];
    const writer = async (tx: Queryable, rows: readonly string[]) => {
      calls.push([...rows]);
      await tx.run(`INSERT INTO outcomes (id) VALUES ${rows.map(() => '(?)').join(', ')}`, rows);
    };
    const batcher = batchTransactions(db);
    await Promise.all(['a', 'b', 'c'].map((id) => batcher.write(writer, id)));
    expect(calls).to.deep.equal([['a', 'b', 'c']]);

    calls.length = 0;
    const outcomes = await Promise.allSettled(['d', 'a', 'e'].map((id) => batcher.write(writer, id)));
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).to.deep.equal([['d', 'a', 'e'], ['d'], ['a'], ['e']]);
    expect(await names()).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
  });
});
