import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { newId, randomBase62 } from '../../domain/ids.js';

/**
 * Publishable keys and client secrets. An intent's `client_secret` is kept sealed (the server
 * shows it again, so it is not only compared: docs/operating.md#secrets-at-rest); intents made
 * before this migration have none. Every account gets its publishable key, kept in full in
 * `publishable_key` (it is public) beside its hash, by which it authenticates as every key does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_intents', (t) => {
    t.text('client_secret');
    t.text('return_url');
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('publishable_key', 128);
  });
  const accounts = await knex('accounts').select('id', 'created');
  for (const account of accounts) {
    const key = `pk_test_${randomBase62(32)}`;
    await knex('api_keys').insert({
      id: newId('apiKey'),
      account_id: account.id,
      key_hash: createHash('sha256').update(key).digest('hex'),
      last4: key.slice(-4),
      created: account.created,
      scopes: '[]',
      publishable_key: key,
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex('api_keys').whereNotNull('publishable_key').delete();
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('publishable_key'));
  await knex.schema.alterTable('payment_intents', (t) => {
    t.dropColumn('client_secret');
    t.dropColumn('return_url');
  });
}
