import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { ApiClient } from '../helpers/api-client.js';
import { startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { RawConnection, requestHead } from '../helpers/raw-http.js';
import { useTestServer } from '../helpers/test-server.js';
import { bearer, nextValue } from '../graphql/live-events.js';

const API_KEY = 'sk_test_slowclients0123456789';
const AUTHORIZATION: [string, string] = ['Authorization', `Bearer ${API_KEY}`];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
/** Every timeout of the real API process, in seconds (the unit of its settings): each bound is waited out once, there. */
const TIMEOUT_SECONDS = 1;
/**
 * The timeouts of the in-process servers: headers and body half a second, so that the tests that
 * wait them out are quick while an answer that must come first (a 401, a 100 Continue) still has
 * room on a busy machine; keep-alive a whole second, the unit in which `Keep-Alive` announces it;
 * Node's backstop a second after headers and body, still behind the app's 408.
 */
const SHORT_TIMEOUTS = { headersMs: 500, bodyMs: 500, keepAliveMs: 1000, backstopMarginMs: 1000 };
/** How long a test waits for what must happen before it fails: a bound against hanging, never a measurement. */
const BOUND_MS = 15_000;

/** The REST error envelope, checked whole: type, code, a message, and the response's request id. */
function expectEnvelope(
  res: { status: number; headers: Record<string, string>; body: string },
  status: number,
  code: string,
  type: string,
) {
  expect(res.status, res.body).to.equal(status);
  expect(res.headers['content-type']).to.match(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(body).to.deep.equal({
    error: {
      type,
      code,
      message: body.error.message,
      request_id: res.headers['request-id'],
      ...(body.error.param ? { param: body.error.param } : {}),
    },
  });
  expect(body.error.request_id).to.match(/^req_/);
  return body.error as { message: string; param?: string };
}

// The server is built by the composition root as `npm start` builds it, with short timeouts; the
// settings that set them in a real process are proven after this, each bound waited out once.
forEachDatabase('slow and hostile clients (the HTTP server, short timeouts)', (engine) => {
  const server = useTestServer(engine, { httpTimeouts: SHORT_TIMEOUTS }, { per: 'suite' });
  const open: RawConnection[] = [];
  const connect = async () => {
    const connection = await RawConnection.open(server.url);
    open.push(connection);
    return connection;
  };
  /** The `Authorization` header of the server's first account. */
  const authorization = (): [string, string] => ['Authorization', `Bearer ${server.apiKeys.first}`];

  afterEach(() => open.splice(0).forEach((connection) => connection.destroy()));

  describe('bodies that never arrive', () => {
    it('refuses a declared Content-Length over 1 MB with 413 before reading it, then closes the stalled connection', async () => {
      const connection = await connect();
      connection.write(
        requestHead('POST', '/v1/customers', [
          authorization(),
          JSON_TYPE,
          ['Content-Length', '2097152'],
        ]) + '{',
      );
      expectEnvelope(
        await connection.response(BOUND_MS),
        413,
        'request_too_large',
        'invalid_request_error',
      );
      // The rest of the body never comes: the body timer hangs up.
      await connection.closedWithin(BOUND_MS);
    });

    it("refuses the same without credentials with 413, and in GraphQL's shape on /graphql", async () => {
      const rest = await connect();
      rest.write(
        requestHead('POST', '/v1/customers', [JSON_TYPE, ['Content-Length', '2097152']]) + '{',
      );
      expect((await rest.response(BOUND_MS)).status).to.equal(413);

      const graphql = await connect();
      graphql.write(
        requestHead('POST', '/graphql', [authorization(), JSON_TYPE, ['Content-Length', '2097152']]) +
          '{',
      );
      const res = await graphql.response(BOUND_MS);
      expect(res.status).to.equal(413);
      expect(JSON.parse(res.body).errors[0].extensions.code).to.equal('request_too_large');
    });

    it('answers 401 to missing or wrong credentials without waiting for the body', async () => {
      const cases: Array<{ path: string; headers: Array<[string, string]>; code: string }> = [
        { path: '/v1/customers', headers: [], code: 'api_key_missing' },
        {
          path: '/v1/customers',
          headers: [['Authorization', 'Bearer sk_test_wrongwrongwrongwrong']],
          code: 'api_key_invalid',
        },
        {
          path: '/customers',
          headers: [['Accept', 'application/vnd.api.v1+json']],
          code: 'api_key_missing',
        },
        {
          path: '/admin/accounts',
          headers: [['Authorization', `Basic ${Buffer.from('admin:guess').toString('base64')}`]],
          code: 'admin_credentials_invalid',
        },
        { path: '/v1/no_such_thing', headers: [], code: 'api_key_missing' },
      ];
      for (const { path, headers, code } of cases) {
        const connection = await connect();
        // 100 bytes announced, 10 sent: a server that waited for the rest would answer 408 instead.
        connection.write(
          requestHead('POST', path, [...headers, JSON_TYPE, ['Content-Length', '100']]) +
            '{"email":',
        );
        expectEnvelope(await connection.response(BOUND_MS), 401, code, 'authentication_error');
      }
    });

    it('answers Expect: 100-continue with the refusal when credentials are wrong, and with 100 Continue when they are right', async () => {
      const refused = await connect();
      refused.write(
        requestHead('POST', '/v1/customers', [JSON_TYPE, ['Expect', '100-continue'], ['Content-Length', '25']]),
      );
      // The first thing the client hears is the 401, so it never sends the body.
      expectEnvelope(await refused.response(BOUND_MS), 401, 'api_key_missing', 'authentication_error');

      const invited = await connect();
      invited.write(
        requestHead('POST', '/v1/users', [authorization(), JSON_TYPE, ['Expect', '100-continue'], ['Content-Length', '25']]),
      );
      expect((await invited.response(BOUND_MS)).status).to.equal(100);
      invited.write('{"email":"a@example.com"}');
      const created = await invited.response(BOUND_MS);
      expect(created.status).to.equal(200);
      expect(JSON.parse(created.body)).to.include({ object: 'user', email: 'a@example.com' });
    });

    it("answers 401 in GraphQL's shape on /graphql without waiting for the body", async () => {
      const connection = await connect();
      connection.write(
        requestHead('POST', '/graphql', [JSON_TYPE, ['Content-Length', '100']]) + '{"query":',
      );
      const res = await connection.response(BOUND_MS);
      expect(res.status).to.equal(401);
      expect(JSON.parse(res.body).errors[0].extensions).to.deep.equal({
        code: 'UNAUTHENTICATED',
        reason: 'api_key_missing',
      });
    });

    it('keeps the connection of a refused request whose body was sent in full', async () => {
      const connection = await connect();
      const body = '{"email":"a@example.com"}';
      connection.write(
        requestHead('POST', '/v1/customers', [JSON_TYPE, ['Content-Length', String(body.length)]]) +
          body,
      );
      expect((await connection.response(BOUND_MS)).status).to.equal(401);
      connection.write(requestHead('GET', '/healthz', []));
      expect((await connection.response(BOUND_MS)).status).to.equal(200);
    });

    it('answers 408 request_timeout in the envelope, with Connection: close, to a client that stalls its body', async () => {
      const connection = await connect();
      connection.write(
        requestHead('POST', '/v1/customers', [authorization(), JSON_TYPE, ['Content-Length', '50']]) +
          '{"ema',
      );
      const res = await connection.response(BOUND_MS);
      const error = expectEnvelope(res, 408, 'request_timeout', 'invalid_request_error');
      expect(error.message).to.include(`${SHORT_TIMEOUTS.bodyMs / 1000} s`);
      expect(res.headers.connection).to.equal('close');
      await connection.closedWithin(BOUND_MS);
      // Nothing was created from the half body.
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal(
        [],
      );
    });

    it('answers 408 to a chunked body that stops coming', async () => {
      const connection = await connect();
      connection.write(
        requestHead('POST', '/v1/customers', [
          authorization(),
          JSON_TYPE,
          ['Transfer-Encoding', 'chunked'],
        ]) + '5\r\n{"ema\r\n',
      );
      expectEnvelope(
        await connection.response(BOUND_MS),
        408,
        'request_timeout',
        'invalid_request_error',
      );
      await connection.closedWithin(BOUND_MS);
    });

    it("answers 408 in GraphQL's shape to a /graphql body that stalls", async () => {
      const connection = await connect();
      connection.write(
        requestHead('POST', '/graphql', [authorization(), JSON_TYPE, ['Content-Length', '60']]) +
          '{"query":',
      );
      const res = await connection.response(BOUND_MS);
      expect(res.status).to.equal(408);
      expect(res.headers.connection).to.equal('close');
      const { errors } = JSON.parse(res.body);
      expect(errors[0].extensions).to.include({
        code: 'request_timeout',
        type: 'invalid_request_error',
        requestId: res.headers['request-id'],
      });
      await connection.closedWithin(BOUND_MS);
    });
  });

  describe('headers and idle connections', () => {
    it('disconnects a client that never finishes its headers', async () => {
      const connection = await connect();
      connection.write('POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ');
      await connection.closedWithin(BOUND_MS);
    });

    it('disconnects a client that opens a connection and sends nothing', async () => {
      const connection = await connect();
      await connection.closedWithin(BOUND_MS);
    });

    it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
      const connection = await connect();
      connection.write(requestHead('GET', '/healthz', []));
      const res = await connection.response(BOUND_MS);
      expect(res.status).to.equal(200);
      expect(res.headers['keep-alive']).to.equal(`timeout=${SHORT_TIMEOUTS.keepAliveMs / 1000}`);
      await connection.closedWithin(BOUND_MS);
    });
  });

  describe('repeated headers', () => {
    it('refuses two Authorization headers with 400 naming Authorization, even when both are valid', async () => {
      for (const second of [`Bearer ${server.apiKeys.first}`, 'Bearer sk_test_someoneelse000000000']) {
        const connection = await connect();
        connection.write(
          requestHead('GET', '/v1/customers', [authorization(), ['authorization', second]]),
        );
        const error = expectEnvelope(
          await connection.response(BOUND_MS),
          400,
          'parameter_invalid',
          'invalid_request_error',
        );
        expect(error.param).to.equal('Authorization');
        expect(error.message).to.match(/^Send one Authorization header/);
      }
    });

    it('refuses two Idempotency-Key headers with 400 naming Idempotency-Key, and creates nothing', async () => {
      const connection = await connect();
      const body = '{"email":"twice@example.com"}';
      const headers: Array<[string, string]> = [
        authorization(),
        JSON_TYPE,
        ['Idempotency-Key', 'key-a'],
        ['Idempotency-Key', 'key-b'],
        ['Content-Length', String(body.length)],
      ];
      connection.write(requestHead('POST', '/v1/customers', headers) + body);
      const error = expectEnvelope(
        await connection.response(BOUND_MS),
        400,
        'parameter_invalid',
        'invalid_request_error',
      );
      expect(error.param).to.equal('Idempotency-Key');
      const customers = await server.api.get('/v1/customers');
      expect(customers.body.data.map((c: { email: string }) => c.email)).to.not.include(
        'twice@example.com',
      );
    });

    it("refuses two Authorization headers on /graphql in GraphQL's shape", async () => {
      const connection = await connect();
      const body = '{"query":"{ __typename }"}';
      connection.write(
        requestHead('POST', '/graphql', [
          authorization(),
          authorization(),
          JSON_TYPE,
          ['Content-Length', String(body.length)],
        ]) + body,
      );
      const res = await connection.response(BOUND_MS);
      expect(res.status).to.equal(400);
      expect(JSON.parse(res.body).errors[0].extensions).to.include({
        code: 'parameter_invalid',
        param: 'Authorization',
      });
    });
  });

  // The HTTP server's timers, not the database, decide this: one engine proves it, and the wait
  // (past every timeout) is not paid twice.
  if (engine === 'sqlite') describe('GraphQL subscriptions', () => {
    let client: Client | undefined;
    afterEach(async () => {
      await client?.dispose();
    });

    it('keep their WebSocket open past every HTTP timeout, and still receive events', async function () {
      this.timeout(60_000);
      client = createClient({
        url: server.wsUrl,
        webSocketImpl: WebSocket,
        connectionParams: bearer(server.apiKeys.first),
        retryAttempts: 0,
        lazy: false,
      });
      let closed: unknown;
      client.on('closed', (event) => (closed = event));
      const events = client.iterate<{ events: { type: string } }>({
        query: 'subscription { events { type } }',
      });
      const first = nextValue(events, BOUND_MS * 2);
      // Longer than the headers, body and keep-alive timeouts (Node adds a second to keep-alive) and
      // Node's request-timeout backstop (headers + body + margin), with the socket idle the whole time.
      const { headersMs, bodyMs, keepAliveMs, backstopMarginMs } = SHORT_TIMEOUTS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(headersMs + bodyMs + backstopMarginMs, keepAliveMs + 1000) + 1500));
      expect(closed, 'the WebSocket was closed').to.equal(undefined);
      const created = await server.api.post('/v1/customers', {
        email: 'live@example.com',
      });
      expect(created.status).to.equal(200);
      expect((await first).data!.events.type).to.equal('customer.created');
    });
  });
});

