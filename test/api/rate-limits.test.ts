import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { bearer, refusalOf, rejectionOf, subscriptionClient } from '../graphql/live-events.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { startApiProcessesInTurn, type ApiProcess } from '../helpers/api-process.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { useTestServer } from '../helpers/test-server.js';

/** Three requests per two seconds: small enough to spend in a few requests, short enough to wait out. */
const WINDOW = { points: 3, durationSeconds: 2 };
/** Far more requests than any allowance in this file: a loop that never sees a 429 fails instead of spinning. */
const MAX_REQUESTS = 50;

/**
 * Sends `send()` until it is refused with 429 and returns every response, the 429 last. The
 * successes just before it are the ones its window let through (earlier ones may belong to a
 * window that ended meanwhile).
 */
async function untilRefused(send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const responses: ApiResponse[] = [];
  while (responses.length < MAX_REQUESTS) {
    const res = await send();
    responses.push(res);
    if (res.status === 429) return responses;
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }
  throw new Error(`no 429 after ${MAX_REQUESTS} requests`);
}

/** `RateLimit-Remaining` of the `count` successes that came right before the 429, oldest first. */
function remainingBeforeRefusal(responses: ApiResponse[], count: number): number[] {
  return responses.slice(-1 - count, -1).map((res) => Number(res.headers.get('ratelimit-remaining')));
}

function expectRateLimitHeaders(res: ApiResponse, remaining: number): void {
  expect(res.headers.get('ratelimit-limit')).to.equal(String(WINDOW.points));
  expect(res.headers.get('ratelimit-remaining')).to.equal(String(remaining));
  expect(res.headers.get('ratelimit-policy')).to.equal(`${WINDOW.points};w=${WINDOW.durationSeconds}`);
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(Number.isInteger(reset), `RateLimit-Reset ${reset}`).to.equal(true);
  expect(reset).to.be.within(0, WINDOW.durationSeconds);
}

function expectNoRateLimitHeaders(res: ApiResponse): void {
  expect(res.headers.get('ratelimit-limit')).to.equal(null);
  expect(res.headers.get('ratelimit-remaining')).to.equal(null);
}

/** A 429's `Retry-After`: whole seconds, at least one, at most the window. */
function retryAfterOf(res: ApiResponse): number {
  const seconds = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(seconds), `Retry-After ${seconds}`).to.equal(true);
  expect(seconds).to.be.within(1, WINDOW.durationSeconds);
  return seconds;
}

