import type { Knex } from 'knex';

/**
 * API keys with a lifecycle: a restricted key's scopes (a JSON array of scope names; NULL for a
 * secret key, which holds every scope), when a key was revoked, and when a rolled key stops working
 * (unix seconds; NULL while it works, and for a key never rolled). A revoked or expired key stays
 * listed, so that the account sees what it once issued.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('scopes');
    t.bigInteger('revoked');
    t.bigInteger('expires');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('scopes');
    t.dropColumn('revoked');
    t.dropColumn('expires');
  });
}