// The HTTP server's timers, not the database, decide these: one engine proves each setting.
describe('slow clients of a real API process, cut off by the timeouts of its settings [sqlite]', () => {
  let database: TestDatabase;
  let api: ApiProcess;
  const open: RawConnection[] = [];
  const connect = async () => {
    const connection = await RawConnection.open(api.url);
    open.push(connection);
    return connection;
  };

  before(async function () {
    requireProcesses(this);
    this.timeout(60_000);
    database = await createDatabase('sqlite');
    api = await startApiProcess(database.target, {
      BOOTSTRAP_API_KEY: API_KEY,
      HTTP_HEADERS_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      HTTP_BODY_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
    });
  });
  afterEach(() => open.splice(0).forEach((connection) => connection.destroy()));
  after(async () => {
    await api?.stop();
    await database?.drop();
  });

  it('disconnects a client that never finishes its headers (HTTP_HEADERS_TIMEOUT_SECONDS)', async () => {
    const connection = await connect();
    connection.write('POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ');
    await connection.closedWithin(BOUND_MS);
  });

  it('answers 408 request_timeout, naming the time allowed, to a client that stalls its body (HTTP_BODY_TIMEOUT_SECONDS)', async () => {
    const connection = await connect();
    connection.write(
      requestHead('POST', '/v1/customers', [AUTHORIZATION, JSON_TYPE, ['Content-Length', '50']]) +
        '{"ema',
    );
    const res = await connection.response(BOUND_MS);
    const error = expectEnvelope(res, 408, 'request_timeout', 'invalid_request_error');
    expect(error.message).to.include(`${TIMEOUT_SECONDS} s`);
    expect(res.headers.connection).to.equal('close');
    await connection.closedWithin(BOUND_MS);
    expect((await new ApiClient(api.url, API_KEY).get('/v1/customers')).body.data).to.deep.equal([]);
  });

  it('announces the keep-alive timeout and closes an idle connection after it (HTTP_KEEP_ALIVE_TIMEOUT_SECONDS)', async () => {
    const connection = await connect();
    connection.write(requestHead('GET', '/healthz', []));
    const res = await connection.response(BOUND_MS);
    expect(res.status).to.equal(200);
    expect(res.headers['keep-alive']).to.equal(`timeout=${TIMEOUT_SECONDS}`);
    await connection.closedWithin(BOUND_MS);
  });
});
