import pg from 'pg';
import type { Database } from './database.js';
import { PostgresDatabase } from './postgres.js';

/**
 * Opens the pool of `DATABASE_READ_URL`, a streaming replica of the primary, and checks that it
 * answers, so that a wrong URL stops the start instead of the first list request.
 *
 * Its sessions are read-only (`default_transaction_read_only`): a hot standby refuses writes
 * anyway, and a URL that names a writable server by mistake must not take writes that the primary
 * never sees. No migrations (the replica has the primary's schema) and no LISTEN (commits are
 * heard from the primary).
 */
export async function openReadReplica(connectionString: string, max = 10): Promise<Database> {
  // Pipelining as on the primary: the same statements run on both, and none here waits on another.
  const pool = new pg.Pool({ connectionString, max, pipeline: true, options: '-c default_transaction_read_only=on' });
  // An idle client's error (the replica restarted) must not crash the process.
  pool.on('error', () => undefined);
  const replica = new PostgresDatabase(pool);
  try {
    await replica.one('SELECT 1 AS ok');
  } catch (error) {
    await replica.close();
    throw error;
  }
  return replica;
}

/** The replica for a log line: `host:port` alone, never its user, password or database. */
export function describeReadReplica(connectionString: string): string {
  if (!URL.canParse(connectionString)) return 'DATABASE_READ_URL';
  const url = new URL(connectionString);
  return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
}
