import type { Knex } from 'knex';

/**
 * What a charge keeps of how it was paid, as the widely used payments API shows it: the payment
 * method used and its card's fingerprint and CVC check, the decline code its `outcome` gives as
 * `reason`, and whether the customer authenticated it (3-D Secure). Null (false) in the charges
 * made before they were kept.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => {
    t.string('payment_method_id', 64);
    t.string('card_fingerprint', 32);
    t.string('card_cvc_check', 16);
    t.string('decline_code', 64);
    t.boolean('three_d_secure_authenticated').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => {
    for (const column of [
      'payment_method_id',
      'card_fingerprint',
      'card_cvc_check',
      'decline_code',
      'three_d_secure_authenticated',
    ])
      t.dropColumn(column);
  });
}
