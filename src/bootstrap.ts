import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { isUniqueViolation } from './db/dialect.js';
import { ensureDirectory } from './db/open-database.js';
import { unixSeconds, type Clock } from './domain/clock.js';
import { randomBase62 } from './domain/ids.js';
import { adminCredentialsDigest } from './auth/authenticator.js';
import type { Logger } from './logging/logger.js';
import { countAccounts, findApiKeyByHash } from './resources/accounts/accounts.repo.js';
import { createAccount, generateApiKey, hashApiKey } from './resources/accounts/accounts.service.js';
import { reasonOf } from './startup-failure.js';

const ADMIN_SETTING = 'admin_credentials_sha256';

/**
 * The admin credentials' digest: from `ADMIN_USER`/`ADMIN_PASSWORD` when set, else generated on
 * the first start, printed once and saved (for a laptop) in `DATA_DIR/admin-credentials`.
 */
export async function ensureAdminCredentials(db: Database, config: Config, logger: Logger): Promise<Buffer> {
  if (config.adminUser && config.adminPassword) {
    return adminCredentialsDigest(`${config.adminUser}:${config.adminPassword}`);
  }
  const stored = await db.one<{ value: string }>('SELECT value FROM settings WHERE name = ?', [ADMIN_SETTING]);
  if (stored) return Buffer.from(stored.value, 'hex');
  prepareDataDir(config); // before anything is stored that only the saved file would tell
  const user = config.adminUser ?? 'admin';
  const password = randomBase62(24);
  const digest = adminCredentialsDigest(`${user}:${password}`);
  try {
    await db.run('INSERT INTO settings (name, value) VALUES (?, ?)', [ADMIN_SETTING, digest.toString('hex')]);
  } catch (error) {
    // Another process generated them first: use theirs.
    if (!isUniqueViolation(error)) throw error;
    return ensureAdminCredentials(db, config, logger);
  }
  const file = saveSecret(config, 'admin-credentials', `${user}:${password}\n`);
  logger.info({ admin_user: user, saved_in: file }, `Admin credentials generated: ${user}:${password}`);
  return digest;
}

/**
 * A development account: `BOOTSTRAP_API_KEY` makes sure an account holds that key; without it,
 * the first start on an empty database creates one with a new key, printed and saved in
 * `DATA_DIR/dev-api-key`.
 */
export async function ensureDevAccount(db: Database, config: Config, clock: Clock, logger: Logger): Promise<void> {
  const owner = { name: 'Development', email: 'dev@example.com' };
  if (config.bootstrapApiKey) {
    if (await findApiKeyByHash(db, hashApiKey(config.bootstrapApiKey), unixSeconds(clock))) return;
    try {
      const account = await db.transaction((tx) => createAccount(tx, clock, owner, config.bootstrapApiKey));
      logger.info({ account: account.id }, `Development account created for BOOTSTRAP_API_KEY. Publishable key: ${account.publishable_key}`);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error; // another process created it
    }
    return;
  }
  if ((await countAccounts(db)) > 0) return;
  prepareDataDir(config); // a key created but never saved would be lost
  const apiKey = generateApiKey();
  const account = await db.transaction((tx) => createAccount(tx, clock, owner, apiKey));
  const file = saveSecret(config, 'dev-api-key', `${apiKey}\n`);
  saveSecret(config, 'dev-publishable-key', `${account.publishable_key}\n`);
  logger.info(
    { account: account.id, saved_in: file },
    `Development account created. API key: ${apiKey} Publishable key: ${account.publishable_key}`,
  );
}

/** Makes sure `DATA_DIR` exists and can be written to, or throws saying why (not a directory, read-only, …). */
function prepareDataDir(config: Config): void {
  try {
    ensureDirectory(config.dataDir);
    fs.accessSync(config.dataDir, fs.constants.W_OK);
  } catch (error) {
    throw new Error(`DATA_DIR (${config.dataDir}) cannot be written to: ${reasonOf(error)}`, { cause: error });
  }
}

function saveSecret(config: Config, name: string, content: string): string {
  ensureDirectory(config.dataDir);
  const file = path.join(config.dataDir, name);
  fs.writeFileSync(file, content, { mode: 0o600 });
  return file;
}
