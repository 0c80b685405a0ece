import type { Knex } from 'knex';

/**
 * Webhook endpoints may ask for their deliveries' signature under other header names as well
 * (`signature_header_aliases`, a JSON array; null follows the server's default).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.text('signature_header_aliases').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('signature_header_aliases');
  });
}
