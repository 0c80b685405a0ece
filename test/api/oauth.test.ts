import { createPublicKey } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { graphql } from '../helpers/graphql-client.js';
import { TEST_SECRET_BOX } from '../helpers/secrets-key.js';
import {
  ADMIN_AUTHORIZATION,
  basicAuthorization,
  useTestServer,
  type TestServer,
  type TestServerOptions,
} from '../helpers/test-server.js';
import { bearer, nextValue, subscriptionClient } from '../graphql/live-events.js';

const ADMIN_HEADERS = { Authorization: ADMIN_AUTHORIZATION };
const NO_ACCOUNT = 'acct_000000000000000000000000';
/** A found client is trusted for a second: a deleted one's tokens are refused within that, plus slack for a loaded machine. */
const DELETION_BOUND_MS = 1500;
/** The token lifetime and clock tolerance the server runs with by default. */
const TTL_S = 900;
const SKEW_S = 30;
const ALL_SCOPES = [
  'customers:read',
  'customers:write',
  'charges:read',
  'charges:write',
  'refunds:read',
  'refunds:write',
  'payment_intents:read',
  'payment_intents:write',
  'payment_methods:read',
  'payment_methods:write',
  'setup_intents:read',
  'setup_intents:write',
  'users:read',
  'users:write',
  'orders:read',
  'orders:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
  'api_keys:read',
  'api_keys:write',
  'request_logs:read',
];

interface Credentials {
  id: string;
  secret: string;
}

