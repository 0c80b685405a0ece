import pg from 'pg';
import type { Database } from './database.js';
import { APPLICATION_NAME, PostgresDatabase, SESSION_OPTIONS } from './postgres.js';

/**
 * Opens the pool of `DATABASE_READ_URL`, a streaming replica of the primary, and checks that it
 * answers, so that a wrong URL stops the start instead of the first list request.
 *
 * Its sessions are read-only (`default_transaction_read_only`): a hot standby refuses writes
 * anyway, and a URL that names a writable server by mistake must not take writes that the primary
 * never sees. No migrations (the replica has the primary's schema) and no LISTEN (commits are
 * heard from the primary).
 */
export async function openReadReplica(
  connectionString: string,
  options: { max?: number; onFailure?: (error: unknown) => void } = {},
): Promise<Database> {
  const { max = 10, onFailure = () => undefined } = options;
  // Pipelining as on the primary: the same statements run on both, and none here waits on another.
  const pool = new pg.Pool({
    connectionString,
    max,
    pipeline: true,
    options: `${SESSION_OPTIONS} -c default_transaction_read_only=on`,
    application_name: `${APPLICATION_NAME}-replica`,
  });
  // An idle client's error (the replica restarted) must not crash the process.
  pool.on('error', () => undefined);
  const replica = new PostgresDatabase(pool);
  try {
    await replica.one('SELECT 1 AS ok');
  } catch (error) {
    await replica.close();
    throw error;
  }
  return reportingFailures(replica, onFailure);
}

/**
 * The replica, telling `report` of every statement that failed on it: the caller reads again on the
 * primary (resources/shared/replica-reads.ts), so without this a replica that is down, restarting,
 * or cancelling queries that conflict with the WAL it replays would go unseen.
 */
function reportingFailures(replica: Database, report: (error: unknown) => void): Database {
  const reported =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await run(...args);
      } catch (error) {
        report(error);
        throw error;
      }
    };
  return {
    dialect: replica.dialect,
    all: reported(replica.all.bind(replica)) as Database['all'],
    one: reported(replica.one.bind(replica)) as Database['one'],
    run: reported(replica.run.bind(replica)),
    write: reported(replica.write.bind(replica)),
    transaction: reported(replica.transaction.bind(replica)) as Database['transaction'],
    close: () => replica.close(),
  };
}

/** The replica for a log line: `host:port` alone, never its user, password or database. */
export function describeReadReplica(connectionString: string): string {
  if (!URL.canParse(connectionString)) return 'DATABASE_READ_URL';
  const url = new URL(connectionString);
  return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
}
