import type { Knex } from 'knex';

/**
 * The documented fields of the widely used payments API that customers, charges, payment intents
 * and webhook endpoints store: addresses and shipping (JSON of the spec's `Address` and
 * `Shipping`), statement descriptors, how an intent is confirmed and with which payment method
 * types, and the API version an endpoint names.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => {
    t.text('address');
    t.text('shipping');
    // JSON list of locales, `[]` when none.
    t.text('preferred_locales').notNullable().defaultTo('[]');
    t.string('tax_exempt', 16).notNullable().defaultTo('none');
    // JSON of `invoice_settings` beyond its default payment method (custom_fields, footer, rendering_options).
    t.text('invoice_settings');
  });
  await knex.schema.alterTable('charges', (t) => {
    t.string('statement_descriptor', 22);
    t.string('statement_descriptor_suffix', 22);
    // What the card statement shows, composed when the charge is made or captured; null before.
    t.string('calculated_statement_descriptor', 22);
    t.text('shipping');
  });
  await knex.schema.alterTable('payment_intents', (t) => {
    // JSON of `automatic_payment_methods`, null when not asked for.
    t.text('automatic_payment_methods');
    t.text('payment_method_types').notNullable().defaultTo('["card"]');
    t.string('confirmation_method', 16).notNullable().defaultTo('automatic');
    // The payment method the customer authenticated for this intent (`confirmation_method=manual`
    // waits for a confirmation after the authentication; that confirmation does not ask again).
    t.string('authenticated_payment_method', 64);
    t.text('payment_method_options');
    t.text('shipping');
    t.string('statement_descriptor', 22);
    t.string('statement_descriptor_suffix', 22);
  });
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.string('api_version', 32);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('api_version');
  });
  await knex.schema.alterTable('payment_intents', (t) => {
    for (const column of ['automatic_payment_methods', 'payment_method_types', 'confirmation_method', 'authenticated_payment_method',
      'payment_method_options', 'shipping', 'statement_descriptor', 'statement_descriptor_suffix']) t.dropColumn(column);
  });
  await knex.schema.alterTable('charges', (t) => {
    for (const column of ['statement_descriptor', 'statement_descriptor_suffix', 'calculated_statement_descriptor', 'shipping']) t.dropColumn(column);
  });
  await knex.schema.alterTable('customers', (t) => {
    for (const column of ['address', 'shipping', 'preferred_locales', 'tax_exempt', 'invoice_settings']) t.dropColumn(column);
  });
}
