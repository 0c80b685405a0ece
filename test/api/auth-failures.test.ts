import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { bearer, refusalOf, subscriptionClient } from '../graphql/live-events.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { startApiProcessesInTurn, type ApiProcess } from '../helpers/api-process.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { ADMIN, startTestServer, type TestServer } from '../helpers/test-server.js';

/** Five failures a minute per address: few enough to spend in a test, a window too long to renew during one. */
const ALLOWANCE = { points: 5, durationSeconds: 60 };

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
const RIGHT_ADMIN = basic(ADMIN.user, ADMIN.password);
const ACCOUNT = { name: 'Guessed', email: 'guessed@example.com' };

/** A different wrong API key each time: a per-key limit would never see the same one twice. */
let guesses = 0;
function wrongKey(): string {
  return `sk_test_guess${String(guesses++).padStart(24, '0')}`;
}

/** The refusal of an address over its allowance: 429, `Retry-After` within the window, the envelope. */
function expectBlocked(res: ApiResponse, windowSeconds = ALLOWANCE.durationSeconds): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter), `Retry-After ${retryAfter}`).to.equal(true);
  expect(retryAfter).to.be.within(1, windowSeconds);
  expect(res.body).to.deep.equal({
    error: {
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: res.body.error.message,
      request_id: res.headers.get('request-id'),
    },
  });
  expect(res.body.error.message).to.match(
    /^Too many failed authentication attempts from your address/,
  );
}

