import type { Knex } from 'knex';

/**
 * Saved payment methods (cards), a customer's default one, and what an intent saves its payment
 * method for (`setup_future_usage`).
 *
 * A card's number is never stored: only what the spec shows of it (brand, last four digits,
 * fingerprint, expiry) and which test card it is (`test_card`), which decides how payments go.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_methods', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('customer_id', 64);
    t.string('test_card', 64).notNullable();
    t.string('card_brand', 32).notNullable();
    t.string('card_last4', 4).notNullable();
    t.string('card_fingerprint', 32).notNullable();
    t.integer('card_exp_month').notNullable();
    t.integer('card_exp_year').notNullable();
    // The spec's CardCheck of the CVC: NULL when none was given.
    t.string('card_cvc_check', 16);
    // JSON: the spec's BillingDetails.
    t.text('billing_details').notNullable();
    t.text('metadata').notNullable();
    // Whether the customer authenticated the card for off-session payments (a payment with
    // `setup_future_usage=off_session`, later a setup intent): a card that asks for
    // authentication on setup only then passes off-session.
    t.boolean('off_session_ready').notNullable().defaultTo(false);
    t.bigInteger('created').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'customer_id', 'seq']);
  });
  await knex.schema.alterTable('customers', (t) => {
    t.string('default_payment_method_id', 64);
  });
  await knex.schema.alterTable('payment_intents', (t) => {
    t.string('setup_future_usage', 16);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_intents', (t) => {
    t.dropColumn('setup_future_usage');
  });
  await knex.schema.alterTable('customers', (t) => {
    t.dropColumn('default_payment_method_id');
  });
  await knex.schema.dropTableIfExists('payment_methods');
}
