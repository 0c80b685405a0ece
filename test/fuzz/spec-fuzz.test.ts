/**
 * Property-based tests from the spec: for every operation of openapi/openapi.yaml, valid
 * requests (sampled from its schemas, JSON and form-encoded) succeed, and requests broken in each
 * of the ways of spec-mutations.ts are refused cleanly: never a 5xx (the test server also turns a
 * response that does not match the spec into a 500), always the error envelope, naming the
 * parameter at fault, and nothing written.
 *
 * Bounded for `npm test`; `FUZZ_RUNS=200` runs longer, `FUZZ_SEED=<n>` replays a run (fast-check
 * prints the seed and the counterexample of a failure).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { ApiClient } from '../helpers/api-client.js';
import { forEachDatabase } from '../helpers/databases.js';
import { MUTATION_KINDS, mutatedRequest, mutationApplies } from '../helpers/spec-mutations.js';
import {
  specOperations,
  validRequest,
  type Fixture,
  type SpecRequest,
} from '../helpers/spec-requests.js';
import { aClientCertificate } from '../helpers/test-certificates.js';
import { ADMIN_AUTHORIZATION, useTestServer, type TestServer } from '../helpers/test-server.js';

/** Runs per property: each operation's valid requests, and each mutation kind on each operation. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

/** The tables a request can write to; a refused request must leave every count as it was. */
const TABLES = [
  'accounts',
  'api_keys',
  'customers',
  'charges',
  'refunds',
  'payment_intents',
  'setup_intents',
  'deleted_objects',
  'users',
  'orders',
  'events',
  'idempotency_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'oauth_clients',
  'signing_keys',
  'client_certificates',
];

const PARAMETER_CODES = ['parameter_invalid', 'parameter_missing', 'parameter_unknown'];

