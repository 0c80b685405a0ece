import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { randomBase62 } from '../../src/domain/ids.js';
import type { DatabaseTarget } from '../../src/db/knex.js';

/** The server that Postgres test databases are created on (the machine's, by default). */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** CI sets this: a test run that cannot reach Postgres then fails instead of skipping it. */
const POSTGRES_REQUIRED = process.env.REQUIRE_POSTGRES === 'true';

export interface TestDatabase {
  target: DatabaseTarget;
  /** Removes the database (file or Postgres database). */
  drop(): Promise<void>;
}

let postgresReachable: Promise<boolean> | undefined;

async function canReachPostgres(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if (POSTGRES_REQUIRED) throw new Error(`REQUIRE_POSTGRES is set but Postgres is unreachable: ${String(error)}`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A new, empty SQLite file in a temporary directory. */
export function createSqliteDatabase(): TestDatabase {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-test-'));
  return {
    target: { kind: 'sqlite', filename: path.join(dir, 'payments.sqlite') },
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A new, empty Postgres database on the test server, dropped afterwards. */
export async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `payments_test_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export type Engine = 'sqlite' | 'postgres';

/**
 * Runs a suite once per engine: SQLite always, Postgres when reachable (required in CI).
 * The suite receives the engine name; each suite creates its own databases with `createDatabase`.
 */
export function forEachDatabase(title: string, suite: (engine: Engine) => void): void {
  for (const engine of ['sqlite', 'postgres'] as const) {
    describe(`${title} [${engine}]`, function () {
      if (engine === 'postgres') {
        before(async function () {
          postgresReachable ??= canReachPostgres();
          if (!(await postgresReachable)) this.skip();
        });
      }
      suite(engine);
    });
  }
}

/** A fresh database of the given engine. */
export function createDatabase(engine: Engine): Promise<TestDatabase> {
  return engine === 'sqlite' ? Promise.resolve(createSqliteDatabase()) : createPostgresDatabase();
}
