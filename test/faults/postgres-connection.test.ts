/**
 * The Postgres database of one process, through a proxy that breaks its connections: what a
 * statement, a transaction and a retry see. An error event nobody handles would end this very
 * process (the test run), as it ended a worker before.
 */
import { expect } from 'chai';
import pg from 'pg';
import { PostgresDatabase } from '../../src/db/postgres.js';
import { DatabaseUnavailableError } from '../../src/domain/errors.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

forEachDatabase('a Postgres connection that breaks', (engine) => {
  // SQLite, a file, has no connection to break.
  if (engine === 'sqlite') return;
  let database: TestDatabase;
  let proxy: TcpFaultProxy;
  let db: PostgresDatabase;
  let admin: pg.Client;
  let databaseName: string;

  beforeEach(async () => {
    database = await createDatabase('postgres');
    const url = new URL((database.target as { url: string }).url);
    databaseName = url.pathname.slice(1);
    admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    proxy = await startTcpFaultProxy(Number(url.port || 5432), url.hostname);
    url.port = String(proxy.port);
    db = PostgresDatabase.open(url.toString(), 2);
  });

  afterEach(async () => {
    await db?.close();
    await proxy?.close();
    await admin?.end();
    await database?.drop();
  });

  it('fails a transaction cut in the middle with a DatabaseUnavailableError (a 503), and the next one runs', async () => {
    const error = await rejectionOf(
      db.transaction(async (tx) => {
        await tx.one('SELECT 1 AS ok');
        proxy.cutAll();
        await tx.write('SELECT 1');
        return tx.one('SELECT pg_sleep(0.05)');
      }),
    );
    expect(error).to.be.instanceOf(DatabaseUnavailableError);
    expect((error as DatabaseUnavailableError).status).to.equal(503);
    expect((error as DatabaseUnavailableError).details.headers).to.deep.equal({ 'Retry-After': '1' });
    expect(await db.transaction((tx) => tx.one<{ ok: number }>('SELECT 1 AS ok'))).to.deep.equal({ ok: 1 });
  });

  it('fails a statement whose session is terminated (pg_terminate_backend) with a DatabaseUnavailableError', async () => {
    const running = db.one('SELECT pg_sleep(5)');
    await eventually(async () => {
      const ended = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'payments-api' AND query LIKE '%pg_sleep%'",
        [databaseName],
      );
      expect(ended.rowCount).to.equal(1);
    });
    expect(await rejectionOf(running)).to.be.instanceOf(DatabaseUnavailableError);
    expect(await db.one('SELECT 2 AS ok')).to.deep.equal({ ok: 2 });
  });

  it('tries once more a statement whose connection could not be made, and answers 503 when that fails too', async () => {
    proxy.refuse(1);
    expect(await db.one('SELECT 3 AS ok')).to.deep.equal({ ok: 3 });
    await db.close();
    db = PostgresDatabase.open(`postgresql://postgres@127.0.0.1:${proxy.port}/${databaseName}`, 2);
    proxy.refuse(2);
    expect(await rejectionOf(db.one('SELECT 4 AS ok'))).to.be.instanceOf(DatabaseUnavailableError);
    expect(await db.one('SELECT 5 AS ok')).to.deep.equal({ ok: 5 });
  });

  it('leaves a statement the server refused as it is: not a connection fault', async () => {
    const error = await rejectionOf(db.one('SELECT no_such_column FROM (SELECT 1) AS t'));
    expect(error).not.to.be.instanceOf(DatabaseUnavailableError);
    expect((error as { code?: string }).code).to.equal('42703');
  });
});
