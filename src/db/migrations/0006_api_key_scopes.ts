import type { Knex } from 'knex';

/**
 * API keys with a lifecycle: a restricted key's scopes (a JSON array of scope names; NULL for a
 * secret key, which holds every scope), and when a key was revoked (unix seconds; NULL while it
 * works). A revoked key stays listed, so that the account sees what it once issued.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('scopes');
    t.bigInteger('revoked');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('scopes');
    t.dropColumn('revoked');
  });
}
