import { expect } from 'chai';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open-database.js';
import { currentSigningKey, publishedKeys } from '../../src/resources/oauth/token-signing-keys.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { TEST_SECRET_BOX } from '../helpers/secrets-key.js';

const SETTINGS = { issuer: 'payments-api', ttlSeconds: 900, keyRotationSeconds: 3600 };
const T0 = 1_800_000_000;

forEachDatabase('token signing keys', (engine) => {
  let database: TestDatabase;
  /**
   * The API processes over one database: two on Postgres, each with its own pool; one on SQLite,
   * which runs a single process (two in one Node process would block each other's event loop).
   */
  let processes: Database[];
  beforeEach(async () => {
    database = await createDatabase(engine);
    const first = await openDatabase(database.target);
    processes = [first, engine === 'postgres' ? await openDatabase(database.target) : first];
  });
  afterEach(async () => {
    for (const db of new Set(processes)) await db.close();
    await database.drop();
  });
  const rows = () =>
    processes[0].all<{ kid: string; superseded: number | null }>('SELECT kid, superseded FROM token_signing_keys');

  it('makes a key on first use and signs with it until it is keyRotationSeconds old', async () => {
    const first = await currentSigningKey(processes[0], TEST_SECRET_BOX, T0, SETTINGS);
    expect((await currentSigningKey(processes[1], TEST_SECRET_BOX, T0 + SETTINGS.keyRotationSeconds - 1, SETTINGS)).kid).to.equal(
      first.kid,
    );
    const next = await currentSigningKey(processes[1], TEST_SECRET_BOX, T0 + SETTINGS.keyRotationSeconds, SETTINGS);
    expect(next.kid).to.not.equal(first.kid);
    expect(
      (await rows()).map((row) => [row.kid, row.superseded === null ? null : Number(row.superseded)]),
    ).to.have.deep.members([
      [first.kid, T0 + SETTINGS.keyRotationSeconds],
      [next.kid, null],
    ]);
  });

  it('makes one key when many requests (two processes on Postgres) find the key due at once, all published', async () => {
    const first = await currentSigningKey(processes[0], TEST_SECRET_BOX, T0, SETTINGS);
    const due = T0 + SETTINGS.keyRotationSeconds;
    // Connections opened beforehand, so that the requests below overlap rather than wait for one.
    await Promise.all(
      processes.flatMap((db) =>
        Array.from({ length: 8 }, () => db.transaction(() => new Promise((resolve) => setTimeout(resolve, 20)))),
      ),
    );
    // Each as a token request does it: inside the request's transaction.
    const used = await Promise.all(
      Array.from({ length: 16 }, (_, i) => processes[i % 2].transaction((tx) => currentSigningKey(tx, TEST_SECRET_BOX, due, SETTINGS))),
    );
    const all = await rows();
    expect(all).to.have.length(2);
    expect(all.filter((row) => row.superseded === null)).to.have.length(1);
    const published = (await publishedKeys(processes[0], due, SETTINGS)).map((key) => key.kid);
    expect(published).to.have.length(2).and.include(first.kid);
    for (const key of used) expect(published).to.include(key.kid);
    expect((await currentSigningKey(processes[0], TEST_SECRET_BOX, due, SETTINGS)).kid).to.not.equal(first.kid);
  });

  it('publishes a superseded key, after the signing one, until its last tokens expired (ttl + 30 s of skew)', async () => {
    const first = await currentSigningKey(processes[0], TEST_SECRET_BOX, T0, SETTINGS);
    const rotated = T0 + SETTINGS.keyRotationSeconds;
    const next = await currentSigningKey(processes[0], TEST_SECRET_BOX, rotated, SETTINGS);
    const kids = async (now: number) => (await publishedKeys(processes[1], now, SETTINGS)).map((key) => key.kid);
    expect(await kids(rotated + SETTINGS.ttlSeconds + 29)).to.deep.equal([next.kid, first.kid]);
    expect(await kids(rotated + SETTINGS.ttlSeconds + 30)).to.deep.equal([next.kid]);
    const [jwk] = await publishedKeys(processes[1], rotated, SETTINGS);
    expect(jwk).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: next.kid });
    expect(jwk).to.not.have.property('d');
  });
});
