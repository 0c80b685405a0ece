import type { Knex } from 'knex';

/**
 * Every table has `seq`, an auto-incremented key: lists are ordered and paged by it (newest first,
 * index seek on `(account_id, seq)`), while `id` is random and unguessable.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('name', 256).notNullable();
    t.string('email', 512).notNullable();
    t.bigInteger('created').notNullable();
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable().index();
    t.string('key_hash', 64).notNullable().unique();
    t.string('last4', 4).notNullable();
    t.bigInteger('created').notNullable();
  });
  await knex.schema.createTable('settings', (t) => {
    t.string('name', 64).primary();
    t.text('value').notNullable();
  });
  await knex.schema.createTable('customers', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('email', 512);
    t.string('name', 256);
    t.string('description', 500);
    t.string('phone', 40);
    t.text('metadata').notNullable();
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'email', 'seq']);
  });
  await knex.schema.createTable('charges', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('customer_id', 64);
    t.integer('amount').notNullable();
    t.integer('amount_refunded').notNullable().defaultTo(0);
    t.string('currency', 3).notNullable();
    t.string('description', 500);
    t.text('metadata').notNullable();
    t.string('status', 16).notNullable();
    t.string('failure_code', 64);
    t.string('failure_message', 500);
    t.string('card_brand', 16).notNullable();
    t.string('card_last4', 4).notNullable();
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'customer_id', 'seq']);
  });
  await knex.schema.createTable('refunds', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('charge_id', 64).notNullable();
    t.integer('amount').notNullable();
    t.string('currency', 3).notNullable();
    t.string('reason', 32);
    t.string('status', 16).notNullable();
    t.text('metadata').notNullable();
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'charge_id', 'seq']);
  });
  await knex.schema.createTable('users', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('email', 512).notNullable();
    t.string('name', 256);
    t.text('metadata').notNullable();
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
  });
  await knex.schema.createTable('orders', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('user_id', 64).notNullable();
    t.integer('amount').notNullable();
    t.string('currency', 3).notNullable();
    t.string('description', 500);
    t.string('status', 16).notNullable();
    t.text('metadata').notNullable();
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'user_id', 'seq']);
  });
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('type', 64).notNullable();
    t.string('api_version', 32).notNullable();
    t.string('request_id', 64);
    t.string('idempotency_key', 255);
    t.text('data').notNullable();
    t.integer('pending_webhooks').notNullable().defaultTo(0);
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'type', 'seq']);
  });
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.string('account_id', 64).notNullable();
    t.string('key', 255).notNullable();
    t.string('request_method', 8).notNullable();
    t.string('request_path', 512).notNullable();
    t.string('request_hash', 64).notNullable();
    t.string('state', 16).notNullable();
    t.integer('response_status');
    t.text('response_body');
    t.bigInteger('created').notNullable();
    t.bigInteger('locked_at').notNullable();
    t.primary(['account_id', 'key']);
    t.index(['created']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['idempotency_keys', 'events', 'orders', 'users', 'refunds', 'charges', 'customers', 'settings', 'api_keys', 'accounts']) {
    await knex.schema.dropTableIfExists(table);
  }
}
