import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { openDatabase } from '../../src/db/open-database.js';
import { systemClock } from '../../src/domain/clock.js';
import { SecretBox, secretsKeyId } from '../../src/domain/secret-box.js';
import { createAccount } from '../../src/resources/accounts/accounts.service.js';
import { SEALED_COLUMNS } from '../../src/resources/shared/sealed-secrets.js';
import { ApiClient } from '../helpers/api-client.js';
import { startApiProcess } from '../helpers/api-process.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { compiledScript } from '../helpers/server-entry.js';
import { send, signRequest } from '../helpers/message-signer.js';
import { databaseEnv, runMain } from '../helpers/run-main.js';
import { TEST_SECRETS_ENV, TEST_SECRETS_KEY } from '../helpers/secrets-key.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const API_KEY = 'sk_test_secretsAtRest0001';
const NEW_KEY = Buffer.alloc(32, 7);
const NEW_KEY_ENV = { SECRETS_KEY: NEW_KEY.toString('base64') };

/** `npm run secrets:rotate` with `env` (and nothing of the test's own database settings). */
async function rotateSecrets(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DATABASE_URL: _url, SECRETS_KEY: _key, ...base } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, compiledScript('src/secrets-rotate-cli.ts'), {
      cwd: ROOT,
      env: { ...base, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The key id of every stored secret, by `table.column`. */
async function keyIdsOf(database: TestDatabase): Promise<Record<string, string[]>> {
  const db = await openDatabase(database.target);
  try {
    const found: Record<string, string[]> = {};
    for (const { table, column } of SEALED_COLUMNS) {
      const rows = await db.all<{ value: string }>(`SELECT ${column} AS value FROM ${table} WHERE ${column} IS NOT NULL`);
      found[`${table}.${column}`] = rows.map((row) => (row.value.startsWith('sealed.v1.') ? row.value.split('.')[2] : 'plain'));
    }
    return found;
  } finally {
    await db.close();
  }
}

describe('the secrets key at start', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(120_000);
  it('refuses to start on Postgres without SECRETS_KEY or SECRETS_KEY_FILE, in one line naming them', async () => {
    const started = await runMain({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', SECRETS_KEY: '' });
    expect(started.code, started.stderr).to.equal(1);
    const lines = started.stderr.split('\n').filter(Boolean);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^payments-api: SECRETS_KEY or SECRETS_KEY_FILE must be set with a Postgres DATABASE_URL: /);
  });

  it('refuses a SECRETS_KEY that is not 32 bytes of base64, and a SECRETS_KEY_FILE it cannot read', async () => {
    const short = await runMain({ SECRETS_KEY: Buffer.alloc(16).toString('base64'), DATA_DIR: '/nonexistent-unused' });
    expect(short.stderr.trim()).to.match(/^payments-api: invalid configuration: SECRETS_KEY must be 32 random bytes in base64 .*got 16 bytes$/);
    const missing = await runMain({ SECRETS_KEY: '', SECRETS_KEY_FILE: '/nonexistent/secrets-key', DATA_DIR: '/nonexistent-unused' });
    expect(missing.stderr.trim()).to.equal('payments-api: SECRETS_KEY_FILE cannot be read: no such file or directory (open /nonexistent/secrets-key)');
  });

  it('on SQLite without a key, generates one into DATA_DIR (0600) on the first start, says so, and keeps using it', async () => {
    const database = await createDatabase('sqlite');
    const keyFile = path.join(path.dirname(database.target.kind === 'sqlite' ? database.target.filename : ''), 'secrets-key');
    try {
      const first = await startApiProcess(database.target, { SECRETS_KEY: '', BOOTSTRAP_API_KEY: API_KEY, LOG_LEVEL: 'info' });
      let secret: string;
      try {
        expect(first.output()).to.include('Secrets key generated');
        const created = await new ApiClient(first.url, API_KEY).post('/v1/webhook_endpoints', { url: 'https://example.com/h', enabled_events: ['*'] });
        expect(created.status, JSON.stringify(created.body)).to.equal(200);
        secret = created.body.secret;
      } finally {
        await first.stop();
      }
      expect((fs.statSync(keyFile).mode & 0o777).toString(8)).to.equal('600');
      const generated = Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'base64');
      expect(generated).to.have.length(32);
      expect((await keyIdsOf(database))['webhook_endpoints.secret']).to.deep.equal([secretsKeyId(generated)]);

      const second = await startApiProcess(database.target, { SECRETS_KEY: '', BOOTSTRAP_API_KEY: API_KEY, LOG_LEVEL: 'info' });
      await second.stop();
      expect(second.output()).to.not.include('Secrets key generated');
      expect(Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'base64').equals(generated)).to.equal(true);
      const db = await openDatabase(database.target);
      const row = await db.one<{ id: string; secret: string }>('SELECT id, secret FROM webhook_endpoints');
      await db.close();
      expect(new SecretBox(generated).open(row!.secret, { table: 'webhook_endpoints', column: 'secret', row: row!.id })).to.equal(secret);
    } finally {
      await database.drop();
    }
  });
});

