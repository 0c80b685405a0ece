import type { Knex } from 'knex';

/**
 * Setup intents: a customer's card saved for later payments, with no payment now. The client
 * secret is kept sealed, as payment intents' are (docs/operating.md#secrets-at-rest).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('setup_intents', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('customer_id', 64);
    t.string('status', 32).notNullable();
    t.string('payment_method', 64);
    t.string('usage', 16).notNullable();
    // JSON: the spec's PaymentMethodTypes, and AutomaticPaymentMethods or null.
    t.text('payment_method_types').notNullable();
    t.text('automatic_payment_methods');
    // JSON: the spec's SetupError, or null.
    t.text('last_setup_error');
    t.text('description');
    t.text('metadata').notNullable();
    t.string('cancellation_reason', 32);
    t.text('client_secret').notNullable();
    t.text('return_url');
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'customer_id', 'seq']);
    t.index(['account_id', 'payment_method', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('setup_intents');
}
