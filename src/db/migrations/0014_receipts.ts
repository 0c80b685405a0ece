import type { Knex } from 'knex';

/**
 * Receipts: a charge's `receipt_email` and `receipt_number`, the token of its receipt page's
 * address (null for charges made before receipts: they have no page), an intent's
 * `receipt_email`, and the outbox of receipt e-mails, written in the charge's transaction and sent
 * by the worker once committed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => {
    t.string('receipt_email', 512).nullable();
    t.string('receipt_number', 16).nullable();
    t.string('receipt_token', 64).nullable();
  });
  await knex.schema.alterTable('payment_intents', (t) => {
    t.string('receipt_email', 512).nullable();
  });
  await knex.schema.createTable('receipt_mails', (t) => {
    t.bigIncrements('seq').primary();
    t.string('account_id', 64).notNullable();
    t.string('charge_id', 64).notNullable();
    t.string('email', 512).notNullable();
    // `pending` until `sent` (or `logged`, without SMTP_URL); `failed` after the last attempt.
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    // Unix milliseconds: when the next attempt is due, and until when a worker holds it.
    t.bigInteger('next_attempt_at').notNullable();
    t.bigInteger('lease_until');
    t.string('last_error', 500);
    t.bigInteger('created').notNullable();
    t.bigInteger('sent_at');
    t.index(['status', 'next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('receipt_mails');
  await knex.schema.alterTable('payment_intents', (t) => {
    t.dropColumn('receipt_email');
  });
  await knex.schema.alterTable('charges', (t) => {
    t.dropColumn('receipt_token');
    t.dropColumn('receipt_number');
    t.dropColumn('receipt_email');
  });
}
