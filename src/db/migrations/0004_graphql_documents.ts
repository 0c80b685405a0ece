import type { Knex } from 'knex';

/**
 * GraphQL documents known by their SHA-256: registered by clients (automatic persisted queries)
 * or by an operator (`npm run graphql:persist`, `trusted`). In the database, so every process
 * sees every registration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('graphql_documents', (t) => {
    // Lower-case hex SHA-256 of the document's UTF-8 text: the text never changes for a hash.
    t.string('hash', 64).primary();
    t.text('document').notNullable();
    // Registered by an operator; only these run when GRAPHQL_TRUSTED_DOCUMENTS_ONLY=true.
    t.boolean('trusted').notNullable().defaultTo(false);
    // Unix seconds of the first registration.
    t.bigInteger('created').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('graphql_documents');
}
