import { expect } from 'chai';
import { startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { ApiClient } from '../helpers/api-client.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { startRoundTripProxy, type RoundTripProxy } from '../helpers/round-trip-proxy.js';

const API_KEY = 'sk_test_roundtrips0000';
const CHARGE = { amount: 2000, currency: 'usd', source: 'tok_visa' };

/**
 * What a request costs in round trips to Postgres, counted on the wire by a proxy that adds a
 * network's latency: statements a transaction does not need the answer of travel with the next
 * one it waits on (src/db/postgres-transaction.ts).
 */
forEachDatabase('round trips to Postgres', (engine) => {
  if (engine !== 'postgres') return;
  let database: TestDatabase;
  let proxy: RoundTripProxy;
  let server: ApiProcess;
  let api: ApiClient;

  before(async function () {
    this.timeout(60_000);
    database = await createDatabase(engine);
    const url = new URL(database.target.kind === 'postgres' ? database.target.url : '');
    proxy = await startRoundTripProxy(Number(url.port || 5432));
    url.port = String(proxy.port);
    server = await startApiProcess({ kind: 'postgres', url: url.toString() }, { BOOTSTRAP_API_KEY: API_KEY });
    api = new ApiClient(server.url, API_KEY);
    // Every statement prepared on the pool's connections, and the request log of these flushed.
    for (let i = 0; i < 12; i++) expect((await api.post('/v1/charges', CHARGE, { idempotencyKey: `warm-${i}` })).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 600));
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
    await database?.drop();
  });

  /**
   * The fewest round trips made while `request` ran, of three tries (`request` gets the try's
   * number). The request log is written later, in a batch; but once a second a process re-reads
   * the API key's row (so that a revoked key is refused within a second), which may fall in a try.
   */
  async function roundTripsOf(request: (attempt: number) => Promise<{ status: number }>): Promise<number> {
    const counts: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      proxy.reset();
      expect((await request(attempt)).status).to.equal(200);
      counts.push(proxy.roundTrips());
    }
    return Math.min(...counts);
  }

  it('creates a charge with a fresh Idempotency-Key in at most three: the key read, the reads of the operation, the commit', async () => {
    const trips = await roundTripsOf((attempt) => api.post('/v1/charges', CHARGE, { idempotencyKey: `fresh-${attempt}` }));
    // Statement by statement, this POST is nine: the key read, BEGIN, the claim, the charge, its
    // intent, the endpoints read, the events, the key's row and COMMIT.
    expect(trips).to.be.within(1, 3);
  });

  it('replays a stored key in one', async () => {
    expect(await roundTripsOf(() => api.post('/v1/charges', CHARGE, { idempotencyKey: 'warm-0' }))).to.equal(1);
  });
});
