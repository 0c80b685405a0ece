import type { Knex } from 'knex';

/**
 * The outbox: one delivery per (event, subscribed endpoint), written in the event's transaction,
 * and one attempt row per HTTP request made for it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('event_id', 64).notNullable();
    t.string('endpoint_id', 64).notNullable();
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    // Unix milliseconds: when the next attempt is due, and until when a worker holds it.
    t.bigInteger('next_attempt_at').notNullable();
    t.string('lease_owner', 64);
    t.bigInteger('lease_until');
    t.integer('last_response_status');
    t.string('last_error', 500);
    // Set by a manual retry or replay: the next attempt is recorded as manual.
    t.boolean('manual_retry').notNullable().defaultTo(false);
    t.bigInteger('created').notNullable();
    t.bigInteger('completed_at');
    t.index(['status', 'next_attempt_at']);
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'endpoint_id', 'seq']);
    t.index(['account_id', 'event_id']);
  });
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('seq').primary();
    t.string('delivery_id', 64).notNullable();
    t.string('account_id', 64).notNullable();
    t.bigInteger('started_at').notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('response_status');
    t.text('response_body');
    t.string('error', 500);
    t.boolean('manual').notNullable().defaultTo(false);
    t.index(['delivery_id', 'seq']);
  });
  // One row per endpoint and UTC day on which its owner was told about failures: at most one mail a day.
  await knex.schema.createTable('webhook_failure_notices', (t) => {
    t.string('endpoint_id', 64).notNullable();
    t.string('day', 10).notNullable();
    t.primary(['endpoint_id', 'day']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_failure_notices');
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
}
