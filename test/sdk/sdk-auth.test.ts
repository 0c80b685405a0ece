import { expect } from 'chai';
import { createClient, TokenRequestError } from '../../sdk/src/index.js';
import { ApiClient } from '../helpers/api-client.js';
import { forEachDatabase } from '../helpers/databases.js';
import { ADMIN_AUTHORIZATION, FakeClock, useTestServer } from '../helpers/test-server.js';

/** A fetch that counts the requests to each path. */
function countingFetch() {
  const calls = new Map<string, number>();
  const fetcher: typeof fetch = (input, init) => {
    const path = new URL(input instanceof Request ? input.url : input.toString()).pathname;
    calls.set(path, (calls.get(path) ?? 0) + 1);
    return fetch(input, init);
  };
  return { fetcher, calls };
}

forEachDatabase('SDK authentication', (engine) => {
  // The server's clock follows real time (signatures and tokens carry the client's time); each
  // test's server gets its own, so that a test moving it moves no other test's.
  let clock = new FakeClock(Date.now(), true);
  beforeEach(() => {
    clock = new FakeClock(Date.now(), true);
  });
  const server = useTestServer(engine, {
    get clock() {
      return clock;
    },
  });
  const admin = () => new ApiClient(server.url);
  const asAdmin = { headers: { Authorization: ADMIN_AUTHORIZATION } };

  async function oauthClient(scopes: string[]) {
    const res = await admin().post(`/admin/accounts/${server.accountIds.first}/oauth_clients`, { scopes }, asAdmin);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { clientId: res.body.id as string, clientSecret: res.body.client_secret as string };
  }

  async function signingKey() {
    const res = await admin().post(`/admin/accounts/${server.accountIds.first}/signing_keys`, {}, asAdmin);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { keyId: res.body.id as string, secret: res.body.secret as string };
  }

  describe('with client credentials', () => {
    it('fetches one access token for many calls, and is held to its scopes', async () => {
      const { fetcher, calls } = countingFetch();
      const credentials = await oauthClient(['customers:read', 'customers:write']);
      const payments = createClient({ clientCredentials: credentials, baseUrl: server.url, fetch: fetcher });
      const created = await payments.createCustomer({ email: 'token@example.com' });
      expect(created.status, JSON.stringify(created.data)).to.equal(200);
      const listed = await payments.listCustomers();
      expect(listed.status === 200 && listed.data.data.map((c) => c.id)).to.include(created.status === 200 && created.data.id);
      const refused = await payments.listCharges();
      expect(refused.status).to.equal(403);
      if (refused.status === 403) expect(refused.data.error.code).to.equal('insufficient_scope');
      expect(calls.get('/oauth/token')).to.equal(1);
      // The customer belongs to the account of the client.
      expect((await server.api.get(`/v1/customers/${created.status === 200 ? created.data.id : ''}`)).status).to.equal(200);
    });

    it('asks only for the scopes it is given', async () => {
      const credentials = await oauthClient(['customers:read', 'customers:write']);
      const payments = createClient({ clientCredentials: { ...credentials, scopes: ['customers:read'] }, baseUrl: server.url });
      expect((await payments.listCustomers()).status).to.equal(200);
      expect((await payments.createCustomer({ email: 'narrow@example.com' })).status).to.equal(403);
    });

    it('gets a new token when the server refuses an expired one, and the call succeeds', async () => {
      const { fetcher, calls } = countingFetch();
      const payments = createClient({ clientCredentials: await oauthClient(['customers:read']), baseUrl: server.url, fetch: fetcher });
      expect((await payments.listCustomers()).status).to.equal(200);
      server.clock.advance(16 * 60_000); // past the token's 15 minutes and the 30 s of skew allowed
      expect((await payments.listCustomers()).status).to.equal(200);
      expect(calls.get('/oauth/token')).to.equal(2);
      expect(calls.get('/v1/customers')).to.equal(3);
    });

    it('throws a TokenRequestError naming the RFC 6749 error when the credentials are wrong', async () => {
      const { clientId } = await oauthClient(['customers:read']);
      const payments = createClient({ clientCredentials: { clientId, clientSecret: 'cs_test_wrong' }, baseUrl: server.url });
      const error = await payments.listCustomers().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(TokenRequestError);
      expect(error).to.include({ status: 401, error: 'invalid_client' });
    });
  });

  describe('with a signing key', () => {
    it('signs GET and POST requests that the server accepts', async () => {
      const payments = createClient({ signingKey: await signingKey(), baseUrl: server.url });
      const created = await payments.createCustomer({ email: 'signed@example.com', metadata: { via: 'signature' } });
      expect(created.status, JSON.stringify(created.data)).to.equal(200);
      const fetched = await payments.retrieveCustomer(created.status === 200 ? created.data.id : '');
      // A retrieved customer may be a deleted one, which has no metadata: the type says so.
      expect(fetched.status === 200 && !('deleted' in fetched.data) && fetched.data.metadata).to.deep.equal({ via: 'signature' });
    });

    it('signs each retry afresh, so that a retried POST is not refused as a replay', async () => {
      let calls = 0;
      const flaky: typeof fetch = async (input, init) => {
        calls += 1;
        const response = await fetch(input, init);
        if (calls === 1) throw new TypeError('fetch failed: connection reset');
        return response;
      };
      const payments = createClient({ signingKey: await signingKey(), baseUrl: server.url, fetch: flaky });
      const created = await payments.createCustomer({ email: 'retry-signed@example.com' });
      expect(created.status, JSON.stringify(created.data)).to.equal(200);
      expect(created.headers.get('idempotent-replayed')).to.equal('true');
      expect(calls).to.equal(2);
    });

    it('is refused with a wrong secret', async () => {
      const { keyId } = await signingKey();
      const payments = createClient({ signingKey: { keyId, secret: 'hmsec_wrong' }, baseUrl: server.url });
      const res = await payments.listCustomers();
      expect(res.status).to.equal(401);
      if (res.status === 401) expect(res.data.error.code).to.equal('signature_invalid');
    });
  });

  it('refuses to be made with no credential or with two', () => {
    expect(() => createClient({ baseUrl: server.url } as never)).to.throw(TypeError, /exactly one/);
    expect(() => createClient({ apiKey: 'sk_test_x', signingKey: { keyId: 'k', secret: 's' } } as never)).to.throw(TypeError, /exactly one/);
  });
});
