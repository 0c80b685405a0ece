import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { graphql } from '../helpers/graphql-client.js';
import { useTestServer, type TestServerOptions } from '../helpers/test-server.js';
import { bearer, refusalOf, subscriptionClient } from '../graphql/live-events.js';

/** How long the server waits for the JWKS here: short, so that a hanging provider costs the test little. */
const FETCH_TIMEOUT_MS = 300;
/** The least time between two fetches of the key list. */
const INTERVAL_MS = 30_000;

type Behaviour = 'ok' | 'error' | 'hang' | 'not a key set';

/**
 * An identity provider on 127.0.0.1 whose JWKS answers as told: the key set, a 503, or nothing at
 * all (the request is read and the socket kept open). `refuse()` closes its port, `start()` opens
 * the same port again. It counts the requests for its JWKS.
 */
async function startProvider() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const published: JWK = { ...(await exportJWK(publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' };
  const sockets = new Set<Socket>();
  let behaviour: Behaviour = 'ok';
  let requests = 0;
  const server = http.createServer((req, res) => {
    if (req.url !== '/jwks.json') return void res.writeHead(404).end();
    requests += 1;
    if (behaviour === 'ok') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [published] }));
    if (behaviour === 'error') return void res.writeHead(503, { 'Content-Type': 'text/plain' }).end('Service Unavailable');
    if (behaviour === 'not a key set') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>Maintenance</html>');
    // 'hang': never answers; the socket stays open until the provider closes it.
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return {
    issuer: 'https://idp.test/',
    audience: 'payments-api-partners',
    jwksUrl: new URL(`http://127.0.0.1:${port}/jwks.json`),
    key: privateKey,
    get requests() {
      return requests;
    },
    /** Answers as `next` says from now on (and counts requests from zero again when told). */
    behave(next: Behaviour, counting: 'count on' | 'count afresh' = 'count on') {
      behaviour = next;
      if (counting === 'count afresh') requests = 0;
    },
    /** Closes the port: connections are refused until `start()`. */
    refuse: close,
    start: () => listen(port),
    close,
  };
}

forEachDatabase('an identity provider\'s outage', (engine) => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  const options: TestServerOptions = {};
  before(async () => {
    provider = await startProvider();
    options.externalJwt = {
      issuer: provider.issuer,
      audience: provider.audience,
      jwksUrl: provider.jwksUrl,
      jwksTimeoutMs: FETCH_TIMEOUT_MS,
    };
  });
  after(() => provider?.close());
  const server = useTestServer(engine, options);
  beforeEach(() => provider.behave('ok', 'count afresh'));

  /** A token of the provider for the first test account, naming `kid` (signed with its one key). */
  const token = (kid = 'rsa-1', key: CryptoKey = provider.key) => {
    const now = Math.floor(server.clock.nowMs() / 1000);
    return new SignJWT({ account_id: server.accountIds.first, scope: 'customers:read' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(provider.issuer)
      .setAudience(provider.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(key);
  };
  const get = async (jwt: string): Promise<ApiResponse> => new ApiClient(server.url, jwt).get('/v1/customers');

  /** A 503 service_unavailable (api_error) in the error envelope, with `Retry-After` within the interval; its seconds. */
  const expectUnavailable = (res: ApiResponse): number => {
    const error = expectError(res, 503, 'service_unavailable');
    expect(error.type).to.equal('api_error');
    expect(error.message).to.match(/cannot be fetched now/);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, INTERVAL_MS / 1000);
    return retryAfter;
  };

  it('answers 503 with Retry-After while the JWKS answers 5xx, fetching it once per 30 s however many new kids arrive', async () => {
    provider.behave('error');
    for (const kid of ['kid-1', 'kid-2', 'kid-3', 'kid-4', 'kid-5']) expectUnavailable(await get(await token(kid)));
    expect(provider.requests).to.equal(1);

    server.clock.advance(10_000);
    expect(expectUnavailable(await get(await token('kid-6')))).to.equal(20);
    expect(provider.requests, 'no fetch within 30 s of a failed one').to.equal(1);

    server.clock.advance(20_000);
    expectUnavailable(await get(await token('kid-7')));
    expect(provider.requests, 'one fetch once 30 s have passed').to.equal(2);

    provider.behave('ok');
    server.clock.advance(10_000);
    expectUnavailable(await get(await token()));
    expect(provider.requests, 'the provider being back changes nothing within the 30 s').to.equal(2);
    server.clock.advance(20_000);
    expect((await get(await token())).status).to.equal(200);
    expect(provider.requests).to.equal(3);
  });

  it('answers 503 within the fetch timeout while the JWKS hangs, and while its port refuses connections', async () => {
    provider.behave('hang');
    const [first, second] = await Promise.all([get(await token('kid-1')), get(await token('kid-2'))]);
    expectUnavailable(first);
    expectUnavailable(second);
    expect(provider.requests, 'concurrent requests wait for one fetch').to.equal(1);

    await provider.refuse();
    try {
      server.clock.advance(INTERVAL_MS);
      expectUnavailable(await get(await token('kid-3')));
    } finally {
      await provider.start();
    }
    provider.behave('ok');
    server.clock.advance(INTERVAL_MS);
    expect((await get(await token())).status).to.equal(200);
  });

  it('keeps accepting tokens of the keys it holds while the JWKS is out, and refuses a kid it does not publish once it is back', async () => {
    expect((await get(await token())).status).to.equal(200);
    provider.behave('error');
    server.clock.advance(11 * 60_000); // past the age at which the keys are fetched again
    expect((await get(await token())).status).to.equal(200);
    expectUnavailable(await get(await token('kid-new')));
    expect(provider.requests).to.equal(2);

    provider.behave('ok');
    server.clock.advance(INTERVAL_MS);
    const { privateKey } = await generateKeyPair('RS256');
    const refused = expectError(await get(await token('kid-new', privateKey)), 401, 'access_token_invalid');
    expect(refused.message).to.include('does not publish');
    expect(provider.requests).to.equal(3);
  });

  it('answers 503 while the JWKS answers 200 with something that is not a key set', async () => {
    provider.behave('not a key set');
    expectUnavailable(await get(await token('kid-1')));
    expect(provider.requests).to.equal(1);
  });

  it('closes a GraphQL WebSocket whose token cannot be checked with 1013, try again later', async () => {
    provider.behave('error');
    const client = subscriptionClient(server.wsUrl, bearer(await token('kid-1')));
    try {
      const refusal = await refusalOf(client);
      expect(refusal.code).to.equal(1013);
      expect(refusal.reason).to.match(/cannot be fetched now/);
    } finally {
      await client.dispose();
    }
  });

  it('answers /graphql with the same 503, its code in extensions', async () => {
    provider.behave('error');
    const res = await graphql(server.url, await token('kid-1'), '{ customers(first: 1) { edges { node { id } } } }');
    expect(res.status).to.equal(503);
    expect(Number(res.headers.get('retry-after'))).to.be.within(1, INTERVAL_MS / 1000);
    expect(res.body.errors?.[0].extensions).to.deep.include({ code: 'service_unavailable', type: 'api_error' });
  });
});

forEachDatabase('an identity provider\'s outage, with failed authentications limited', (engine) => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  const options: TestServerOptions = { authFailures: { points: 3, durationSeconds: 60 } };
  before(async () => {
    provider = await startProvider();
    options.externalJwt = { issuer: provider.issuer, audience: provider.audience, jwksUrl: provider.jwksUrl, jwksTimeoutMs: FETCH_TIMEOUT_MS };
  });
  after(() => provider?.close());
  const server = useTestServer(engine, options);

  it('counts every 503 as a failed authentication of the address', async () => {
    provider.behave('error');
    const now = Math.floor(server.clock.nowMs() / 1000);
    for (const kid of ['kid-1', 'kid-2', 'kid-3']) {
      const jwt = await new SignJWT({ account_id: server.accountIds.first })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(provider.issuer)
        .setAudience(provider.audience)
        .setExpirationTime(now + 300)
        .sign(provider.key);
      expect((await new ApiClient(server.url, jwt).get('/v1/customers')).status).to.equal(503);
    }
    // The allowance is spent: the address is refused whatever it sends, a valid API key included.
    expectError(await server.api.get('/v1/customers'), 429, 'rate_limited');
  });
});
