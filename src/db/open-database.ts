import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './database.js';
import { createKnex, type DatabaseTarget } from './knex.js';
import { migrationSource } from './migrations/index.js';
import { PostgresDatabase } from './postgres.js';
import { keepSqliteFilesPrivate, SqliteDatabase } from './sqlite.js';

/** The database named by the configuration: Postgres when `DATABASE_URL` is set, else SQLite. */
export function databaseTarget(config: { databaseUrl?: string; dataDir: string }): DatabaseTarget {
  if (config.databaseUrl) return { kind: 'postgres', url: config.databaseUrl };
  return { kind: 'sqlite', filename: path.join(config.dataDir, 'payments.sqlite') };
}

/**
 * Whether several processes can serve over the database at once: Postgres. SQLite has one writer
 * per file, so processes sharing one would wait on its lock.
 */
export function servesSeveralProcesses(target: DatabaseTarget): boolean {
  return target.kind === 'postgres';
}

/**
 * The database for a message or a log line: `SQLite <file>`, or the Postgres URL with its password
 * replaced by `***` (`DATABASE_URL` when it is not a URL at all).
 */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') return `SQLite ${target.filename}`;
  if (!URL.canParse(target.url)) return 'DATABASE_URL';
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return url.toString();
}

/**
 * Creates a directory and its missing parents, or throws the system's error (ENOTDIR, EACCES, …).
 * Not `mkdirSync(dir, {recursive: true})`: on some kernels (gVisor) that spins forever on a path
 * the kernel refuses with ENOENT, such as one under /proc.
 */
export function ensureDirectory(dir: string): void {
  const parent = path.dirname(dir);
  if (parent !== dir && !fs.existsSync(parent)) ensureDirectory(parent);
  try {
    fs.mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (!fs.statSync(dir).isDirectory()) {
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', path: dir });
  }
}

/** Applies every pending migration (Knex keeps its own lock, so concurrent starts are safe). */
export async function migrate(target: DatabaseTarget): Promise<string[]> {
  if (target.kind === 'sqlite') {
    ensureDirectory(path.dirname(target.filename));
    keepSqliteFilesPrivate(target.filename);
  }
  const knex = createKnex(target);
  try {
    const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
    return applied;
  } finally {
    await knex.destroy();
  }
}

/** Migrates, then opens the connection(s) that queries run on. */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  await migrate(target);
  return target.kind === 'postgres' ? PostgresDatabase.open(target.url) : SqliteDatabase.open(target.filename);
}