forEachDatabase('failed authentications per client address', (engine) => {
  let server: TestServer;
  const servers: TestServer[] = [];
  const clients: Client[] = [];
  /** A test server with these limits, closed after the test. */
  const start = async (options: Parameters<typeof startTestServer>[1] = {}) => {
    server = await startTestServer(engine, options);
    servers.push(server);
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  const admin = (authorization: string) =>
    server.anonymous.post('/admin/accounts', ACCOUNT, {
      headers: { Authorization: authorization },
    });
  const withKey = (apiKey: string) => new ApiClient(server.url, apiKey).get('/v1/customers');

  describe('admin HTTP Basic', () => {
    beforeEach(async () => {
      await start({ authFailures: ALLOWANCE });
    });

    it('answers 401 to the allowed wrong passwords, then 429, then 429 even to the right password', async () => {
      for (let i = 0; i < ALLOWANCE.points; i++) {
        expect((await admin(basic(ADMIN.user, `guess-${i}`))).status).to.equal(401);
      }
      expectBlocked(await admin(basic(ADMIN.user, 'one-more-guess')));
      expectBlocked(await admin(RIGHT_ADMIN));
      // The whole address is refused, API keys included.
      expectBlocked(await server.api.get('/v1/customers'));
    });
  });

  describe('API keys', () => {
    beforeEach(async () => {
      await start({ authFailures: ALLOWANCE });
    });

    it('counts every wrong key against the address, then refuses even the right key on REST, GraphQL and WebSocket', async () => {
      for (let i = 0; i < ALLOWANCE.points; i++)
        expect((await withKey(wrongKey())).status).to.equal(401);
      expectBlocked(await withKey(wrongKey()));
      expectBlocked(await server.api.get('/v1/customers'));
      // A body is not read either.
      expectBlocked(await server.api.post('/v1/customers', { email: 'a@example.com' }));

      const graphql = await server.api.post('/graphql', { query: '{ __typename }' });
      expect(graphql.status).to.equal(429);
      expect(Number(graphql.headers.get('retry-after'))).to.be.within(1, ALLOWANCE.durationSeconds);
      expect(graphql.body.errors[0].extensions).to.include({
        code: 'rate_limited',
        type: 'rate_limit_error',
      });

      const ws = subscriptionClient(server.wsUrl, bearer(server.apiKeys.first));
      clients.push(ws);
      const refusal = await refusalOf(ws);
      expect(refusal.code).to.equal(4429);
      expect(refusal.reason).to.match(/^Too many failed authentication attempts/);
    });

    it('counts wrong keys sent to /graphql and in WebSocket connection_init alike', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await new ApiClient(server.url, wrongKey()).post('/graphql', {
          query: '{ __typename }',
        });
        expect(res.status).to.equal(401);
      }
      for (let i = 0; i < ALLOWANCE.points - 2; i++) {
        const ws = subscriptionClient(server.wsUrl, bearer(wrongKey()));
        clients.push(ws);
        expect((await refusalOf(ws)).code).to.equal(4403);
      }
      expectBlocked(await server.api.get('/v1/customers'));
    });

    it('does not count requests without credentials, nor accepted ones', async () => {
      for (let i = 0; i < ALLOWANCE.points * 2; i++) {
        expect((await server.anonymous.get('/v1/customers')).status).to.equal(401);
        expect((await server.api.get('/v1/customers')).status).to.equal(200);
      }
      for (let i = 0; i < ALLOWANCE.points; i++)
        expect((await withKey(wrongKey())).status).to.equal(401);
      expectBlocked(await server.api.get('/v1/customers'));
    });

    it('acknowledges a WebSocket connection_init with the right key while the address is within its allowance', async () => {
      await new Promise<void>((resolve, reject) => {
        const client: Client = createClient({
          url: server.wsUrl,
          webSocketImpl: WebSocket,
          connectionParams: bearer(server.apiKeys.first),
          retryAttempts: 0,
          lazy: false,
          on: {
            connected: () => resolve(),
            closed: (event) => reject(new Error(`closed: ${JSON.stringify(event)}`)),
          },
        });
        clients.push(client);
      });
    });

    it('does not take X-Forwarded-For from a client when no proxy is trusted', async () => {
      for (let i = 0; i < ALLOWANCE.points; i++) {
        const res = await new ApiClient(server.url, wrongKey()).get('/v1/customers', {
          headers: { 'X-Forwarded-For': `198.51.100.${i}` },
        });
        expect(res.status).to.equal(401);
      }
      expectBlocked(
        await server.api.get('/v1/customers', { headers: { 'X-Forwarded-For': '198.51.100.200' } }),
      );
    });
  });

  describe('behind a trusted proxy (TRUST_PROXY=1)', () => {
    beforeEach(async () => {
      await start({ authFailures: ALLOWANCE, trustProxyHops: 1 });
    });

    it('counts per address the proxy saw', async () => {
      const from = (address: string) => ({
        headers: { 'X-Forwarded-For': `10.9.9.9, ${address}` },
      });
      for (let i = 0; i < ALLOWANCE.points; i++) {
        expect(
          (await new ApiClient(server.url, wrongKey()).get('/v1/customers', from('203.0.113.7')))
            .status,
        ).to.equal(401);
      }
      expectBlocked(await server.api.get('/v1/customers', from('203.0.113.7')));
      expect((await server.api.get('/v1/customers', from('203.0.113.8'))).status).to.equal(200);
    });
  });

  describe('the window', () => {
    const SHORT = { points: 2, durationSeconds: 2 };
    beforeEach(async () => {
      await start({ authFailures: SHORT });
    });

    it('lets the address in again once its window has passed', async function () {
      this.timeout(30_000);
      for (let i = 0; i < SHORT.points; i++)
        expect((await withKey(wrongKey())).status).to.equal(401);
      expectBlocked(await server.api.get('/v1/customers'), SHORT.durationSeconds);
      await eventually(
        async () => expect((await server.api.get('/v1/customers')).status).to.equal(200),
        10_000,
      );
    });
  });

  describe('off by default in tests', () => {
    beforeEach(async () => {
      await start();
    });

    it('answers 401 to every wrong key, however many', async () => {
      for (let i = 0; i < ALLOWANCE.points * 3; i++)
        expect((await withKey(wrongKey())).status).to.equal(401);
      expect((await server.api.get('/v1/customers')).status).to.equal(200);
    });
  });

  // SQLite serves one API process; over Postgres the processes share one count per address.
  if (engine === 'postgres') {
    describe('across API processes', () => {
      const apiKey = 'sk_test_authfailscaleout0000';
      let database: TestDatabase;
      const processes: ApiProcess[] = [];
      afterEach(async () => {
        await Promise.all(processes.splice(0).map((p) => p.stop()));
        await database?.drop();
      });

      it('two processes share the count: failures spread over both, then both refuse, /metrics included', async function () {
        this.timeout(90_000);
        database = await createDatabase('postgres');
        const env = { BOOTSTRAP_API_KEY: apiKey, AUTH_FAILURES_PER_MINUTE: '4' };
        const [a, b] = await startApiProcessesInTurn(database.target, env, 2, processes);
        const metrics = (url: string, authorization: string) =>
          fetch(`${url}/metrics`, { headers: { Authorization: authorization } });

        // Four failures, two per process, by four doors: API key, admin Basic, /metrics Basic, GraphQL.
        expect((await new ApiClient(a.url, wrongKey()).get('/v1/customers')).status).to.equal(401);
        const wrongAdmin = await new ApiClient(b.url).post('/admin/accounts', ACCOUNT, {
          headers: { Authorization: basic('admin', 'x') },
        });
        expect(wrongAdmin.status).to.equal(401);
        expect((await metrics(a.url, basic('admin', 'y'))).status).to.equal(401);
        expect(
          (await new ApiClient(b.url, wrongKey()).post('/graphql', { query: '{ __typename }' }))
            .status,
        ).to.equal(401);

        for (const process of [a, b]) {
          expectBlocked(await new ApiClient(process.url, apiKey).get('/v1/customers'));
          const scrape = await metrics(process.url, RIGHT_ADMIN);
          expect(scrape.status).to.equal(429);
          expect(((await scrape.json()) as { error: { code: string } }).error.code).to.equal(
            'rate_limited',
          );
        }
      });
    });
  }
});