forEachDatabase('rate limits', (engine) => {
  const server = useTestServer(engine, { rateLimit: WINDOW });

  describe('a key that spent its allowance', () => {
    it('is refused with 429, the error envelope, Retry-After and RateLimit headers', async () => {
      const responses = await untilRefused(() => server.api.get('/v1/charges?limit=1'));
      expect(remainingBeforeRefusal(responses, WINDOW.points)).to.deep.equal([2, 1, 0]);
      responses.slice(-1 - WINDOW.points, -1).forEach((res, i) => expectRateLimitHeaders(res, 2 - i));

      const refused = responses.at(-1)!;
      expect(refused.body).to.deep.equal({
        error: {
          type: 'rate_limit_error',
          code: 'rate_limited',
          message: refused.body.error.message,
          request_id: refused.headers.get('request-id'),
        },
      });
      expect(refused.body.error.message).to.match(/^Too many requests with this credential: the limit is 3 per 2 seconds\./);
      retryAfterOf(refused);
      expectRateLimitHeaders(refused, 0);
    });

    it('is refused on every operation and on unprefixed versioned paths, before the body is read', async () => {
      await untilRefused(() => server.api.get('/v1/charges?limit=1'));
      const versioned = await server.api.get('/charges?limit=1', { headers: { Accept: 'application/vnd.api.v1+json' } });
      expect(versioned.status).to.equal(429);
      expect(versioned.body.error.code).to.equal('rate_limited');
      // An invalid body would be a 400 once read; the refusal comes first.
      const post = await server.api.post('/v1/customers', { email: 42, unknown_field: true });
      expect(post.status).to.equal(429);
      expect(post.body.error.code).to.equal('rate_limited');
    });

    it('leaves other keys their own allowance', async () => {
      await untilRefused(() => server.api.get('/v1/charges?limit=1'));
      const other = await server.otherApi.get('/v1/charges?limit=1');
      expect(other.status).to.equal(200);
      expectRateLimitHeaders(other, WINDOW.points - 1);
      expect((await server.api.get('/v1/charges?limit=1')).status).to.equal(429);
    });

    it('is served again once the window has passed', async function () {
      this.timeout(20_000);
      await untilRefused(() => server.api.get('/v1/charges?limit=1'));
      await eventually(async () => expect((await server.api.get('/v1/charges?limit=1')).status).to.equal(200), 10_000);
    });

    it('retries a refused POST with the same Idempotency-Key and creates the charge once', async function () {
      this.timeout(20_000);
      const charge = { amount: 1500, currency: 'usd', source: 'tok_visa' };
      await untilRefused(() => server.api.get('/v1/charges?limit=1'));
      const refused = await server.api.post('/v1/charges', charge, { idempotencyKey: 'order-429' });
      expect(refused.status).to.equal(429);

      let created: ApiResponse | undefined;
      await eventually(async () => {
        created = await server.api.post('/v1/charges', charge, { idempotencyKey: 'order-429' });
        expect(created.status).to.equal(200);
      }, 10_000);
      // The 429 was not stored as the key's response: the retry ran the request, and its response is the one kept.
      expect(created!.headers.get('idempotent-replayed')).to.equal(null);
      // The new window's allowance covers these two requests as well.
      const replay = await server.api.post('/v1/charges', charge, { idempotencyKey: 'order-429' });
      expect(replay.status).to.equal(200);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body.id).to.equal(created!.body.id);
      const charges = await server.api.get('/v1/charges?limit=100');
      expect(charges.body.data.map((c: { id: string }) => c.id)).to.deep.equal([created!.body.id]);
    });
  });

  describe('what is not limited', () => {
    it('requests without credentials: 401 every time, never 429, no RateLimit headers', async () => {
      for (let i = 0; i < WINDOW.points * 2; i++) {
        const res = await server.anonymous.get('/v1/charges');
        expect(res.status).to.equal(401);
        expectNoRateLimitHeaders(res);
      }
    });

    it('health checks and /admin, even with an Authorization header', async () => {
      await untilRefused(() => server.api.get('/v1/charges?limit=1'));
      const authorization = `Bearer ${server.api.apiKey}`;
      for (let i = 0; i < WINDOW.points * 2; i++) {
        const health = await fetch(`${server.url}/healthz`, { headers: { Authorization: authorization } });
        expect(health.status).to.equal(200);
        expect(health.headers.get('ratelimit-limit')).to.equal(null);
        const admin = new ApiClient(server.url);
        const res = await admin.post('/admin/accounts', { name: 'x', email: 'x@example.com' }, {
          headers: { Authorization: `Basic ${Buffer.from('admin:wrong').toString('base64')}` },
        });
        expect(res.status).to.equal(401);
        expectNoRateLimitHeaders(res);
      }
    });
  });

  describe('/graphql', () => {
    const query = { query: '{ __typename }' };
    const graphql = (api: ApiClient) => api.post('/graphql', query);

    it('shares the key allowance with REST and refuses in GraphQL shape with the same headers', async () => {
      const first = await graphql(server.api);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.deep.equal({ data: { __typename: 'Query' } });
      expectRateLimitHeaders(first, WINDOW.points - 1);

      // The REST requests that follow count down from where the GraphQL request left the key.
      const responses = await untilRefused(() => server.api.get('/v1/charges?limit=1'));
      expectRateLimitHeaders(responses[0], WINDOW.points - 2);
      const refused = await graphql(server.api);
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('content-type')).to.match(/^application\/json/);
      expect(refused.body).to.deep.equal({
        errors: [
          {
            message: refused.body.errors[0].message,
            extensions: { code: 'rate_limited', type: 'rate_limit_error', requestId: refused.headers.get('request-id') },
          },
        ],
      });
      retryAfterOf(refused);
      expectRateLimitHeaders(refused, 0);
      expect((await graphql(server.otherApi)).status).to.equal(200);
    });
  });

  describe('GraphQL over WebSocket', () => {
    // A long window, so that the allowance cannot renew between spending it and the refusal.
    const LONG_WINDOW = { points: 3, durationSeconds: 60 };
    const clients: Client[] = [];
    // Before the server's own hook, so that the clients go before their server.
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((client) => client.dispose()));
    });
    const limited = useTestServer(engine, { rateLimit: LONG_WINDOW });

    it('counts connections and subscriptions against the key allowance, and refuses them once spent', async () => {
      const first = await connected(limited.apiKeys.first);
      // The connection took one of the three: two REST requests pass, the third is refused.
      const responses = await untilRefused(() => limited.api.get('/v1/charges?limit=1'));
      expect(responses).to.have.length(3);

      const subscription = first.iterate({ query: 'subscription { events { id } }' });
      const errors = (await rejectionOf(subscription.next())) as unknown as Array<{ message: string; extensions: { code: string } }>;
      expect(errors).to.have.length(1);
      expect(errors[0].extensions.code).to.equal('rate_limited');
      expect(errors[0].message).to.match(/^Too many requests with this credential/);

      const another = subscriptionClient(limited.wsUrl, bearer(limited.apiKeys.first));
      clients.push(another);
      const refusal = await refusalOf(another);
      expect(refusal.code).to.equal(4429);
      expect(refusal.reason).to.match(/^Too many requests with this credential/);

      // Another key has its own allowance.
      await connected(limited.apiKeys.second);
    });

    /** A client whose connection the server acknowledged (fails the test if it is closed instead). */
    async function connected(apiKey: string): Promise<Client> {
      return new Promise((resolve, reject) => {
        const client: Client = createClient({
          url: limited.wsUrl,
          webSocketImpl: WebSocket,
          connectionParams: bearer(apiKey),
          retryAttempts: 0,
          lazy: false,
          on: { connected: () => resolve(client), closed: (event) => reject(new Error(`closed: ${JSON.stringify(event)}`)) },
        });
        clients.push(client);
      });
    }
  });

  // SQLite serves one API process; over Postgres any number share one allowance per key.
  if (engine === 'postgres') {
    describe('across API processes', () => {
      const apiKey = 'sk_test_ratelimitscaleout';
      let database: TestDatabase;
      const processes: ApiProcess[] = [];
      afterEach(async () => {
        await Promise.all(processes.splice(0).map((p) => p.stop()));
        await database?.drop();
      });

      it('two processes share one allowance: requests spread over both are refused at the shared total', async function () {
        this.timeout(90_000);
        database = await createDatabase('postgres');
        // 2/s over a 3 s window: an allowance of 6 per key, counted once for both processes.
        const env = { BOOTSTRAP_API_KEY: apiKey, RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_WINDOW_SECONDS: '3' };
        const started = await startApiProcessesInTurn(database.target, env, 2, processes);
        const clients = started.map((p) => new ApiClient(p.url, apiKey));

        let sent = 0;
        const responses = await untilRefused(() => clients[sent++ % 2].get('/v1/charges?limit=1'));
        // Alternating processes counted down one shared counter; two counters would give 2,2,1,1,0,0.
        expect(remainingBeforeRefusal(responses, 6)).to.deep.equal([5, 4, 3, 2, 1, 0]);
        expect(responses.at(-1)!.headers.get('ratelimit-limit')).to.equal('6');
        expect(responses.at(-1)!.body.error.code).to.equal('rate_limited');
        // Both processes now refuse the key, while the window lasts.
        const [a, b] = await Promise.all(clients.map((client) => client.get('/v1/charges?limit=1')));
        expect([a.status, b.status]).to.deep.equal([429, 429]);
      });
    });
  }
});
