import { loadConfig } from '../config.js';
import { sealStoredSecrets } from '../resources/shared/sealed-secrets.js';
import { loadSecretBox } from '../secrets-keys.js';
import { describeStartupFailure } from '../startup-failure.js';
import { databaseTarget, migrate, openDatabase } from './open-database.js';

// `npm run migrate`: applies pending migrations to the configured database and says which, then
// seals the stored secrets that are not yet (which needs the secrets key, as a start does).
const config = loadConfig();
const target = databaseTarget(config);
const secrets = await loadSecretBox(config.secretsKeys, { target, dataDir: config.dataDir }).catch((error: unknown) => {
  console.error(`payments-api: ${describeStartupFailure(error)}`);
  process.exit(1);
});
const applied = await migrate(target);
console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
const db = await openDatabase(target);
try {
  const { sealed } = await sealStoredSecrets(db, secrets);
  if (sealed > 0) console.log(`Sealed ${sealed} stored secrets under key ${secrets.currentKeyId}.`);
} finally {
  await db.close();
}
