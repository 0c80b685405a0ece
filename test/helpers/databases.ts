import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { randomBase62 } from '../../src/domain/ids.js';
import type { DatabaseTarget } from '../../src/db/knex.js';
import { migrate } from '../../src/db/open-database.js';
import { FAST_RUN } from './fast-run.js';

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

/** Where test SQLite files go: tmpfs when the machine has a writable one (no disk, no fsync), else the temporary directory. */
const SQLITE_PARENT = writable('/dev/shm') ? '/dev/shm' : os.tmpdir();

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A new, empty SQLite file in a temporary directory of its own. */
export function createSqliteDatabase(): TestDatabase {
  const dir = fs.mkdtempSync(path.join(SQLITE_PARENT, 'payments-test-'));
  return {
    target: { kind: 'sqlite', filename: path.join(dir, 'payments.sqlite') },
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The prefix of every test database this process makes, with its PID: a database whose process is
 * gone was left behind (a killed run, a drop still queued at exit) and is swept by the next one.
 */
const DATABASE_PREFIX = 'payments_test_';
const ownPrefix = `${DATABASE_PREFIX}p${process.pid}_`;

/** A new Postgres database on the test server, empty or a copy of `template`; dropped afterwards. */
async function createPostgresDatabase(template?: string): Promise<TestDatabase> {
  // Behind the tests too: a run after a killed one may find many, which no test should wait for.
  sweptLeftovers ??= sweepLeftovers();
  const name = `${ownPrefix}${randomBase62(10).toLowerCase()}`;
  await adminQuery(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  return { target: { kind: 'postgres', url: postgresUrl(name) }, drop: () => dropLater(name) };
}

/**
 * The next copy of the migrated template, made while the test before runs: creating a database
 * takes Postgres a fifth of a second of copying and syncing, which a test need not wait for.
 */
let spareCopy: Promise<TestDatabase> | undefined;

async function copyOfPostgresTemplate(): Promise<TestDatabase> {
  const template = await (postgresTemplate ??= migratedPostgresTemplate());
  const copy = spareCopy ?? createPostgresDatabase(template);
  spareCopy = createPostgresDatabase(template);
  // A spare that fails is made again, and its error told, by the test that takes it.
  spareCopy.catch(() => (spareCopy = undefined));
  return copy;
}

/**
 * Drops run one at a time behind the tests (a drop takes Postgres as long as a copy): `drop()`
 * resolves once the database is queued, its connections closed by then. What a process leaves
 * queued when it exits is swept by the next run (`sweepLeftovers`).
 */
let drops: Promise<void> = Promise.resolve();

function dropLater(name: string): Promise<void> {
  drops = drops.then(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined);
  return Promise.resolve();
}

let sweptLeftovers: Promise<void> | undefined;

/** Queues the drop of the test databases of processes of this machine that no longer run. */
async function sweepLeftovers(): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${DATABASE_PREFIX}p%`],
    );
    for (const { datname } of rows) {
      const pid = Number(/^payments_test_p(\d+)_/.exec(datname)?.[1]);
      if (pid && !processRuns(pid)) void dropLater(datname);
    }
  } catch {
    // Left for the next run: a sweep is housekeeping, not a test.
  } finally {
    await admin.end().catch(() => undefined);
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

function postgresUrl(database: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The migrated databases that new test databases are copied from, made once per process. */
let sqliteTemplate: Promise<string> | undefined;
let postgresTemplate: Promise<string> | undefined;

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

function migrationsDigest(): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  return hash.digest('hex').slice(0, 12);
}

async function migratedSqliteFile(): Promise<string> {
  const database = createSqliteDatabase();
  process.once('exit', () => void database.drop());
  await migrate(database.target);
  return (database.target as { filename: string }).filename;
}

/**
 * A copy of a database that the migrations of this checkout already ran on: what `openDatabase`
 * makes of an empty one, for a fraction of the time (the tests start hundreds of servers, and
 * migrating each database costs more than most tests that use it).
 */
async function copyOfMigrated(engine: Engine): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const template = await (sqliteTemplate ??= migratedSqliteFile());
    const database = createSqliteDatabase();
    fs.copyFileSync(template, (database.target as { filename: string }).filename);
    return database;
  }
  return copyOfPostgresTemplate();
}

/**
 * The template database on the Postgres server, shared by every test process and run: named after
 * the migrations' source (a changed migration makes a new one), made under a lock and another name,
 * and renamed only when complete, so that no process copies a half-migrated template.
 */
async function migratedPostgresTemplate(): Promise<string> {
  const name = `payments_template_${migrationsDigest()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      const building = await createPostgresDatabase();
      await migrate(building.target);
      const buildingName = new URL((building.target as { url: string }).url).pathname.slice(1);
      await admin.query(`ALTER DATABASE ${buildingName} RENAME TO ${name}`);
    }
    return name;
  } finally {
    await admin.end();
  }
}

export type Engine = 'sqlite' | 'postgres';

/**
 * Runs a suite once per engine: SQLite always, Postgres when reachable (required in CI) and not
 * in the fast run.
 * The suite receives the engine name; each suite creates its own databases with `createDatabase`.
 */
export function forEachDatabase(title: string, suite: (engine: Engine) => void): void {
  for (const engine of ['sqlite', 'postgres'] as const) {
    describe(`${title} [${engine}]`, function () {
      if (engine === 'postgres') {
        before(async function () {
          if (FAST_RUN) this.skip();
          postgresReachable ??= canReachPostgres();
          if (!(await postgresReachable)) this.skip();
        });
      }
      suite(engine);
    });
  }
}

/** A new, empty Postgres database that no migration has run on (to test a migration itself). */
export function createUnmigratedPostgresDatabase(): Promise<TestDatabase> {
  return createPostgresDatabase();
}

/** A fresh database of the given engine, already migrated (see `copyOfMigrated`). */
export function createDatabase(engine: Engine): Promise<TestDatabase> {
  return copyOfMigrated(engine);
}
