/**
 * `npm run secrets:rotate`: seals every stored secret again under `SECRETS_KEY`, opening those
 * sealed under the old key with `SECRETS_KEY_PREVIOUS` (or `SECRETS_KEY_PREVIOUS_FILE`). Run it
 * once every process serves with the new key (and the old one as previous); when it reports that
 * every secret is under the new key, `SECRETS_KEY_PREVIOUS` can go. Safe to run again, and beside
 * serving processes: a value is replaced only if it still holds what was read.
 */
import { loadConfig } from './config.js';
import { databaseTarget, describeTarget, openDatabase } from './db/open-database.js';
import { countStoredSecretsByKey, resealStoredSecrets } from './resources/shared/sealed-secrets.js';
import { loadSecretBox } from './secrets-keys.js';
import { reasonOf, StartupError } from './startup-failure.js';

async function rotate(): Promise<number> {
  const config = loadConfig();
  const target = databaseTarget(config);
  const secrets = await loadSecretBox(config.secretsKeys, { target, dataDir: config.dataDir });
  const db = await openDatabase(target);
  try {
    const { sealed } = await resealStoredSecrets(db, secrets);
    const counts = await countStoredSecretsByKey(db);
    const current = counts.get(secrets.currentKeyId) ?? 0;
    counts.delete(secrets.currentKeyId);
    console.log(`${describeTarget(target)}: sealed ${sealed} stored secrets again; ${current} are under key ${secrets.currentKeyId} (SECRETS_KEY).`);
    if (counts.size > 0) {
      const others = [...counts].map(([keyId, count]) => `${count} under ${keyId}`).join(', ');
      console.error(`payments-api: some stored secrets are still under another key (${others}): a process still seals with the old key; restart it with the new SECRETS_KEY and run this again.`);
      return 2;
    }
    console.log('Every stored secret is under SECRETS_KEY: SECRETS_KEY_PREVIOUS can be removed.');
    return 0;
  } finally {
    await db.close();
  }
}

try {
  process.exitCode = await rotate();
} catch (error) {
  console.error(`payments-api: cannot rotate the secrets key: ${error instanceof StartupError ? error.message : reasonOf(error)}`);
  process.exitCode = 1;
}
