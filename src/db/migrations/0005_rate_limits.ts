import type { Knex } from 'knex';

/**
 * Rate-limit counters shared by every API process over one Postgres: one row per credential,
 * reset when its window ends, in the layout rate-limiter-flexible's `RateLimiterPostgres` writes
 * (it inserts by position, so the column order is part of the contract). SQLite serves a single
 * process, whose counters stay in memory; the table exists there too so that both engines have
 * one schema.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    // Unix milliseconds at which the window ends. Not indexed: every request rewrites it, and the
    // purge of old rows runs once every five minutes over a table of recently active keys.
    t.bigInteger('expire');
  });
  // Counters need no durability: unlogged, an upsert writes no WAL and its commit waits for no
  // fsync (several times cheaper per request). A crash empties the table, so every key starts a fresh window.
  if (knex.client.config.client === 'pg') await knex.raw('ALTER TABLE rate_limits SET UNLOGGED');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rate_limits');
}
