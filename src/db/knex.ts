import knexFactory, { type Knex } from 'knex';

/** Where the database lives: a SQLite file, or a Postgres URL. */
export type DatabaseTarget = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; url: string };

/** A Knex instance for the schema and migrations. */
export function createKnex(target: DatabaseTarget): Knex {
  if (target.kind === 'postgres') {
    return knexFactory({ client: 'pg', connection: target.url, pool: { min: 0, max: 2 } });
  }
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: target.filename },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
  });
}
