import knexFactory, { type Knex } from 'knex';

/** Where the database lives: a SQLite file, or a Postgres URL. */
export type DatabaseTarget = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; url: string };

const ACQUIRE_ERROR = 'Acquire connection error';

/**
 * Knex's own warnings go to stderr, except a failed connection's: Knex prints that one with its
 * stack and also throws it to the caller, which says it (a start in one line, startup-failure.ts).
 */
const log: Knex.Config['log'] = {
  warn(message: unknown) {
    const text = String(message);
    if (!text.startsWith(ACQUIRE_ERROR)) process.stderr.write(`knex: ${text}\n`);
  },
};

/** A Knex instance for the schema and migrations. */
export function createKnex(target: DatabaseTarget): Knex {
  if (target.kind === 'postgres') {
    return knexFactory({ client: 'pg', connection: target.url, pool: { min: 0, max: 2 }, log });
  }
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: target.filename },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
    log,
  });
}
