import type { Knex } from 'knex';

/**
 * The credentials beside API keys (OAuth clients, the server's token-signing keys, HMAC signing
 * keys, client certificates), the signatures already seen (replay protection), and when each API
 * key last authenticated a request.
 *
 * Secrets that the server only compares (OAuth client secrets) are kept as SHA-256 hashes. An HMAC
 * signing key's secret and a token-signing private key are kept as they are: the server must use
 * them, not only compare them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    // Unix seconds, written at most once a minute per key (not on every request).
    t.bigInteger('last_used');
  });
  await knex.schema.createTable('oauth_clients', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('name', 256);
    t.string('secret_hash', 64).notNullable();
    t.text('scopes');
    t.bigInteger('created').notNullable();
    t.bigInteger('deleted');
    t.index(['account_id', 'seq']);
  });
  await knex.schema.createTable('token_signing_keys', (t) => {
    t.string('kid', 64).primary();
    t.string('algorithm', 16).notNullable();
    t.text('private_jwk').notNullable();
    t.text('public_jwk').notNullable();
    t.bigInteger('created').notNullable();
    // When a newer key took over signing; the key stays published while its tokens may live.
    t.bigInteger('superseded');
  });
  await knex.schema.createTable('signing_keys', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('secret', 128).notNullable();
    t.text('scopes');
    t.bigInteger('created').notNullable();
    t.bigInteger('revoked');
    t.index(['account_id', 'seq']);
  });
  await knex.schema.createTable('seen_signatures', (t) => {
    // SHA-256 (hex) of the signing key's id and the signature's nonce, or its value without one.
    t.string('digest', 64).primary();
    // Unix seconds after which the signature is too old to be accepted anyway, and the row may go.
    t.bigInteger('expires').notNullable().index();
  });
  await knex.schema.createTable('client_certificates', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable();
    t.string('fingerprint', 64).notNullable().index();
    t.string('subject', 1024).notNullable();
    t.string('issuer', 1024).notNullable();
    t.bigInteger('not_before').notNullable();
    t.bigInteger('not_after').notNullable();
    t.text('scopes');
    t.bigInteger('created').notNullable();
    t.bigInteger('revoked');
    t.index(['account_id', 'seq']);
  });
  // A certificate authenticates one account: at most one registration of it in force.
  await knex.raw('CREATE UNIQUE INDEX client_certificates_fingerprint_active ON client_certificates (fingerprint) WHERE revoked IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['client_certificates', 'seen_signatures', 'signing_keys', 'token_signing_keys', 'oauth_clients']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('last_used'));
}
