import type { Knex } from 'knex';

/**
 * A refund shows the customer and the payment method of the charge it refunds, as the widely used
 * payments API does: kept on the refund, and filled in for the refunds made before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.string('customer_id', 64);
    t.string('payment_method_id', 64);
  });
  await knex.raw(
    `UPDATE refunds SET
       customer_id = (SELECT c.customer_id FROM charges c WHERE c.account_id = refunds.account_id AND c.id = refunds.charge_id),
       payment_method_id = (SELECT c.payment_method_id FROM charges c WHERE c.account_id = refunds.account_id AND c.id = refunds.charge_id)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.dropColumn('customer_id');
    t.dropColumn('payment_method_id');
  });
}
