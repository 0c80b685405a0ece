import { SecretBox } from '../../src/domain/secret-box.js';

/**
 * The key that seals the stored secrets of every test server and every process a test starts
 * (`SECRETS_KEY`), so that processes over one database open each other's secrets. Fixed, not
 * random: a test database left behind can still be read with it.
 */
export const TEST_SECRETS_KEY = Buffer.from('payments-api test secrets key, 32', 'utf8').subarray(0, 32);

/** `SECRETS_KEY` for a process's environment. */
export const TEST_SECRETS_ENV = { SECRETS_KEY: TEST_SECRETS_KEY.toString('base64') };

/** The key ring of test servers, for tests that seal or open a stored secret themselves. */
export const TEST_SECRET_BOX = new SecretBox(TEST_SECRETS_KEY);