forEachDatabase('stored secrets: sealing existing rows, and rotating the key', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  let database: TestDatabase;
  const plain = {
    webhook: 'whsec_plainWebhookSecret000000000000001',
    previous: 'whsec_plainPreviousSecret00000000000001',
    signing: 'hmsec_plainSigningSecret0000000000000001',
    clientSecret: 'pi_plain000000000000000001_secret_plainClientSecret000001',
    setupClientSecret: 'seti_plain000000000000000001_secret_plainSetupSecret00001',
  };
  let accountId: string;

  /** A database as an earlier version left it: every secret plain. */
  beforeEach(async () => {
    database = await createDatabase(engine);
    const db = await openDatabase(database.target);
    try {
      const account = await db.transaction((tx) => createAccount(tx, systemClock, { name: 'Old', email: 'old@example.com' }));
      accountId = account.id;
      const now = Math.floor(Date.now() / 1000);
      await db.run(
        `INSERT INTO webhook_endpoints (id, account_id, url, enabled_events, status, metadata, secret, previous_secret, previous_secret_expires_at, created)
         VALUES (?, ?, 'https://example.com/h', '["*"]', 'enabled', '{}', ?, ?, ?, ?)`,
        ['we_plain0000000000000000001', accountId, plain.webhook, plain.previous, Date.now() + 3_600_000, now],
      );
      await db.run('INSERT INTO signing_keys (id, account_id, secret, created) VALUES (?, ?, ?, ?)', ['hmk_plain000000000000000001', accountId, plain.signing, now]);
      await db.run(
        `INSERT INTO payment_intents (id, account_id, amount, currency, capture_method, status, metadata, created, client_secret)
         VALUES (?, ?, 2000, 'usd', 'automatic', 'requires_payment_method', '{}', ?, ?)`,
        ['pi_plain000000000000000001', accountId, now, plain.clientSecret],
      );
      await db.run(
        `INSERT INTO setup_intents (id, account_id, status, usage, payment_method_types, metadata, client_secret, created)
         VALUES (?, ?, 'requires_payment_method', 'off_session', '["card"]', '{}', ?, ?)`,
        ['seti_plain000000000000000001', accountId, plain.setupClientSecret, now],
      );
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      const pub = await exportJWK(publicKey);
      const kid = await calculateJwkThumbprint(pub);
      await db.run(
        'INSERT INTO token_signing_keys (kid, algorithm, private_jwk, public_jwk, created, superseded) VALUES (?, ?, ?, ?, ?, NULL)',
        [kid, 'ES256', JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'ES256' }), JSON.stringify({ ...pub, kid }), now],
      );
    } finally {
      await db.close();
    }
  });
  afterEach(() => database.drop());

  /** A request signed with the signing key's plain secret, to an API process over the database. */
  async function signedStatus(url: string): Promise<number> {
    const signed = signRequest(
      { method: 'GET', url: `${url}/v1/customers`, headers: {} },
      { keyId: 'hmk_plain000000000000000001', secret: plain.signing, created: Math.floor(Date.now() / 1000) },
    );
    return (await send(signed)).status;
  }

  it('seals the plain secrets at start; the rotation command seals them again under the new key, after which the old key alone is refused', async function () {
    this.timeout(180_000);
    const testKeyId = secretsKeyId(TEST_SECRETS_KEY);
    const api = await startApiProcess(database.target, { ...TEST_SECRETS_ENV, LOG_LEVEL: 'info' });
    try {
      expect(await signedStatus(api.url), 'the secret, sealed at start, still verifies').to.equal(200);
      expect(api.output()).to.include('stored secrets sealed');
    } finally {
      await api.stop();
    }
    expect(await keyIdsOf(database)).to.deep.equal({
      'webhook_endpoints.secret': [testKeyId],
      'webhook_endpoints.previous_secret': [testKeyId],
      'signing_keys.secret': [testKeyId],
      'token_signing_keys.private_jwk': [testKeyId],
      'payment_intents.client_secret': [testKeyId],
      'setup_intents.client_secret': [testKeyId],
    });

    const env = { ...databaseEnv(database.target), ...NEW_KEY_ENV, SECRETS_KEY_PREVIOUS: TEST_SECRETS_ENV.SECRETS_KEY };
    const rotated = await rotateSecrets(env);
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect(rotated.stdout).to.include('sealed 6 stored secrets again');
    expect(rotated.stdout).to.include('SECRETS_KEY_PREVIOUS can be removed');
    const newKeyId = secretsKeyId(NEW_KEY);
    for (const ids of Object.values(await keyIdsOf(database))) expect(ids).to.deep.equal([newKeyId]);
    const db = await openDatabase(database.target);
    const setupIntent = await db.one<{ id: string; client_secret: string }>('SELECT id, client_secret FROM setup_intents');
    await db.close();
    expect(
      new SecretBox(NEW_KEY).open(setupIntent!.client_secret, { table: 'setup_intents', column: 'client_secret', row: setupIntent!.id }),
      "the setup intent's client secret, sealed again, opens under the new key",
    ).to.equal(plain.setupClientSecret);
    expect((await rotateSecrets(env)).stdout, 'a second run has nothing left to do').to.include('sealed 0 stored secrets again');

    const oldKeyOnly = await runMain({ ...databaseEnv(database.target), ...TEST_SECRETS_ENV });
    expect(oldKeyOnly.code).to.equal(1);
    expect(oldKeyOnly.stderr.trim()).to.match(
      new RegExp(`^payments-api: cannot seal the stored secrets: \\S+ of \\S+ is sealed under secrets key ${newKeyId}, which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS`),
    );
    const newKeyOnly = await startApiProcess(database.target, NEW_KEY_ENV);
    try {
      expect(await signedStatus(newKeyOnly.url), 'the secret, sealed under the new key, still verifies').to.equal(200);
    } finally {
      await newKeyOnly.stop();
    }
  });
});
