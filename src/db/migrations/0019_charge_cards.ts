import type { Knex } from 'knex';

/**
 * What a charge shows of the card it was made with, as the widely used payments API does: the
 * card's expiry and the payment method's billing details at the time of the payment. Null in the
 * charges made before they were kept (their mapper shows what a test token stands for).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => {
    t.integer('card_exp_month');
    t.integer('card_exp_year');
    // JSON of the spec's `BillingDetails`.
    t.text('billing_details');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => {
    for (const column of ['card_exp_month', 'card_exp_year', 'billing_details'])
      t.dropColumn(column);
  });
}
