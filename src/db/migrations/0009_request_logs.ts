import type { Knex } from 'knex';

/**
 * The request log (`GET /v1/request_logs`): one row per API request of an account, as the server
 * answered it, written in batches by each API process and purged after
 * `REQUEST_LOG_RETENTION_HOURS`. Listed newest first by `seq`, like every other list.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('request_logs', (t) => {
    t.bigIncrements('seq').primary();
    // The request's `Request-Id` (req_…): random, so unique, and the list's cursor.
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    // Unix seconds of the answer.
    t.bigInteger('created').notNullable();
    t.string('method', 8).notNullable();
    t.string('path', 2048).notNullable();
    t.integer('status').notNullable();
    t.double('duration_ms').notNullable();
    t.string('idempotency_key', 255);
    // The page's index seek; the purge's range scan.
    t.index(['account_id', 'seq']);
    t.index(['created']);
  });
  // A request log needs no crash durability: unlogged, a flush of a few hundred rows writes no WAL
  // and its commit waits for no fsync. A crash of Postgres empties the table, which loses a day
  // of history at most and nothing anyone's money depends on.
  if (knex.client.config.client === 'pg') await knex.raw('ALTER TABLE request_logs SET UNLOGGED');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('request_logs');
}