/** A form POST to the token endpoint, as an OAuth client library sends it. */
async function tokenRequest(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** HTTP Basic client authentication as RFC 6749 §2.3.1 spells it: each part form-URL-encoded first. */
function basicFor(client: Credentials): Record<string, string> {
  return { Authorization: basicAuthorization(encodeURIComponent(client.id), encodeURIComponent(client.secret)) };
}

/** An error of the token endpoint: RFC 6749 §5.2's shape and nothing else, never cached. */
function expectOAuthError(res: ApiResponse, status: number, error: string): string {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(Object.keys(res.body).sort()).to.deep.equal(['error', 'error_description']);
  expect(res.body.error).to.equal(error);
  expect(res.body.error_description).to.be.a('string').and.not.equal('');
  expect(res.headers.get('cache-control')).to.equal('no-store');
  return res.body.error_description;
}

/** A 401 for a refused access token: the envelope, and RFC 6750's challenge saying why. */
function expectTokenRefused(res: ApiResponse, why: RegExp): void {
  const error = expectError(res, 401, 'access_token_invalid');
  expect(error.type).to.equal('authentication_error');
  expect(error.message).to.match(why);
  const challenge = res.headers.get('www-authenticate') ?? '';
  expect(challenge).to.match(/^Bearer error="invalid_token", error_description="[^"]+"$/);
  expect(challenge).to.match(why);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The operator's requests on the OAuth client endpoints of the server at `url`. */
function adminOf(url: string) {
  const client = new ApiClient(url);
  return {
    createClient: (accountId: string, body?: unknown, form = false) =>
      client.post(`/admin/accounts/${accountId}/oauth_clients`, body, { headers: ADMIN_HEADERS, form }),
    listClients: (accountId: string, query = '') =>
      client.get(`/admin/accounts/${accountId}/oauth_clients${query}`, { headers: ADMIN_HEADERS }),
    deleteClient: (accountId: string, clientId: string) =>
      client.delete(`/admin/accounts/${accountId}/oauth_clients/${clientId}`, { headers: ADMIN_HEADERS }),
  };
}

/** What the tests of one server share: a client of the first account, its tokens, and forged tokens. */
function oauthOf(server: TestServer) {
  const admin = () => adminOf(server.url);
  const now = () => Math.floor(server.clock.nowMs() / 1000);

  /** A new OAuth client of the first test account holding `scopes` (every scope when left out). */
  const newClient = async (scopes?: string[]): Promise<Credentials> => {
    const res = await admin().createClient(server.accountIds.first, scopes && { scopes });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { id: res.body.id, secret: res.body.client_secret };
  };

  /** An access token of `client` (Basic authentication), asking for `scope` if given. */
  const tokenOf = async (client: Credentials, scope?: string): Promise<string> => {
    const res = await tokenRequest(
      server.url,
      { grant_type: 'client_credentials', ...(scope && { scope }) },
      basicFor(client),
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.access_token;
  };

  /** The key the server signs with now, as only the server should hold it (read from its table). */
  const serverKey = async (): Promise<{ kid: string; key: CryptoKey }> => {
    const row = await server.db.one<{ kid: string; private_jwk: string }>(
      'SELECT kid, private_jwk FROM token_signing_keys WHERE superseded IS NULL',
    );
    const jwk = TEST_SECRET_BOX.open(row!.private_jwk, { table: 'token_signing_keys', column: 'private_jwk', row: row!.kid });
    return { kid: row!.kid, key: (await importJWK(JSON.parse(jwk) as JWK, 'ES256')) as CryptoKey };
  };

  /** The claims of a token the server would issue to `client` now. */
  const claimsFor = (client: Credentials, scope = 'customers:read'): JWTPayload => ({
    iss: 'payments-api',
    aud: 'payments-api',
    sub: client.id,
    client_id: client.id,
    scope,
    jti: 'forged',
    iat: now(),
    nbf: now(),
    exp: now() + TTL_S,
  });

  /** A token signed with the server's key, with these claims and header fields (ES256, the key's kid and at+jwt by default). */
  const forged = async (claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> => {
    const { kid, key } = await serverKey();
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt', ...header }).sign(key);
  };

  return { admin, now, newClient, tokenOf, serverKey, claimsFor, forged };
}

forEachDatabase('OAuth clients', (engine) => {
  const server = useTestServer(engine);
  const admin = () => adminOf(server.url);

  describe('createAccountOAuthClient', () => {
    it('creates a client: its secret once, then listed with its name and scopes but never the secret', async () => {
      const res = await admin().createClient(server.accountIds.first, {
        name: 'Reporting',
        scopes: ['charges:read', 'refunds:read'],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const { client_secret: secret, ...client } = res.body;
      expect(secret).to.match(/^cs_test_[0-9A-Za-z]{32}$/);
      expect(client.id).to.match(/^client_[0-9A-Za-z]{24}$/);
      expect(client).to.deep.include({
        object: 'oauth_client',
        name: 'Reporting',
        scopes: ['charges:read', 'refunds:read'],
      });
      expect(client.created).to.equal(Math.floor(server.clock.nowMs() / 1000));

      const listed = await admin().listClients(server.accountIds.first);
      expect(listed.body.data).to.deep.equal([client]);
      expect(JSON.stringify(listed.body)).to.not.include(secret);
    });

    it('gives a client without scopes every scope (scopes null), and takes a form body', async () => {
      const bare = await admin().createClient(server.accountIds.first);
      expect(bare.status, JSON.stringify(bare.body)).to.equal(200);
      expect(bare.body).to.deep.include({ name: null, scopes: null });
      const form = await admin().createClient(server.accountIds.first, { name: 'Form', scopes: ['users:read'] }, true);
      expect(form.status, JSON.stringify(form.body)).to.equal(200);
      expect(form.body).to.deep.include({ name: 'Form', scopes: ['users:read'] });
    });

    it('answers 404 naming id for an unknown account, and 400 for an unknown scope', async () => {
      expectError(await admin().createClient(NO_ACCOUNT, {}), 404, 'resource_missing', 'id');
      expectError(
        await admin().createClient(server.accountIds.first, { scopes: ['charges:delete'] }),
        400,
        'parameter_invalid',
        'scopes[0]',
      );
      expect((await admin().listClients(server.accountIds.first)).body.data).to.deep.equal([]);
    });

    it('refuses an API key (401): only the operator creates clients', async () => {
      const res = await server.api.post(`/admin/accounts/${server.accountIds.first}/oauth_clients`, {});
      expectError(res, 401, 'admin_credentials_invalid');
    });
  });

  describe('listAccountOAuthClients', () => {
    it('lists the account’s clients newest first, page by page, without deleted ones or other accounts’', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1)
        ids.push((await admin().createClient(server.accountIds.first, { name: `c${i}` })).body.id);
      await admin().createClient(server.accountIds.second, {});
      await admin().deleteClient(server.accountIds.first, ids[1]);

      const first = await admin().listClients(server.accountIds.first, '?limit=1');
      expect(first.body).to.deep.include({
        object: 'list',
        has_more: true,
        url: `/admin/accounts/${server.accountIds.first}/oauth_clients`,
      });
      expect(first.body.data.map((c: { id: string }) => c.id)).to.deep.equal([ids[2]]);
      const rest = await admin().listClients(server.accountIds.first, `?starting_after=${ids[2]}`);
      expect(rest.body.data.map((c: { id: string }) => c.id)).to.deep.equal([ids[0]]);
      expect(rest.body.has_more).to.equal(false);
    });

    it('answers 404 for an unknown account', async () => {
      expectError(await admin().listClients(NO_ACCOUNT), 404, 'resource_missing', 'id');
    });
  });

  describe('deleteAccountOAuthClient', () => {
    it('deletes a client once (a second time is 404), after which it gets no token', async () => {
      const { body: created } = await admin().createClient(server.accountIds.first);
      const res = await admin().deleteClient(server.accountIds.first, created.id);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ id: created.id, object: 'oauth_client', deleted: true });
      expectError(
        await admin().deleteClient(server.accountIds.first, created.id),
        404,
        'resource_missing',
        'client_id',
      );
      const refused = await tokenRequest(
        server.url,
        { grant_type: 'client_credentials' },
        basicFor({ id: created.id, secret: created.client_secret }),
      );
      expectOAuthError(refused, 401, 'invalid_client');
    });

    it('answers 404 for another account’s client, and leaves it working', async () => {
      const { body: created } = await admin().createClient(server.accountIds.second);
      expectError(
        await admin().deleteClient(server.accountIds.first, created.id),
        404,
        'resource_missing',
        'client_id',
      );
      const res = await tokenRequest(
        server.url,
        { grant_type: 'client_credentials' },
        basicFor({ id: created.id, secret: created.client_secret }),
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
  });
});

forEachDatabase('POST /oauth/token', (engine) => {
  const server = useTestServer(engine);
  const oauth = oauthOf(server);
  const grant = { grant_type: 'client_credentials' };

  describe('issuing', () => {
    it('issues an ES256 JWT access token by HTTP Basic: RFC 9068 header and claims, 15 minutes, never cached', async () => {
      const client = await oauth.newClient(['customers:read', 'charges:read']);
      const res = await tokenRequest(server.url, grant, basicFor(client));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body).to.deep.include({
        token_type: 'Bearer',
        expires_in: TTL_S,
        scope: 'customers:read charges:read',
      });
      const token = res.body.access_token;
      const header = decodeProtectedHeader(token);
      expect(header).to.include({ alg: 'ES256', typ: 'at+jwt' });
      expect(header.kid).to.be.a('string');
      const claims = decodeJwt(token);
      const now = oauth.now();
      expect(claims).to.deep.include({
        iss: 'payments-api',
        aud: 'payments-api',
        sub: client.id,
        client_id: client.id,
        scope: 'customers:read charges:read',
        iat: now,
        nbf: now,
        exp: now + TTL_S,
      });
      expect(claims.jti).to.be.a('string').and.not.equal('');
      expect(decodeJwt(await oauth.tokenOf(client)).jti).to.not.equal(claims.jti);
    });

    it('issues a token for client_id and client_secret in the form', async () => {
      const client = await oauth.newClient(['customers:read']);
      const res = await tokenRequest(server.url, { ...grant, client_id: client.id, client_secret: client.secret });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(decodeJwt(res.body.access_token).client_id).to.equal(client.id);
    });

    it('decodes Basic credentials as RFC 6749 §2.3.1 encodes them (percent-encoding)', async () => {
      const client = await oauth.newClient(['customers:read']);
      const encoded = (text: string) =>
        [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
      const res = await tokenRequest(server.url, grant, {
        Authorization: basicAuthorization(encoded(client.id), encoded(client.secret)),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    it('issues the scopes asked for, and every scope of the client when scope is left out', async () => {
      const narrow = await oauth.newClient(['customers:read', 'customers:write', 'charges:read']);
      const asked = await tokenRequest(
        server.url,
        { ...grant, scope: 'charges:read customers:read' },
        basicFor(narrow),
      );
      expect(asked.body.scope).to.equal('customers:read charges:read');
      expect(decodeJwt(asked.body.access_token).scope).to.equal('customers:read charges:read');
      const everything = await oauth.newClient();
      const all = await tokenRequest(server.url, grant, basicFor(everything));
      expect(all.body.scope.split(' ')).to.deep.equal(ALL_SCOPES);
    });

    it('ignores Idempotency-Key: each request is authenticated and gets its own token', async () => {
      const client = await oauth.newClient(['customers:read']);
      const headers = { ...basicFor(client), 'Idempotency-Key': 'same-key' };
      const first = await tokenRequest(server.url, grant, headers);
      const second = await tokenRequest(server.url, grant, headers);
      expect(first.status).to.equal(200);
      expect(second.headers.get('idempotent-replayed')).to.equal(null);
      expect(second.body.access_token).to.not.equal(first.body.access_token);
      const wrong = await tokenRequest(server.url, grant, {
        ...basicFor({ ...client, secret: 'cs_test_wrong' }),
        'Idempotency-Key': 'same-key',
      });
      expectOAuthError(wrong, 401, 'invalid_client');
    });
  });

  describe('RFC 6749 errors', () => {
    it('answers invalid_client (401, a Basic challenge) to a wrong secret, an unknown client, and no credentials', async () => {
      const client = await oauth.newClient(['customers:read']);
      const cases = [
        basicFor({ ...client, secret: 'cs_test_wrong' }),
        basicFor({ id: 'client_000000000000000000000000', secret: client.secret }),
        {},
        { Authorization: `Bearer ${server.apiKeys.first}` },
      ];
      for (const headers of cases) {
        const res = await tokenRequest(server.url, grant, headers);
        expectOAuthError(res, 401, 'invalid_client');
        expect(res.headers.get('www-authenticate'), JSON.stringify(headers)).to.match(/^Basic /);
      }
      const form = await tokenRequest(server.url, { ...grant, client_id: client.id, client_secret: 'cs_test_wrong' });
      expectOAuthError(form, 401, 'invalid_client');
    });

    it('answers invalid_request to credentials sent both by Basic and in the form', async () => {
      const client = await oauth.newClient(['customers:read']);
      const res = await tokenRequest(
        server.url,
        { ...grant, client_id: client.id, client_secret: client.secret },
        basicFor(client),
      );
      expect(expectOAuthError(res, 400, 'invalid_request')).to.match(/one way/);
    });

    it('answers unsupported_grant_type to another grant', async () => {
      const client = await oauth.newClient(['customers:read']);
      const res = await tokenRequest(server.url, { grant_type: 'password' }, basicFor(client));
      expect(expectOAuthError(res, 400, 'unsupported_grant_type')).to.include('client_credentials');
    });

    it('answers invalid_scope to an unknown scope and to one the client does not hold', async () => {
      const client = await oauth.newClient(['customers:read']);
      const unknown = await tokenRequest(
        server.url,
        { ...grant, scope: 'customers:read charges:delete' },
        basicFor(client),
      );
      expect(expectOAuthError(unknown, 400, 'invalid_scope')).to.include('charges:delete');
      const notHeld = await tokenRequest(server.url, { ...grant, scope: 'charges:read' }, basicFor(client));
      expect(expectOAuthError(notHeld, 400, 'invalid_scope')).to.include('charges:read');
    });

    it('ignores parameters it does not use, as RFC 6749 §3.2 requires, and issues the token', async () => {
      const client = await oauth.newClient(['customers:read']);
      const answer = await tokenRequest(server.url, { ...grant, audience: 'https://api.example.com', resource: 'x' }, basicFor(client));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body).to.include({ token_type: 'Bearer', scope: 'customers:read' });
    });

    it('answers invalid_request to what the validator refuses: no grant_type, no body', async () => {
      const client = await oauth.newClient(['customers:read']);
      expect(expectOAuthError(await tokenRequest(server.url, {}, basicFor(client)), 400, 'invalid_request')).to.include(
        'grant_type',
      );
      const empty = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: basicFor(client) });
      expectOAuthError(
        { status: empty.status, body: await empty.json(), headers: empty.headers },
        400,
        'invalid_request',
      );
    });

    it('answers invalid_request to a JSON body or another media type', async () => {
      const client = await oauth.newClient(['customers:read']);
      for (const [type, body] of [
        ['application/json', JSON.stringify(grant)],
        ['text/plain', 'grant_type=client_credentials'],
      ]) {
        const response = await fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { ...basicFor(client), 'Content-Type': type },
          body,
        });
        const res = { status: response.status, body: await response.json(), headers: response.headers };
        expect(expectOAuthError(res, 400, 'invalid_request'), type).to.include('x-www-form-urlencoded');
      }
    });
  });
});

forEachDatabase('POST /oauth/token with a failed-authentication allowance', (engine) => {
  const server = useTestServer(engine, { authFailures: { points: 3, durationSeconds: 60 } });
  const oauth = oauthOf(server);

  it('counts each invalid_client against the address: past the allowance even the right secret gets 429', async () => {
    const client = await oauth.newClient(['customers:read']);
    const grant = { grant_type: 'client_credentials' };
    for (let i = 0; i < 3; i += 1)
      expectOAuthError(
        await tokenRequest(server.url, grant, basicFor({ ...client, secret: `cs_test_guess${i}` })),
        401,
        'invalid_client',
      );
    const blocked = await tokenRequest(server.url, grant, basicFor(client));
    expectError(blocked, 429, 'rate_limited');
    expect(blocked.headers.get('retry-after')).to.match(/^\d+$/);
    expect(blocked.headers.get('cache-control')).to.equal('no-store');
  });

  it('does not count a request without credentials, nor one refused for its scope', async () => {
    const client = await oauth.newClient(['customers:read']);
    const grant = { grant_type: 'client_credentials' };
    for (let i = 0; i < 3; i += 1) {
      expectOAuthError(await tokenRequest(server.url, grant), 401, 'invalid_client');
      expectOAuthError(
        await tokenRequest(server.url, { ...grant, scope: 'charges:read' }, basicFor(client)),
        400,
        'invalid_scope',
      );
    }
    expect((await tokenRequest(server.url, grant, basicFor(client))).status).to.equal(200);
  });
});

forEachDatabase('access tokens on the API', (engine) => {
  const server = useTestServer(engine);
  const oauth = oauthOf(server);

  describe('accepted', () => {
    it('works on /v1 as the client’s account: what it creates the account’s API key sees, another account does not', async () => {
      const client = await oauth.newClient(['customers:read', 'customers:write']);
      const api = new ApiClient(server.url, await oauth.tokenOf(client));
      const customer = await aCustomer(api);
      expect((await api.get('/v1/customers')).body.data.map((c: { id: string }) => c.id)).to.deep.equal([customer.id]);
      expect((await server.api.get(`/v1/customers/${customer.id}`)).status).to.equal(200);
      expectError(await server.otherApi.get(`/v1/customers/${customer.id}`), 404, 'resource_missing');
    });

    it('is held to its scopes: 403 insufficient_scope naming the scope, also for a narrower token of a broader client', async () => {
      const client = await oauth.newClient(['customers:read', 'charges:read']);
      const api = new ApiClient(server.url, await oauth.tokenOf(client, 'customers:read'));
      expect((await api.get('/v1/customers')).status).to.equal(200);
      const response = await api.get('/v1/charges');
      const refused = expectError(response, 403, 'insufficient_scope');
      expect(response.headers.get('www-authenticate')).to.equal('Bearer error="insufficient_scope", scope="charges:read"');
      expect(refused.type).to.equal('permission_error');
      expect(refused.message).to.include('charges:read').and.include('credential');
      expect(expectError(await api.post('/v1/customers', {}), 403, 'insufficient_scope').message).to.include(
        'customers:write',
      );
    });

    it('works on /graphql, held to the same scopes', async () => {
      const customer = await aCustomer(server.api);
      const token = await oauth.tokenOf(await oauth.newClient(['customers:read']));
      const read = await graphql(server.url, token, 'query($id: ID!) { customer(id: $id) { id email } }', {
        id: customer.id,
      });
      expect(read.status, JSON.stringify(read.body)).to.equal(200);
      expect(read.body.data!.customer).to.deep.equal({ id: customer.id, email: customer.email });
      const refused = await graphql(server.url, token, 'query { charges(first: 1) { edges { node { id } } } }');
      expect(refused.body.errors![0].extensions).to.include({ code: 'insufficient_scope' });
      expect(refused.body.errors![0].message).to.include('charges:read');
    });

    it('opens a GraphQL subscription with the token in connection_init', async () => {
      const token = await oauth.tokenOf(await oauth.newClient(['events:read', 'customers:write']));
      const client = subscriptionClient(server.wsUrl, bearer(token));
      try {
        const before = server.eventStream.subscriberCount;
        const events = client.iterate<{ events: { type: string } }>({ query: 'subscription { events { type } }' });
        const first = nextValue(events);
        await eventually(() => expect(server.eventStream.subscriberCount).to.equal(before + 1));
        await aCustomer(new ApiClient(server.url, token));
        expect((await first).data!.events.type).to.equal('customer.created');
      } finally {
        await client.dispose();
      }
    });

    it('closes its GraphQL WebSocket (4403) once the token expires', async () => {
      const token = await oauth.tokenOf(await oauth.newClient(['events:read']));
      const client = subscriptionClient(server.wsUrl, bearer(token));
      try {
        const closed = new Promise<{ code: number; reason: string }>((resolve) =>
          client.on('closed', (event) => resolve(event as { code: number; reason: string })),
        );
        const before = server.eventStream.subscriberCount;
        const events = client.iterate<{ events: { type: string } }>({ query: 'subscription { events { type } }' });
        void events.next().catch(() => {});
        await eventually(() => expect(server.eventStream.subscriberCount).to.equal(before + 1));
        server.clock.advance((TTL_S + SKEW_S + 1) * 1000);
        const { code, reason } = await closed;
        expect(code).to.equal(4403);
        expect(reason).to.include('expired');
      } finally {
        await client.dispose();
      }
    });

    it('accepts a token up to 30 s past its expiry (clock skew), on the server’s clock', async () => {
      const api = new ApiClient(server.url, await oauth.tokenOf(await oauth.newClient(['customers:read'])));
      server.clock.advance((TTL_S + SKEW_S - 1) * 1000);
      expect((await api.get('/v1/customers')).status).to.equal(200);
    });
  });

  describe('refused (401 access_token_invalid, RFC 6750 challenge)', () => {
    /** A client, a token of it, and a token forged like it with the server's own key (accepted, as the baseline). */
    async function fixture() {
      const client = await oauth.newClient(['customers:read']);
      const token = await oauth.tokenOf(client);
      const baseline = await oauth.forged(oauth.claimsFor(client));
      expect(
        (await new ApiClient(server.url, baseline).get('/v1/customers')).status,
        'the forging baseline is accepted',
      ).to.equal(200);
      return { client, token };
    }
    const get = (token: string) => new ApiClient(server.url, token).get('/v1/customers');

    it('an expired token (more than 30 s past exp)', async () => {
      const { token } = await fixture();
      server.clock.advance((TTL_S + SKEW_S + 1) * 1000);
      expectTokenRefused(await get(token), /expired/);
    });

    it('a token not yet valid (nbf more than 30 s ahead)', async () => {
      const { token } = await fixture();
      server.clock.advance(-(SKEW_S - 1) * 1000);
      expect((await get(token)).status).to.equal(200);
      server.clock.advance(-2000);
      expectTokenRefused(await get(token), /not valid yet/);
    });

    it('a token of another issuer', async () => {
      const { client } = await fixture();
      expectTokenRefused(
        await get(await oauth.forged({ ...oauth.claimsFor(client), iss: 'https://elsewhere.example' })),
        /issuer/,
      );
    });

    it('a token for another audience', async () => {
      const { client } = await fixture();
      expectTokenRefused(await get(await oauth.forged({ ...oauth.claimsFor(client), aud: 'another-api' })), /audience/);
    });

    it('an unsigned token (alg none)', async () => {
      const { client } = await fixture();
      const { kid } = await oauth.serverKey();
      const unsigned = `${base64url({ alg: 'none', typ: 'at+jwt', kid })}.${base64url(oauth.claimsFor(client))}.`;
      expectTokenRefused(await get(unsigned), /algorithm \(none\)/);
    });

    it('an HMAC token whose secret is the server’s public key', async () => {
      const { client } = await fixture();
      const { kid } = await oauth.serverKey();
      const jwks = await server.anonymous.get('/.well-known/jwks.json');
      const jwk = jwks.body.keys.find((key: { kid: string }) => key.kid === kid);
      const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
      for (const secret of [pem, JSON.stringify(jwk)]) {
        const hmac = await new SignJWT(oauth.claimsFor(client))
          .setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' })
          .sign(new TextEncoder().encode(secret));
        expectTokenRefused(await get(hmac), /algorithm \(HS256\)/);
      }
    });

    it('a token whose payload was altered', async () => {
      const { token } = await fixture();
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const widened = `${header}.${base64url({ ...claims, scope: ALL_SCOPES.join(' ') })}.${signature}`;
      expectTokenRefused(await get(widened), /signature/);
    });

    it('a token signed by a key the server does not know (kid)', async () => {
      const { client } = await fixture();
      const { privateKey } = await generateKeyPair('ES256');
      const unknown = await new SignJWT(oauth.claimsFor(client))
        .setProtectedHeader({ alg: 'ES256', kid: 'no-such-key', typ: 'at+jwt' })
        .sign(privateKey);
      expectTokenRefused(await get(unknown), /key this server does not know/);
      const { kid } = await oauth.serverKey();
      const otherKey = await new SignJWT(oauth.claimsFor(client))
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
        .sign(privateKey);
      expectTokenRefused(await get(otherKey), /signature/);
    });

    it('a JWT that is not an access token (typ), or lacks exp', async () => {
      const { client } = await fixture();
      expectTokenRefused(await get(await oauth.forged(oauth.claimsFor(client), { typ: 'JWT' })), /typ at\+jwt/);
      const { exp: _exp, ...noExpiry } = oauth.claimsFor(client);
      expectTokenRefused(await get(await oauth.forged(noExpiry)), /lacks the exp claim/);
    });

    it('the tokens of a deleted client, within a second of its deletion', async () => {
      const { client, token } = await fixture();
      expect((await get(token)).status).to.equal(200); // found, so trusted for a second
      expect((await oauth.admin().deleteClient(server.accountIds.first, client.id)).status).to.equal(200);
      await eventually(async () => expectTokenRefused(await get(token), /no longer exists/), DELETION_BOUND_MS);
    });

    it('a refused token on /graphql: 401 UNAUTHENTICATED with the same challenge', async () => {
      const { token } = await fixture();
      server.clock.advance((TTL_S + SKEW_S + 1) * 1000);
      const res = await graphql(server.url, token, '{ __typename }');
      expect(res.status).to.equal(401);
      expect(res.body.errors![0].extensions).to.include({ code: 'UNAUTHENTICATED', reason: 'access_token_invalid' });
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer error="invalid_token"/);
    });
  });
});

forEachDatabase('GET /.well-known/jwks.json', (engine) => {
  const server = useTestServer(engine);
  const oauth = oauthOf(server);
  const jwks = async () => {
    const res = await server.anonymous.get('/.well-known/jwks.json');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res;
  };
  const kids = async () => (await jwks()).body.keys.map((key: { kid: string }) => key.kid);
  /** Verifies a token as a relying party would: with the published keys only, on the server's clock. */
  const verifyWithJwks = async (token: string) =>
    jwtVerify(token, createLocalJWKSet((await jwks()).body), {
      algorithms: ['ES256'],
      issuer: 'payments-api',
      audience: 'payments-api',
      currentDate: new Date(server.clock.nowMs()),
    });

  it('publishes public keys only (no private part), cacheable for a minute, that verify an issued token', async () => {
    const token = await oauth.tokenOf(await oauth.newClient(['customers:read']));
    const res = await jwks();
    expect(res.headers.get('cache-control')).to.equal('public, max-age=60');
    expect(res.body.keys).to.have.length(1);
    const [key] = res.body.keys;
    expect(key).to.include({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: decodeProtectedHeader(token).kid,
    });
    expect(key).to.not.have.property('d');
    const { payload } = await verifyWithJwks(token);
    expect(payload.scope).to.equal('customers:read');
  });

  it('publishes the signing key before any token is issued', async () => {
    const [kid] = await kids();
    const token = await oauth.tokenOf(await oauth.newClient(['customers:read']));
    expect(decodeProtectedHeader(token).kid).to.equal(kid);
  });

  it('rotates the key once it is too old: both keys verify and are published while the old one’s tokens live', async () => {
    const rotation = 30 * 86_400;
    const client = await oauth.newClient(['customers:read']);
    await oauth.tokenOf(client); // the first key is made now
    server.clock.advance((rotation - 60) * 1000);
    const before = await oauth.tokenOf(client);
    server.clock.advance(120 * 1000); // the key is now older than the rotation period
    const after = await oauth.tokenOf(client);
    const oldKid = decodeProtectedHeader(before).kid;
    const newKid = decodeProtectedHeader(after).kid;
    expect(newKid).to.not.equal(oldKid);
    expect(await kids()).to.deep.equal([newKid, oldKid]);
    for (const token of [before, after]) {
      expect((await new ApiClient(server.url, token).get('/v1/customers')).status).to.equal(200);
      await verifyWithJwks(token);
    }
    // The old key's last token expires (plus the skew verifiers allow); then the key leaves the set.
    server.clock.advance((TTL_S + SKEW_S - 60) * 1000);
    expect(await kids()).to.deep.equal([newKid, oldKid]);
    server.clock.advance(120 * 1000);
    expect(await kids()).to.deep.equal([newKid]);
    expect((await new ApiClient(server.url, await oauth.tokenOf(client)).get('/v1/customers')).status).to.equal(200);
  });
});

/** A second token issuer on 127.0.0.1: its own keys, its JWKS served over HTTP. */
async function startIssuer() {
  const rsa = await generateKeyPair('RS256');
  const ed = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const keys = [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ed.publicKey)), kid: 'ed-1', alg: 'EdDSA', use: 'sig' },
  ];
  const server = http.createServer((req, res) => {
    if (req.url !== '/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    issuer: 'https://issuer.test/',
    audience: 'payments-api-partners',
    jwksUrl: new URL(`http://127.0.0.1:${port}/jwks.json`),
    keys: { rsa: rsa.privateKey, ed: ed.privateKey },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

forEachDatabase('access tokens of an external issuer', (engine) => {
  let issuer: Awaited<ReturnType<typeof startIssuer>>;
  const options: TestServerOptions = {};
  before(async () => {
    issuer = await startIssuer();
    options.externalJwt = { issuer: issuer.issuer, audience: issuer.audience, jwksUrl: issuer.jwksUrl };
  });
  after(() => issuer?.close());
  const server = useTestServer(engine, options);

  /** A token of the external issuer for the first test account, with `claims` over the defaults, signed RS256. */
  const external = (
    claims: JWTPayload = {},
    how: { alg: string; kid: string; key: CryptoKey } = { alg: 'RS256', kid: 'rsa-1', key: issuer.keys.rsa },
  ) => {
    const now = Math.floor(server.clock.nowMs() / 1000);
    const payload = {
      iss: issuer.issuer,
      aud: issuer.audience,
      account_id: server.accountIds.first,
      scope: 'customers:read',
      iat: now,
      exp: now + 300,
      ...claims,
    };
    return new SignJWT(payload).setProtectedHeader({ alg: how.alg, kid: how.kid }).sign(how.key);
  };
  const get = async (token: string, path = '/v1/customers') => new ApiClient(server.url, token).get(path);

  it('accepts its tokens (RS256 and EdDSA) as the account named by account_id, held to their scope', async () => {
    const customer = await aCustomer(server.api);
    for (const token of [await external(), await external({}, { alg: 'EdDSA', kid: 'ed-1', key: issuer.keys.ed })]) {
      const res = await get(token);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.map((c: { id: string }) => c.id)).to.deep.equal([customer.id]);
      expect(expectError(await get(token, '/v1/charges'), 403, 'insufficient_scope').message).to.include(
        'charges:read',
      );
    }
  });

  it('reads scopes from scp too, ignoring names it does not know', async () => {
    const token = await external({ scope: undefined, scp: ['charges:read', 'openid', 'profile'] });
    expect((await get(token, '/v1/charges')).status).to.equal(200);
    expectError(await get(token), 403, 'insufficient_scope');
  });

  it('refuses a token for another audience, an expired one, and one signed with a key its JWKS lacks', async () => {
    expectTokenRefused(await get(await external({ aud: 'someone-else' })), /audience/);
    expectTokenRefused(
      await get(await external({ exp: Math.floor(server.clock.nowMs() / 1000) - SKEW_S - 1 })),
      /expired/,
    );
    const { privateKey } = await generateKeyPair('RS256');
    expectTokenRefused(
      await get(await external({}, { alg: 'RS256', kid: 'rsa-unknown', key: privateKey })),
      /does not publish/,
    );
  });

  it('refuses a token naming no account, or an account that does not exist', async () => {
    expectTokenRefused(await get(await external({ account_id: undefined })), /names no account/);
    expectTokenRefused(await get(await external({ account_id: NO_ACCOUNT })), /does not exist/);
  });

  it('refuses an HMAC token of its issuer (symmetric algorithms are not accepted)', async () => {
    const now = Math.floor(server.clock.nowMs() / 1000);
    const hmac = await new SignJWT({ account_id: server.accountIds.first, scope: 'customers:read', exp: now + 300 })
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .setIssuer(issuer.issuer)
      .setAudience(issuer.audience)
      .sign(new TextEncoder().encode('a shared secret the issuer never published'));
    expectTokenRefused(await get(hmac), /algorithm \(HS256\)/);
  });
});

forEachDatabase('access tokens with configured settings', (engine) => {
  const accessTokens = { issuer: 'https://payments.test', ttlSeconds: 60, keyRotationSeconds: 600 };
  const server = useTestServer(engine, { accessTokens });

  it('issues and accepts tokens of OAUTH_ISSUER and ACCESS_TOKEN_TTL_SECONDS, rotating at TOKEN_KEY_ROTATION_SECONDS', async () => {
    const admin = { headers: { Authorization: ADMIN_AUTHORIZATION } };
    const created = await server.anonymous.post(`/admin/accounts/${server.accountIds.first}/oauth_clients`, {}, admin);
    const token = async (): Promise<string> => {
      const res = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: {
          Authorization: basicAuthorization(created.body.id, created.body.client_secret),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const body = (await res.json()) as { access_token: string; expires_in: number };
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(body.expires_in).to.equal(60);
      return body.access_token;
    };
    const first = await token();
    expect(decodeJwt(first)).to.include({ iss: accessTokens.issuer, aud: accessTokens.issuer });
    expect((await new ApiClient(server.url, first).get('/v1/customers')).status).to.equal(200);
    server.clock.advance(601_000);
    const second = await token();
    expect(decodeProtectedHeader(second).kid).to.not.equal(decodeProtectedHeader(first).kid);
    expect((await new ApiClient(server.url, second).get('/v1/customers')).status).to.equal(200);
  });
});
