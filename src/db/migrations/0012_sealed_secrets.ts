import type { Knex } from 'knex';

/**
 * Stored secrets are sealed (src/resources/shared/sealed-secrets.ts): a sealed value is longer than
 * the plain one, so the columns that held 128 characters hold text. SQLite does not enforce a
 * declared length, so only Postgres changes. The values themselves are sealed right after the
 * migrations, by every start and by `npm run migrate`: that needs the key, which a migration
 * never sees, and it also seals a plain value that an older process wrote later.
 */
const WIDENED: Array<[table: string, column: string]> = [
  ['webhook_endpoints', 'secret'],
  ['webhook_endpoints', 'previous_secret'],
  ['signing_keys', 'secret'],
];

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  for (const [table, column] of WIDENED) await knex.raw(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE text`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  // Back to 128 characters, which holds only plain secrets: open them first (a key rotation cannot).
  for (const [table, column] of WIDENED) await knex.raw(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE varchar(128)`);
}