async function rowCounts(server: TestServer): Promise<Record<string, number>> {
  const row = await server.db.one<Record<string, number | string>>(
    `SELECT ${TABLES.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(', ')}`,
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
}

async function created(res: { status: number; body: any }, what: string): Promise<string> {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(200);
  return res.body.id as string;
}

/** The operator's credentials (HTTP Basic), for the admin operations. */
function adminHeaders(): Record<string, string> {
  return { Authorization: ADMIN_AUTHORIZATION };
}

/** Makes one object of a kind, for requests that need one of their own (a DELETE, a refund). */
async function createObject(api: ApiClient, schema: string, fixture: Fixture): Promise<string> {
  switch (schema) {
    case 'Customer':
      return created(await api.post('/v1/customers', { email: 'fuzz@example.com' }), schema);
    // The largest amount, so that any valid refund amount fits in it.
    case 'Charge':
      return created(
        await api.post('/v1/charges', { amount: 99_999_999, currency: 'usd', source: 'tok_visa' }),
        schema,
      );
    // A charge only authorised, of the largest amount, so that any valid capture amount fits in it.
    case 'UncapturedCharge':
      return created(
        await api.post('/v1/charges', {
          amount: 99_999_999,
          currency: 'usd',
          source: 'tok_visa',
          capture: false,
        }),
        schema,
      );
    // An intent with a payment method, ready to be confirmed, updated or canceled.
    case 'PaymentIntent':
      return created(
        await api.post('/v1/payment_intents', {
          amount: 99_999_999,
          currency: 'usd',
          payment_method: 'pm_card_visa',
        }),
        schema,
      );
    case 'AuthorisedPaymentIntent':
      return created(
        await api.post('/v1/payment_intents', {
          amount: 99_999_999,
          currency: 'usd',
          payment_method: 'pm_card_visa',
          capture_method: 'manual',
          confirm: true,
        }),
        schema,
      );
    case 'ActionPaymentIntent':
      return created(
        await api.post('/v1/payment_intents', {
          amount: 99_999_999,
          currency: 'usd',
          payment_method: 'pm_card_authenticationRequired',
          confirm: true,
        }),
        schema,
      );
    // A refund of its own charge, to update.
    case 'Refund': {
      const charge = await createObject(api, 'Charge', fixture);
      return created(await api.post('/v1/refunds', { charge, amount: 1 }), schema);
    }
    // A setup intent with a payment method, ready to be confirmed, updated or canceled.
    case 'SetupIntent':
      return created(
        await api.post('/v1/setup_intents', { payment_method: 'pm_card_visa' }),
        schema,
      );
    case 'PaymentMethod':
      return created(
        await api.post('/v1/payment_methods', { type: 'card', card: { token: 'tok_visa' } }),
        schema,
      );
    // A card saved to the fixture's customer (one to detach, or to read as the customer's).
    case 'AttachedPaymentMethod':
    case 'CustomerPaymentMethod': {
      const card = await createObject(api, 'PaymentMethod', fixture);
      return created(
        await api.post(`/v1/payment_methods/${card}/attach`, { customer: fixture.ids.Customer }),
        schema,
      );
    }
    case 'User':
      return created(await api.post('/v1/users', { email: 'fuzz@example.com' }), schema);
    case 'Order':
      return created(
        await api.post(`/v1/users/${fixture.ids.User}/orders`, { amount: 500, currency: 'usd' }),
        schema,
      );
    case 'Account':
      return created(
        await new ApiClient(api.baseUrl).post(
          '/admin/accounts',
          { name: 'Fuzz', email: 'fuzz@example.com' },
          { headers: adminHeaders() },
        ),
        schema,
      );
    case 'ApiKey':
      return created(
        await new ApiClient(api.baseUrl).post(
          `/admin/accounts/${fixture.ids.Account}/api_keys`,
          {},
          { headers: adminHeaders() },
        ),
        schema,
      );
    case 'OwnApiKey':
      return created(await api.post('/v1/api_keys', { scopes: ['charges:read'] }), schema);
    case 'OAuthClient':
      return created(
        await new ApiClient(api.baseUrl).post(
          `/admin/accounts/${fixture.ids.Account}/oauth_clients`,
          {},
          { headers: adminHeaders() },
        ),
        schema,
      );
    case 'SigningKey':
      return created(
        await new ApiClient(api.baseUrl).post(
          `/admin/accounts/${fixture.ids.Account}/signing_keys`,
          {},
          { headers: adminHeaders() },
        ),
        schema,
      );
    case 'ClientCertificate': {
      const certificate = await aClientCertificate(`fuzz ${++certificateCounter}`);
      return created(
        await new ApiClient(api.baseUrl).post(
          `/admin/accounts/${fixture.ids.Account}/client_certificates`,
          { certificate },
          { headers: adminHeaders() },
        ),
        schema,
      );
    }
    case 'WebhookEndpoint':
      return created(
        await api.post('/v1/webhook_endpoints', {
          url: `${fixture.webhookUrl}/fresh`,
          enabled_events: ['*'],
        }),
        schema,
      );
  }
  throw new Error(`no recipe for a fresh ${schema}`);
}

/** One object of every kind for the first account (and one of another account), in dependency order. */
async function createFixture(server: TestServer): Promise<Fixture> {
  const api = server.api;
  // Loopback is allowed (webhookAllowPrivateNetworks) and nothing listens: no worker runs anyway.
  // Enough fresh certificates for every valid registration of a run, and its shrinking.
  const certificates = await Promise.all(
    Array.from({ length: 2 * RUNS + 10 }, (_, i) => aClientCertificate(`fuzz fixture ${i}`)),
  );
  const fixture: Fixture = {
    ids: {},
    foreignId: '',
    webhookUrl: 'https://127.0.0.1:9/hooks',
    certificates,
  };
  // The endpoint first, so that every later event has a delivery to it.
  fixture.ids.WebhookEndpoint = await createObject(api, 'WebhookEndpoint', fixture);
  fixture.ids.Customer = await createObject(api, 'Customer', fixture);
  fixture.ids.Charge = await created(
    await api.post('/v1/charges', {
      amount: 99_999_999,
      currency: 'usd',
      source: 'tok_visa',
      customer: fixture.ids.Customer,
    }),
    'Charge',
  );
  fixture.ids.Refund = await created(
    await api.post('/v1/refunds', { charge: fixture.ids.Charge, amount: 1 }),
    'Refund',
  );
  fixture.ids.PaymentIntent = await createObject(api, 'PaymentIntent', fixture);
  fixture.ids.SetupIntent = await createObject(api, 'SetupIntent', fixture);
  fixture.ids.PaymentMethod = await createObject(api, 'PaymentMethod', fixture);
  fixture.ids.CustomerPaymentMethod = await createObject(api, 'CustomerPaymentMethod', fixture);
  fixture.ids.User = await createObject(api, 'User', fixture);
  fixture.ids.Account = await createObject(api, 'Account', fixture);
  fixture.ids.ApiKey = await createObject(api, 'ApiKey', fixture);
  fixture.ids.OwnApiKey = await createObject(api, 'OwnApiKey', fixture);
  fixture.ids.OAuthClient = await createObject(api, 'OAuthClient', fixture);
  fixture.ids.SigningKey = await createObject(api, 'SigningKey', fixture);
  fixture.ids.ClientCertificate = await createObject(api, 'ClientCertificate', fixture);
  fixture.ids.Order = await createObject(api, 'Order', fixture);
  fixture.ids.Event = (await api.get('/v1/events?limit=1')).body.data[0].id;
  fixture.ids.WebhookDelivery = (await api.get('/v1/webhook_deliveries?limit=1')).body.data[0].id;
  // The entries of the requests above, written now rather than within the recorder's 200 ms.
  await server.flushRequestLogs();
  fixture.ids.RequestLog = (await api.get('/v1/request_logs?limit=1')).body.data[0].id;
  fixture.foreignId = await created(
    await server.otherApi.post('/v1/customers', { email: 'other@example.com' }),
    'foreign',
  );
  return fixture;
}

let keyCounter = 0;
let certificateCounter = 0;

/**
 * The row counts as they stand, when nothing was written since they were taken: a refused request
 * leaves them as they were, so its after-count is the next request's before-count, which saves a
 * count per request. Made unknown by whatever may write (a fresh object, a request that succeeded).
 */
let knownCounts: Record<string, number> | undefined;

/** Sends a request as it is (bytes, headers, content type), with the credentials its operation declares. */
async function send(server: TestServer, fixture: Fixture, request: SpecRequest, admin: boolean) {
  let { url, body } = request;
  // Placeholders for objects of the request's own: created now, before the counts are taken.
  for (const schema of new Set(
    [...`${url} ${body ?? ''}`.matchAll(/FRESH_([A-Za-z]+)/g)].map((m) => m[1]),
  )) {
    if (schema === 'IntentOfCharge') continue;
    knownCounts = undefined;
    const id = await createObject(server.api, schema, fixture);
    url = url.replaceAll(`FRESH_${schema}`, id);
    body = body?.replaceAll(`FRESH_${schema}`, id);
    // A refund may name the fresh charge's intent as well: the one it belongs to.
    if (schema === 'Charge' && body?.includes('FRESH_IntentOfCharge')) {
      const intent = (await server.api.get(`/v1/charges/${id}`)).body.payment_intent as string;
      body = body.replaceAll('FRESH_IntentOfCharge', intent);
    }
  }
  if (body?.includes('FRESH_IntentOfCharge')) {
    knownCounts = undefined;
    const charge = await createObject(server.api, 'Charge', fixture);
    body = body.replaceAll(
      'FRESH_IntentOfCharge',
      (await server.api.get(`/v1/charges/${charge}`)).body.payment_intent as string,
    );
  }
  // A valid request carries the client secret of the intent its path names, whatever the draft made.
  const intent = /^\/v1\/(payment_intents|setup_intents)\/((?:pi|seti)_[A-Za-z0-9]+)/.exec(url);
  if (intent && request.expect === 'success' && `${url} ${body ?? ''}`.includes('client_secret')) {
    const secret = (await server.api.get(`/v1/${intent[1]}/${intent[2]}`)).body
      .client_secret as string;
    url = url.replace(/client_secret=[^&]*/, `client_secret=${secret}`);
    body = body
      ?.replace(/client_secret=[^&]*/, `client_secret=${secret}`)
      .replace(/"client_secret":"[^"]*"/, `"client_secret":"${secret}"`);
  }
  const headers: Record<string, string> = { ...request.headers };
  headers.Authorization = admin ? ADMIN_AUTHORIZATION : `Bearer ${server.api.apiKey}`;
  // A valid key is made unique, so that a shrunk rerun with another body is not a reuse.
  if (request.expect === 'success' && headers['Idempotency-Key']) {
    headers['Idempotency-Key'] = `${++keyCounter}-${headers['Idempotency-Key']}`.slice(0, 255);
  }
  if (request.contentType) headers['Content-Type'] = request.contentType;
  const before = (knownCounts ??= await rowCounts(server));
  knownCounts = undefined;
  // A Uint8Array body makes fetch send no Content-Type of its own.
  const payload =
    body === undefined ? undefined : request.contentType ? body : new TextEncoder().encode(body);
  const response = await fetch(server.url + url, {
    method: request.method,
    headers,
    body: payload,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, before };
}

/** The invariants every answer keeps, and those of its expectation. */
async function check(
  server: TestServer,
  fixture: Fixture,
  request: SpecRequest,
  admin: boolean,
): Promise<void> {
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).join();
  const res = await send(server, fixture, request, admin);
  const context = `${request.method} ${request.url} ${request.body ?? ''} → ${res.status} ${res.text}`;
  expect(
    Object.getOwnPropertyNames(Object.prototype).join(),
    `Object.prototype polluted: ${context}`,
  ).to.equal(prototypeNames);
  expect(res.status, `no 5xx: ${context}`).to.be.below(500);
  expect(res.headers.get('content-type'), context).to.match(/^application\/json/);
  expect(res.headers.get('request-id'), `Request-Id: ${context}`).to.be.a('string');
  const body = JSON.parse(res.text);
  if (res.status >= 400) {
    const error = body.error;
    expect(error, `the error envelope: ${context}`).to.be.an('object');
    for (const key of ['type', 'code', 'message', 'request_id'])
      expect(error[key], `error.${key}: ${context}`).to.be.a('string');
    expect(error.request_id, context).to.equal(res.headers.get('request-id'));
    if (PARAMETER_CODES.includes(error.code)) {
      expect(error.param, `param of a ${error.code}: ${context}`)
        .to.be.a('string')
        .and.not.equal('');
      if (request.param)
        expect(error.param.split('[')[0], `the param at fault: ${context}`).to.equal(request.param);
    }
    const after = await rowCounts(server);
    expect(after, `a refused request wrote nothing: ${context}`).to.deep.equal(res.before);
    knownCounts = after;
  }
  if (request.expect === 'success')
    expect(res.status, `a valid request succeeds: ${context}`).to.be.within(200, 299);
  if (request.expect === 'rejected')
    expect(res.status, `refused: ${context}`).to.be.within(400, 499);
}

forEachDatabase('requests from the spec', (engine) => {
  const server = useTestServer(engine, { webhookAllowPrivateNetworks: true }, { per: 'suite' });
  let fixture: Fixture;

  before(async function () {
    // The fixture's requests are the first of their operations: each compiles its schemas.
    this.timeout(120_000);
    fixture = await createFixture(server);
    knownCounts = undefined;
  });

  // The token endpoint answers in RFC 6749's error shape, not the envelope these properties check;
  // test/api/oauth.test.ts sends it malformed and hostile bodies instead.
  for (const op of specOperations().filter((o) => o.operationId !== 'createAccessToken')) {
    it(`${op.method} ${op.path} (${op.operationId}): valid requests succeed, broken ones are refused cleanly`, async function () {
      this.timeout(60_000 + RUNS * 10_000);
      const failures: string[] = [];
      const run = async (label: string, arbitrary: fc.Arbitrary<SpecRequest>, numRuns: number) => {
        const property = fc.asyncProperty(arbitrary, (request) =>
          check(server, fixture, request, op.admin),
        );
        // Every kind is tried even after one fails, so that one run shows every failure.
        const started = Date.now();
        const details = await fc.check(property, { numRuns, seed: SEED });
        if (process.env.FUZZ_TIMING)
          console.log(
            `    ${op.operationId} ${label}: ${Date.now() - started} ms${details.failed ? ' FAILED' : ''}`,
          );
        if (details.failed)
          failures.push(
            `${label}: ${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}`,
          );
      };
      await run('valid', validRequest(op, fixture), 2 * RUNS);
      for (const kind of MUTATION_KINDS) {
        if (mutationApplies(op, kind, fixture))
          await run(kind, mutatedRequest(op, fixture, kind), RUNS);
      }
      expect(failures, failures.join('\n\n')).to.deep.equal([]);
    });
  }
});
