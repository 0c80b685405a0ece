import type { Knex } from 'knex';

/**
 * The payment lifecycle: payment intents, charges that belong to one and may be only authorised,
 * refunds that name their intent, the object each event is about (for an object's timeline), and
 * tombstones of deleted objects (a deleted customer is still retrievable as `deleted: true`).
 *
 * A charge made before this migration belongs to no intent and was captured when it succeeded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_intents', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('customer_id', 64);
    t.integer('amount').notNullable();
    t.integer('amount_capturable').notNullable().defaultTo(0);
    t.integer('amount_received').notNullable().defaultTo(0);
    t.string('currency', 3).notNullable();
    t.string('capture_method', 16).notNullable();
    t.string('status', 32).notNullable();
    t.string('payment_method', 64);
    t.string('latest_charge_id', 64);
    // JSON: the spec's PaymentError, or NULL.
    t.text('last_payment_error');
    t.string('description', 500);
    t.text('metadata').notNullable();
    t.bigInteger('canceled_at');
    t.string('cancellation_reason', 32);
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'customer_id', 'seq']);
  });
  await knex.schema.alterTable('charges', (t) => {
    t.string('payment_intent_id', 64);
    t.integer('amount_captured').notNullable().defaultTo(0);
    // Unix seconds until which an uncaptured authorisation may be captured; NULL once it is
    // captured or released (and for every other charge), so the worker's expiry scan sees only
    // live authorisations.
    t.bigInteger('capture_before');
    t.index(['account_id', 'payment_intent_id', 'seq']);
    t.index(['capture_before']);
  });
  await knex('charges').where({ status: 'succeeded' }).update({ amount_captured: knex.ref('amount') });
  await knex.schema.alterTable('refunds', (t) => {
    t.string('payment_intent_id', 64);
    t.index(['account_id', 'payment_intent_id', 'seq']);
  });
  await knex.schema.alterTable('events', (t) => {
    // The id of `data.object`; NULL on events recorded before this migration.
    t.string('object_id', 64);
    t.index(['account_id', 'object_id', 'seq']);
  });
  await knex.schema.createTable('deleted_objects', (t) => {
    t.string('id', 64).primary();
    t.string('account_id', 64).notNullable();
    t.string('object', 32).notNullable();
    t.bigInteger('deleted').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('deleted_objects');
  await knex.schema.alterTable('events', (t) => {
    t.dropIndex(['account_id', 'object_id', 'seq']);
    t.dropColumn('object_id');
  });
  await knex.schema.alterTable('refunds', (t) => {
    t.dropIndex(['account_id', 'payment_intent_id', 'seq']);
    t.dropColumn('payment_intent_id');
  });
  await knex.schema.alterTable('charges', (t) => {
    t.dropIndex(['account_id', 'payment_intent_id', 'seq']);
    t.dropIndex(['capture_before']);
    t.dropColumn('payment_intent_id');
    t.dropColumn('amount_captured');
    t.dropColumn('capture_before');
  });
  await knex.schema.dropTableIfExists('payment_intents');
}
