import type { Knex } from 'knex';
import * as initial from './0001_initial.js';
import * as webhookEndpoints from './0002_webhook_endpoints.js';
import * as webhookDeliveries from './0003_webhook_deliveries.js';
import * as graphqlDocuments from './0004_graphql_documents.js';
import * as rateLimits from './0005_rate_limits.js';
import * as apiKeyScopes from './0006_api_key_scopes.js';
import * as authCredentials from './0007_auth_credentials.js';
import * as paymentIntents from './0008_payment_intents.js';
import * as requestLogs from './0009_request_logs.js';
import * as claimKeyFunction from './0010_claim_key_function.js';
import * as eventPartitions from './0011_event_partitions.js';
import * as sealedSecrets from './0012_sealed_secrets.js';
import * as signatureHeaderAliases from './0013_signature_header_aliases.js';
import * as receipts from './0014_receipts.js';
import * as clientSecrets from './0015_client_secrets.js';
import * as paymentMethods from './0016_payment_methods.js';
import * as setupIntents from './0017_setup_intents.js';
import * as documentedFields from './0018_documented_fields.js';
import * as chargeCards from './0019_charge_cards.js';
import * as chargeOutcomes from './0020_charge_outcomes.js';
import * as refundPayers from './0021_refund_payers.js';

/**
 * Every migration, in order. Listed here rather than found on disk, so they load the same way
 * under tsx, mocha and the CLI. Never edit a migration that has shipped: add the next one.
 */
export const MIGRATIONS: ReadonlyArray<[name: string, migration: Knex.Migration]> = [
  ['0001_initial', initial],
  ['0002_webhook_endpoints', webhookEndpoints],
  ['0003_webhook_deliveries', webhookDeliveries],
  ['0004_graphql_documents', graphqlDocuments],
  ['0005_rate_limits', rateLimits],
  ['0006_api_key_scopes', apiKeyScopes],
  ['0007_auth_credentials', authCredentials],
  ['0008_payment_intents', paymentIntents],
  ['0009_request_logs', requestLogs],
  ['0010_claim_key_function', claimKeyFunction],
  ['0011_event_partitions', eventPartitions],
  ['0012_sealed_secrets', sealedSecrets],
  ['0013_signature_header_aliases', signatureHeaderAliases],
  ['0014_receipts', receipts],
  ['0015_client_secrets', clientSecrets],
  ['0016_payment_methods', paymentMethods],
  ['0017_setup_intents', setupIntents],
  ['0018_documented_fields', documentedFields],
  ['0019_charge_cards', chargeCards],
  ['0020_charge_outcomes', chargeOutcomes],
  ['0021_refund_payers', refundPayers],
];

export const migrationSource: Knex.MigrationSource<Knex.Migration> = {
  getMigrations: async () => MIGRATIONS.map(([, migration]) => migration),
  getMigrationName: (migration) => MIGRATIONS.find(([, m]) => m === migration)![0],
  getMigration: async (migration) => migration,
};
