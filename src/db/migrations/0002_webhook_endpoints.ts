import type { Knex } from 'knex';

/** Webhook endpoints: where an account's events are delivered, and the secrets that sign them. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('url', 2048).notNullable();
    t.string('description', 500);
    t.text('enabled_events').notNullable();
    t.string('status', 16).notNullable();
    t.text('metadata').notNullable();
    t.string('secret', 128).notNullable();
    // During a rotation the old secret still signs, until it expires (unix milliseconds).
    t.string('previous_secret', 128);
    t.bigInteger('previous_secret_expires_at');
    // When its current run of failed attempts began (unix milliseconds); null after a success.
    t.bigInteger('failing_since');
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_endpoints');
}
