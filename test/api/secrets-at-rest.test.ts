import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ApiClient } from '../helpers/api-client.js';
import { createSqliteDatabase, forEachDatabase } from '../helpers/databases.js';
import { send, signRequest } from '../helpers/message-signer.js';
import { TEST_SECRET_BOX } from '../helpers/secrets-key.js';
import { ADMIN_AUTHORIZATION, useTestServer, type TestServer } from '../helpers/test-server.js';
import { openDatabase } from '../../src/db/open-database.js';
import { sqliteFiles } from '../../src/db/sqlite.js';

const run = promisify(execFile);

/** `pg_dump` of the server's major version where Debian keeps it, else the one on PATH. */
function pgDump(): string {
  const dir = '/usr/lib/postgresql';
  const versions = fs.existsSync(dir) ? fs.readdirSync(dir).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => `${dir}/${v}/bin/pg_dump`).find((file) => fs.existsSync(file));
  return found ?? 'pg_dump';
}

/** Every form a secret could be written in: as text, and its bytes in hex and base64 (and base64url). */
function formsOf(secret: string | Buffer): string[] {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  const forms = [bytes.toString('hex'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url')];
  return typeof secret === 'string' ? [secret, ...forms] : forms;
}

/** Every table of the database, every row and column, as text (what a `SELECT *` of a copy shows). */
async function everyRow(server: TestServer): Promise<string> {
  const { db } = server;
  const tables = await db.all<{ name: string }>(
    db.dialect === 'postgres'
      ? "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'"
      : "SELECT name FROM sqlite_master WHERE type = 'table'",
  );
  expect(tables.map((t) => t.name)).to.include.members(['webhook_endpoints', 'signing_keys', 'token_signing_keys']);
  const parts: string[] = [];
  for (const { name } of tables) parts.push(JSON.stringify(await db.all(`SELECT * FROM "${name}"`)));
  return parts.join('\n');
}

/** The bytes a backup of the database holds: the SQLite file with its WAL (and index), or a `pg_dump`. */
async function backupBytes(server: TestServer): Promise<Buffer> {
  const { target } = server;
  if (target.kind === 'sqlite') {
    return Buffer.concat(sqliteFiles(target.filename).filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
  }
  const { stdout } = await run(pgDump(), ['--no-owner', target.url], { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}

forEachDatabase('secrets at rest', (engine) => {
  const server = useTestServer(engine, { webhookAllowPrivateNetworks: true });
  const admin = () => new ApiClient(server.url);
  const adminHeaders = { headers: { Authorization: ADMIN_AUTHORIZATION } };

  /**
   * One secret of each kind the server must use again, each made (with an `Idempotency-Key`, whose
   * stored response holds it too) and used through the API; and the credentials it keeps hashed.
   */
  async function oneOfEach(): Promise<Record<string, string | Buffer>> {
    const endpoint = { url: 'https://example.com/hooks', enabled_events: ['*'] };
    const created = await server.api.post('/v1/webhook_endpoints', endpoint, { idempotencyKey: 'endpoint-1' });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const replayed = await server.api.post('/v1/webhook_endpoints', endpoint, { idempotencyKey: 'endpoint-1' });
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(replayed.body, 'the stored response, opened for its replay').to.deep.equal(created.body);
    const rotated = await server.api.post(
      `/v1/webhook_endpoints/${created.body.id}/rotate_secret`,
      { expires_in: 3600 },
      { idempotencyKey: 'rotate-1' },
    );
    expect(rotated.status, JSON.stringify(rotated.body)).to.equal(200);

    const signingKeys = `/admin/accounts/${server.accountIds.first}/signing_keys`;
    const key = await admin().post(signingKeys, undefined, { ...adminHeaders, idempotencyKey: 'signing-key-1' });
    expect(key.status, JSON.stringify(key.body)).to.equal(200);
    const signed = signRequest(
      { method: 'GET', url: `${server.url}/v1/customers`, headers: {} },
      { keyId: key.body.id, secret: key.body.secret, created: Math.floor(server.clock.nowMs() / 1000) },
    );
    expect((await send(signed)).status, 'a request signed with the sealed signing key').to.equal(200);

    // The token-signing key is made by the first token request; its private half is read back here
    // only through the test's own copy of the key ring.
    const clients = `/admin/accounts/${server.accountIds.first}/oauth_clients`;
    const client = await admin().post(clients, undefined, { ...adminHeaders, idempotencyKey: 'client-1' });
    expect(client.status, JSON.stringify(client.body)).to.equal(200);
    const token = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.body.id, client_secret: client.body.client_secret }),
    });
    expect(token.status).to.equal(200);
    const row = await server.db.one<{ kid: string; private_jwk: string }>('SELECT kid, private_jwk FROM token_signing_keys');
    const jwk = JSON.parse(TEST_SECRET_BOX.open(row!.private_jwk, { table: 'token_signing_keys', column: 'private_jwk', row: row!.kid }));
    expect(jwk.d).to.be.a('string');

    return {
      'webhook secret': rotated.body.secret,
      'previous webhook secret': created.body.secret,
      'signing-key secret': key.body.secret,
      'token-signing private key (d)': jwk.d,
      'token-signing private key (bytes)': Buffer.from(jwk.d, 'base64url'),
      'OAuth client secret (hashed)': client.body.client_secret,
      'API key (hashed)': server.apiKeys.first,
    };
  }

  it('keeps no secret in any table, nor in the bytes of a backup (SQLite file and WAL, or pg_dump)', async () => {
    const secrets = await oneOfEach();
    const rows = await everyRow(server);
    const bytes = await backupBytes(server);
    expect(bytes.length).to.be.greaterThan(10_000);
    for (const [what, secret] of Object.entries(secrets)) {
      for (const form of formsOf(secret)) {
        expect(rows.includes(form), `${what} (${form.slice(0, 12)}…) in a table`).to.equal(false);
        expect(bytes.includes(Buffer.from(form, 'utf8')), `${what} (${form.slice(0, 12)}…) in the backup`).to.equal(false);
      }
      if (Buffer.isBuffer(secret)) expect(bytes.includes(secret), `${what} as raw bytes in the backup`).to.equal(false);
    }
    // The values are there, sealed, each naming the key that opens it.
    const endpoint = await server.db.one<{ secret: string; previous_secret: string }>('SELECT secret, previous_secret FROM webhook_endpoints');
    expect(endpoint!.secret).to.match(new RegExp(`^sealed\\.v1\\.${TEST_SECRET_BOX.currentKeyId}\\.`));
    expect(endpoint!.previous_secret).to.match(new RegExp(`^sealed\\.v1\\.${TEST_SECRET_BOX.currentKeyId}\\.`));
  });

  if (engine === 'sqlite') {
    it('creates the database file, its WAL and its index readable by their owner only (0600)', async () => {
      await oneOfEach();
      const files = sqliteFiles(server.target.kind === 'sqlite' ? server.target.filename : '');
      for (const file of files) {
        expect(fs.existsSync(file), file).to.equal(true);
        expect((fs.statSync(file).mode & 0o777).toString(8), file).to.equal('600');
      }
    });

    it('narrows to its owner a database that an earlier version left readable by others', async () => {
      const database = createSqliteDatabase();
      const filename = database.target.kind === 'sqlite' ? database.target.filename : '';
      try {
        await (await openDatabase(database.target)).close();
        fs.chmodSync(filename, 0o644);
        fs.writeFileSync(`${filename}-wal`, '', { mode: 0o644 });
        fs.chmodSync(`${filename}-wal`, 0o644);
        const db = await openDatabase(database.target);
        await db.close();
        expect((fs.statSync(filename).mode & 0o777).toString(8)).to.equal('600');
        if (fs.existsSync(`${filename}-wal`)) expect((fs.statSync(`${filename}-wal`).mode & 0o777).toString(8)).to.equal('600');
      } finally {
        await database.drop();
      }
    });
  }
});
