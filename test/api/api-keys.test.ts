import { expect } from 'chai';
import { ApiClient, type ApiResponse, type RequestOptions } from '../helpers/api-client.js';
import { startApiProcessesInTurn, type ApiProcess } from '../helpers/api-process.js';
import { aCharge, expectError } from '../helpers/builders.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import {
  ADMIN,
  ADMIN_AUTHORIZATION,
  basicAuthorization,
  currentServer,
  startTestServer,
  useTestServer,
  type TestServer,
  type TestServerOptions,
} from '../helpers/test-server.js';
import { bearer, nextValue, subscriptionClient } from '../graphql/live-events.js';

const basic = basicAuthorization;
const ADMIN_HEADERS = { Authorization: ADMIN_AUTHORIZATION };
const CHARGE = { amount: 2000, currency: 'usd', source: 'tok_visa' };
const NO_ACCOUNT = 'acct_000000000000000000000000';
/** A found key is trusted for a second: a revoked key is refused within that, plus slack for a loaded machine. */
const REVOCATION_BOUND_MS = 1500;
/**
 * The in-process servers of this file trust a found key this long instead, so that a revocation
 * shows at once (they are still held to `REVOCATION_BOUND_MS`); the production second is held by
 * the test across API processes below.
 */
const TRUST_MS = 50;

/** Waits until every key found so far has been forgotten, so that the next request reads its key again. */
const pastTrust = () => new Promise((resolve) => setTimeout(resolve, TRUST_MS + 20));

/** The operator's requests on the key endpoints of the server at `url`. */
function adminOf(url: string) {
  const client = new ApiClient(url);
  const withAdmin = (options: RequestOptions = {}) => ({ ...options, headers: { ...ADMIN_HEADERS, ...options.headers } });
  return {
    /** A new account; `secret` is a client with its first (secret) key. */
    async createAccount(name: string): Promise<{ id: string; secret: ApiClient }> {
      const res = await client.post('/admin/accounts', { name, email: `${name.toLowerCase()}@example.com` }, withAdmin());
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return { id: res.body.id, secret: new ApiClient(url, res.body.api_key) };
    },
    createKey: (accountId: string, body?: unknown, options?: RequestOptions) =>
      client.post(`/admin/accounts/${accountId}/api_keys`, body, withAdmin(options)),
    listKeys: (accountId: string, query = '') => client.get(`/admin/accounts/${accountId}/api_keys${query}`, withAdmin()),
    revokeKey: (accountId: string, keyId: string) => client.delete(`/admin/accounts/${accountId}/api_keys/${keyId}`, withAdmin()),
  };
}

/** Posts a form body written by hand, for the bracket spelling the test client does not produce (`scopes[]=`). */
async function postForm(url: string, form: string, headers: Record<string, string>): Promise<ApiResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** The 403 of a key without `scope`, naming it. */
function expectInsufficientScope(res: ApiResponse, scope: string): void {
  const error = expectError(res, 403, 'insufficient_scope');
  expect(error.type).to.equal('permission_error');
  expect(error.message).to.include(scope);
}

forEachDatabase('api keys', (engine) => {
  const options: TestServerOptions = { apiKeyTrustMs: TRUST_MS };
  // Every test makes its own account, so the tests share one server; a test that moves the clock has its own.
  const shared = useTestServer(engine, options, { per: 'suite' });
  let own: TestServer | undefined;
  const server = currentServer(() => own ?? shared);

  /** A test that moves the clock: on a server of its own, so that the shared server's clock stands still. */
  function itMovesTheClock(title: string, test: () => Promise<void>) {
    it(title, async () => {
      own = await startTestServer(engine, options);
      try {
        await test();
      } finally {
        await own.close();
        own = undefined;
      }
    });
  }
  const admin = () => adminOf(server.url);

  /** A new account, its secret key, and a restricted key holding `scopes` (its resource and its secret). */
  async function restrictedKey(scopes: string[]) {
    const account = await admin().createAccount('Scoped');
    const res = await admin().createKey(account.id, { scopes });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { account, key: res.body, restricted: new ApiClient(server.url, res.body.secret) };
  }

  describe('createAccountApiKey', () => {
    it('issues a restricted key: its secret once, its scopes, and only prefix and last four shown after', async () => {
      const account = await admin().createAccount('Rocket');
      const res = await admin().createKey(account.id, { scopes: ['charges:read', 'refunds:write'] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const { secret, ...key } = res.body;
      expect(secret).to.match(/^rk_test_[0-9A-Za-z]{32}$/);
      const scopes = ['charges:read', 'refunds:write'];
      expect(key).to.deep.include({ object: 'api_key', type: 'restricted', scopes, revoked: null });
      expect(key.id).to.match(/^key_[0-9A-Za-z]+$/);
      expect(key.redacted).to.equal(`rk_test_…${secret.slice(-4)}`);
      expect(key.created).to.be.a('number');

      const listed = await admin().listKeys(account.id);
      expect(listed.body.data[0]).to.deep.equal(key);
      expect(JSON.stringify(listed.body)).to.not.include(secret);
    });

    it('reads scopes from a form body, as scopes[]= and as scopes[0]=', async () => {
      const account = await admin().createAccount('Form');
      const url = `${server.url}/admin/accounts/${account.id}/api_keys`;
      const appended = await postForm(url, 'scopes[]=charges:read&scopes[]=customers:write', ADMIN_HEADERS);
      const indexed = await admin().createKey(account.id, { scopes: ['charges:read', 'customers:write'] }, { form: true });
      for (const res of [appended, indexed]) {
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body).to.deep.include({ type: 'restricted', scopes: ['charges:read', 'customers:write'] });
        expect(res.body.secret).to.match(/^rk_test_/);
      }
    });

    it('issues a secret key (sk_test_…, every scope) without scopes, with or without a body', async () => {
      const account = await admin().createAccount('Secret');
      for (const body of [undefined, {}]) {
        const res = await admin().createKey(account.id, body);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body).to.deep.include({ type: 'secret', scopes: null, revoked: null });
        expect(res.body.secret).to.match(/^sk_test_[0-9A-Za-z]{32}$/);
        expect(res.body.redacted).to.equal(`sk_test_…${res.body.secret.slice(-4)}`);
        const key = new ApiClient(server.url, res.body.secret);
        const charge = await aCharge(key);
        expect((await key.get(`/v1/charges/${charge.id}`)).status).to.equal(200);
        for (const path of ['/v1/customers', '/v1/events', '/v1/refunds', '/v1/webhook_endpoints']) {
          expect((await key.get(path)).status, path).to.equal(200);
        }
      }
    });

    it('answers 400 to an unknown scope, naming the parameter, and issues nothing', async () => {
      const account = await admin().createAccount('Unknown');
      const res = await admin().createKey(account.id, { scopes: ['charges:delete'] });
      expectError(res, 400, 'parameter_invalid', 'scopes[0]');
      const form = await admin().createKey(account.id, { scopes: ['charges:read', 'nope'] }, { form: true });
      expectError(form, 400, 'parameter_invalid', 'scopes[1]');
      expect((await admin().listKeys(account.id)).body.data).to.have.length(2);
    });

    it('answers 400 to an empty or repeated list of scopes', async () => {
      const account = await admin().createAccount('Empty');
      expect((await admin().createKey(account.id, { scopes: [] })).status).to.equal(400);
      expect((await admin().createKey(account.id, { scopes: ['charges:read', 'charges:read'] })).status).to.equal(400);
    });

    it('answers 404 to an unknown account', async () => {
      const res = await admin().createKey(NO_ACCOUNT, { scopes: ['charges:read'] });
      expectError(res, 404, 'resource_missing', 'id');
    });

    it('refuses an API key (401): only the operator issues keys', async () => {
      const { account, restricted } = await restrictedKey(['charges:read']);
      for (const apiKey of [server.apiKeys.first, restricted.apiKey!]) {
        const headers = { Authorization: `Bearer ${apiKey}` };
        const res = await server.anonymous.post(`/admin/accounts/${account.id}/api_keys`, {}, { headers });
        expect(expectError(res, 401, 'admin_credentials_invalid').type).to.equal('authentication_error');
      }
      expect((await admin().listKeys(account.id)).body.data).to.have.length(3);
    });
  });

  describe('a restricted key on /v1', () => {
    it('may call the operations of its scopes', async () => {
      const { account, restricted } = await restrictedKey(['charges:read']);
      const charge = await aCharge(account.secret);
      const list = await restricted.get('/v1/charges');
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      expect(idsOf(list)).to.deep.equal([charge.id]);
      expect((await restricted.get(`/v1/charges/${charge.id}`)).body.id).to.equal(charge.id);
    });

    it('gets 403 insufficient_scope on other operations, naming the scope, and a refused POST creates nothing', async () => {
      const { account, restricted } = await restrictedKey(['charges:read']);
      expectInsufficientScope(await restricted.post('/v1/charges', CHARGE), 'charges:write');
      expectInsufficientScope(await restricted.post('/v1/charges', CHARGE, { form: true }), 'charges:write');
      expectInsufficientScope(await restricted.get('/v1/customers'), 'customers:read');
      expectInsufficientScope(await restricted.post('/v1/customers', { email: 'a@example.com' }), 'customers:write');
      expect((await account.secret.get('/v1/charges')).body.data).to.deep.equal([]);
      expect((await account.secret.get('/v1/customers')).body.data).to.deep.equal([]);
      expect((await account.secret.get('/v1/events')).body.data).to.deep.equal([]);
    });

    it('holds write without read: a charges:write key creates charges but does not list them', async () => {
      const { account, restricted } = await restrictedKey(['charges:write']);
      const created = await restricted.post('/v1/charges', CHARGE);
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      expectInsufficientScope(await restricted.get('/v1/charges'), 'charges:read');
      expect(idsOf(await account.secret.get('/v1/charges'))).to.deep.equal([created.body.id]);
    });

    it('expands only what its scopes may read: expanding is reading', async () => {
      const { account, restricted } = await restrictedKey(['charges:read', 'refunds:read']);
      const customer = (await account.secret.post('/v1/customers', { email: 'c@example.com' })).body;
      const charge = await aCharge(account.secret, { customer: customer.id });
      await account.secret.post('/v1/refunds', { charge: charge.id });
      expect((await restricted.get(`/v1/charges/${charge.id}`)).body.customer).to.equal(customer.id);
      expectInsufficientScope(await restricted.get(`/v1/charges/${charge.id}?expand[]=customer`), 'customers:read');
      expectInsufficientScope(await restricted.get('/v1/refunds?expand[]=data.charge.customer'), 'customers:read');
      const refunds = await restricted.get('/v1/refunds?expand[]=data.charge');
      expect(refunds.status, JSON.stringify(refunds.body)).to.equal(200);
      expect(refunds.body.data[0].charge.id).to.equal(charge.id);
    });

    it('is checked the same when sent as the HTTP Basic user name (curl -u rk_test_…:)', async () => {
      const { account, restricted } = await restrictedKey(['charges:read']);
      const headers = { Authorization: basic(restricted.apiKey!, '') };
      expect((await server.anonymous.get('/v1/charges', { headers })).status).to.equal(200);
      expectInsufficientScope(await server.anonymous.post('/v1/charges', CHARGE, { headers, form: true }), 'charges:write');
      expectInsufficientScope(await server.anonymous.get('/v1/customers', { headers }), 'customers:read');
      expect((await account.secret.get('/v1/charges')).body.data).to.deep.equal([]);
    });

    it('does not store its 403 under an Idempotency-Key: the same key then runs for a secret key', async () => {
      const { account, restricted } = await restrictedKey(['charges:read']);
      const refused = await restricted.post('/v1/charges', CHARGE, { idempotencyKey: 'scoped-order' });
      expectInsufficientScope(refused, 'charges:write');
      expect(refused.headers.get('idempotent-replayed')).to.equal(null);
      const ran = await account.secret.post('/v1/charges', CHARGE, { idempotencyKey: 'scoped-order' });
      expect(ran.status, JSON.stringify(ran.body)).to.equal(200);
      expect(ran.headers.get('idempotent-replayed')).to.equal(null);
      expect(idsOf(await account.secret.get('/v1/charges'))).to.deep.equal([ran.body.id]);
    });
  });

  describe('listAccountApiKeys', () => {
    itMovesTheClock('lists the keys newest first, revoked ones included, never a secret', async () => {
      const account = await admin().createAccount('Listed');
      const first = (await admin().createKey(account.id, { scopes: ['charges:read'] })).body;
      const second = (await admin().createKey(account.id)).body;
      server.clock.advance(5000);
      const revoked = (await admin().revokeKey(account.id, first.id)).body;
      expect(revoked.revoked).to.equal(first.created + 5);

      const res = await admin().listKeys(account.id);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ object: 'list', has_more: false, url: `/admin/accounts/${account.id}/api_keys` });
      const [newest, middle, accountKey, publishable] = res.body.data;
      expect(res.body.data).to.have.length(4);
      expect(newest).to.deep.equal(without(second, 'secret'));
      expect(middle).to.deep.equal({ ...without(first, 'secret'), revoked: first.created + 5 });
      expect(accountKey).to.include({ type: 'secret', scopes: null, revoked: null });
      // The account's publishable key is public: it alone is shown in full.
      expect(publishable).to.include({ type: 'publishable', revoked: null });
      expect(publishable.key).to.match(/^pk_test_/);
      for (const key of res.body.data) expect(key).to.not.have.property('secret');
      for (const secret of [first.secret, second.secret]) expect(JSON.stringify(res.body)).to.not.include(secret);
    });

    it('pages with limit and starting_after', async () => {
      const account = await admin().createAccount('Paged');
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push((await admin().createKey(account.id, { scopes: ['events:read'] })).body.id);
      const first = await admin().listKeys(account.id, '?limit=2');
      expect(idsOf(first)).to.deep.equal([ids[3], ids[2]]);
      expect(first.body.has_more).to.equal(true);
      const next = await admin().listKeys(account.id, `?limit=2&starting_after=${ids[2]}`);
      expect(idsOf(next)).to.deep.equal([ids[1], ids[0]]);
      expect(next.body.has_more).to.equal(true); // the account's first keys, made with the account, are older still
      const last = await admin().listKeys(account.id, `?limit=2&starting_after=${ids[0]}`);
      expect(last.body.data).to.have.length(2);
      expect(last.body.has_more).to.equal(false);
    });

    it("lists no key of another account, nor pages from another account's key", async () => {
      const mine = await admin().createAccount('Mine');
      const theirs = await admin().createAccount('Theirs');
      const their = (await admin().createKey(theirs.id, { scopes: ['charges:read'] })).body;
      const res = await admin().listKeys(mine.id);
      expect(res.body.data).to.have.length(2);
      expect(idsOf(res)).to.not.include(their.id);
      expectError(await admin().listKeys(mine.id, `?starting_after=${their.id}`), 400, 'parameter_invalid', 'starting_after');
    });

    it('answers 404 to an unknown account and 401 to an API key', async () => {
      expectError(await admin().listKeys(NO_ACCOUNT), 404, 'resource_missing', 'id');
      const res = await server.api.get(`/admin/accounts/${NO_ACCOUNT}/api_keys`);
      expectError(res, 401, 'admin_credentials_invalid');
    });
  });

  describe('rollAccountApiKey', () => {
    const roll = (accountId: string, keyId: string, body?: unknown) =>
      server.anonymous.post(`/admin/accounts/${accountId}/api_keys/${keyId}/roll`, body, { headers: ADMIN_HEADERS });

    it('issues a new key of the same kind and scopes, and ends the old one at once by default', async () => {
      const { account, key, restricted } = await restrictedKey(['charges:read']);
      expect((await restricted.get('/v1/charges')).status).to.equal(200);
      const rolled = await roll(account.id, key.id);
      expect(rolled.status, JSON.stringify(rolled.body)).to.equal(200);
      expect(rolled.body).to.include({ object: 'api_key', type: 'restricted', revoked: null, expires: null });
      expect(rolled.body.id).to.not.equal(key.id);
      expect(rolled.body.scopes).to.deep.equal(['charges:read']);
      expect(rolled.body.secret).to.match(/^rk_test_/);
      const replacement = new ApiClient(server.url, rolled.body.secret);
      expect((await replacement.get('/v1/charges')).status).to.equal(200);
      expectInsufficientScope(await replacement.get('/v1/customers'), 'customers:read');
      await eventually(async () => expectError(await restricted.get('/v1/charges'), 401, 'api_key_invalid'), REVOCATION_BOUND_MS);
      const listed = (await admin().listKeys(account.id)).body.data.find((k: { id: string }) => k.id === key.id);
      expect(listed).to.include({ revoked: null, expires: rolled.body.created });
    });

    itMovesTheClock('keeps the old key working for expires_in seconds, then refuses it', async () => {
      const account = await admin().createAccount('Rolling');
      const oldKey = (await admin().listKeys(account.id)).body.data[0];
      const rolled = await roll(account.id, oldKey.id, { expires_in: 3600 });
      expect(rolled.status, JSON.stringify(rolled.body)).to.equal(200);
      expect(rolled.body).to.include({ type: 'secret', scopes: null });
      server.clock.advance(3599 * 1000);
      await pastTrust();
      expect((await account.secret.get('/v1/customers')).status, 'the old key within its overlap').to.equal(200);
      server.clock.advance(2 * 1000);
      await eventually(async () => expectError(await account.secret.get('/v1/customers'), 401, 'api_key_invalid'), REVOCATION_BOUND_MS);
      expect((await new ApiClient(server.url, rolled.body.secret).get('/v1/customers')).status).to.equal(200);
    });

    it('answers 404 to a revoked, an expired or an unknown key, and 400 to an overlap over 7 days', async () => {
      const { account, key } = await restrictedKey(['charges:read']);
      const tooLong = await roll(account.id, key.id, { expires_in: 604_801 });
      expect(expectError(tooLong, 400, 'parameter_invalid').param).to.equal('expires_in');
      await roll(account.id, key.id);
      expectError(await roll(account.id, key.id), 404, 'resource_missing');
      const other = await admin().createKey(account.id, { scopes: ['charges:read'] });
      await admin().revokeKey(account.id, other.body.id);
      expectError(await roll(account.id, other.body.id), 404, 'resource_missing');
      expectError(await roll(account.id, 'key_unknown0000000000000000'), 404, 'resource_missing');
    });
  });

  describe('revokeAccountApiKey', () => {
    it('refuses the key (401 api_key_invalid) within a second; the other keys of the account keep working', async () => {
      const { account, key, restricted } = await restrictedKey(['charges:read']);
      const other = new ApiClient(server.url, (await admin().createKey(account.id, { scopes: ['charges:read'] })).body.secret);
      expect((await restricted.get('/v1/charges')).status).to.equal(200); // found, so trusted for a second
      const res = await admin().revokeKey(account.id, key.id);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({ id: key.id, type: 'restricted', scopes: ['charges:read'] });
      expect(res.body.revoked).to.be.a('number');

      await eventually(async () => {
        const refused = await restricted.get('/v1/charges');
        expect(expectError(refused, 401, 'api_key_invalid').type).to.equal('authentication_error');
      }, REVOCATION_BOUND_MS);
      expect((await other.get('/v1/charges')).status).to.equal(200);
      expect((await account.secret.post('/v1/charges', CHARGE)).status).to.equal(200);
    });

    it('closes the GraphQL subscriptions of a revoked key (4403), as its HTTP requests are refused', async () => {
      const { account, key } = await restrictedKey(['events:read', 'customers:write']);
      const client = subscriptionClient(server.wsUrl, bearer(key.secret));
      try {
        const closed = new Promise<{ code: number; reason: string }>((resolve) =>
          client.on('closed', (event) => resolve(event as { code: number; reason: string })),
        );
        const before = server.eventStream.subscriberCount;
        const events = client.iterate<{ events: { type: string } }>({ query: 'subscription { events { type } }' });
        const first = nextValue(events);
        await eventually(() => expect(server.eventStream.subscriberCount).to.equal(before + 1));
        expect((await new ApiClient(server.url, key.secret).post('/v1/customers', {})).status).to.equal(200);
        expect((await first).data!.events.type).to.equal('customer.created');
        await admin().revokeKey(account.id, key.id);
        const { code, reason } = await closed;
        expect(code).to.equal(4403);
        expect(reason).to.include('Invalid API key');
      } finally {
        await client.dispose();
      }
    });

    it('revokes a secret key too', async () => {
      const account = await admin().createAccount('Revoked');
      const [first] = (await admin().listKeys(account.id)).body.data;
      expect((await admin().revokeKey(account.id, first.id)).body).to.include({ type: 'secret' });
      const refused = async () => expectError(await account.secret.get('/v1/charges'), 401, 'api_key_invalid');
      await eventually(refused, REVOCATION_BOUND_MS);
    });

    it("answers 404 to a second revocation, to an unknown key and to another account's key", async () => {
      const { account, key } = await restrictedKey(['charges:read']);
      expect((await admin().revokeKey(account.id, key.id)).status).to.equal(200);
      expectError(await admin().revokeKey(account.id, key.id), 404, 'resource_missing', 'key_id');
      expectError(await admin().revokeKey(account.id, 'key_000000000000000000000000'), 404, 'resource_missing', 'key_id');
      const other = await admin().createAccount('Other');
      const [otherKey] = (await admin().listKeys(other.id)).body.data;
      expectError(await admin().revokeKey(account.id, otherKey.id), 404, 'resource_missing', 'key_id');
      expect((await other.secret.get('/v1/charges')).status).to.equal(200);
    });

    it('answers 404 to an unknown account and 401 to an API key', async () => {
      const { account, key } = await restrictedKey(['charges:read']);
      expectError(await admin().revokeKey(NO_ACCOUNT, key.id), 404, 'resource_missing', 'id');
      const byKey = await account.secret.delete(`/admin/accounts/${account.id}/api_keys/${key.id}`);
      expectError(byKey, 401, 'admin_credentials_invalid');
      expect((await admin().listKeys(account.id)).body.data[0].revoked).to.equal(null);
    });
  });

  describe("the account's own keys (/v1/api_keys)", () => {
    it("lists and retrieves the account's keys, never another account's", async () => {
      const { account, key } = await restrictedKey(['charges:read']);
      const listed = await account.secret.get('/v1/api_keys');
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      expect(listed.body.url).to.equal('/v1/api_keys');
      expect(listed.body.data.map((k: { id: string }) => k.id)).to.include(key.id).and.have.length(3);
      expect(JSON.stringify(listed.body)).to.not.include(key.secret);
      const retrieved = await account.secret.get(`/v1/api_keys/${key.id}`);
      expect(retrieved.body).to.deep.include({ id: key.id, type: 'restricted', scopes: ['charges:read'] });
      expectError(await server.api.get(`/v1/api_keys/${key.id}`), 404, 'resource_missing', 'id');
      expectError(await server.api.delete(`/v1/api_keys/${key.id}`), 404, 'resource_missing', 'id');
    });

    it('needs api_keys:read to list and api_keys:write to create, naming the scope', async () => {
      const { restricted } = await restrictedKey(['charges:read']);
      expectInsufficientScope(await restricted.get('/v1/api_keys'), 'api_keys:read');
      expectInsufficientScope(await restricted.post('/v1/api_keys', { scopes: ['charges:read'] }), 'api_keys:write');
      const reader = (await restrictedKey(['api_keys:read'])).restricted;
      expect((await reader.get('/v1/api_keys')).status).to.equal(200);
      expectInsufficientScope(await reader.post('/v1/api_keys', { scopes: ['charges:read'] }), 'api_keys:write');
    });

    it('lets a restricted key make only keys no stronger than itself', async () => {
      const { account, restricted } = await restrictedKey(['api_keys:write', 'charges:read']);
      const made = await restricted.post('/v1/api_keys', { scopes: ['charges:read'] }, { form: true });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect(made.body).to.deep.include({ type: 'restricted', scopes: ['charges:read'] });
      expect((await new ApiClient(server.url, made.body.secret).get('/v1/charges')).status).to.equal(200);

      const stronger = expectError(await restricted.post('/v1/api_keys', { scopes: ['customers:read'] }), 403, 'insufficient_scope', 'scopes');
      expect(stronger.message).to.include('customers:read');
      expectError(await restricted.post('/v1/api_keys', {}), 403, 'insufficient_scope', 'scopes');
      // Three keys were there (the account's secret and publishable keys, and `restricted`), and one was made.
      expect((await account.secret.get('/v1/api_keys')).body.data).to.have.length(4);
    });

    it('lets a secret key make a secret key, usable at once', async () => {
      const account = await admin().createAccount('Self');
      const made = await account.secret.post('/v1/api_keys', undefined, { headers: { 'Idempotency-Key': 'own-key-1' } });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect(made.body).to.deep.include({ type: 'secret', scopes: null, last_used: null });
      expect((await new ApiClient(server.url, made.body.secret).post('/v1/customers', {})).status).to.equal(200);
    });

    it('revokes a key, itself included, and refuses it within a second', async () => {
      const { account, key, restricted } = await restrictedKey(['api_keys:write', 'charges:read']);
      const revoked = await restricted.delete(`/v1/api_keys/${key.id}`);
      expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
      expect(revoked.body.revoked).to.be.a('number');
      await eventually(async () => expectError(await restricted.get('/v1/charges'), 401, 'api_key_invalid'), REVOCATION_BOUND_MS);
      expectError(await account.secret.delete(`/v1/api_keys/${key.id}`), 404, 'resource_missing', 'id');
    });

    it('does not let a restricted key revoke or roll a key stronger than itself', async () => {
      const { account, restricted } = await restrictedKey(['api_keys:write', 'charges:read']);
      const [secretKey] = (await admin().listKeys(account.id)).body.data.filter((k: { type: string }) => k.type === 'secret');
      expectError(await restricted.delete(`/v1/api_keys/${secretKey.id}`), 403, 'insufficient_scope', 'id');
      expectError(await restricted.post(`/v1/api_keys/${secretKey.id}/roll`, {}), 403, 'insufficient_scope', 'id');
      expect((await account.secret.get('/v1/charges')).status).to.equal(200);
    });

    itMovesTheClock('rolls a key with an overlap: the old one works until it expires, the new one at once', async () => {
      const { account, key, restricted } = await restrictedKey(['charges:read']);
      const rolled = await account.secret.post(`/v1/api_keys/${key.id}/roll`, { expires_in: 60 });
      expect(rolled.status, JSON.stringify(rolled.body)).to.equal(200);
      expect(rolled.body).to.deep.include({ type: 'restricted', scopes: ['charges:read'] });
      const next = new ApiClient(server.url, rolled.body.secret);
      expect((await next.get('/v1/charges')).status).to.equal(200);
      expect((await account.secret.get(`/v1/api_keys/${key.id}`)).body.expires).to.equal(Math.floor(server.clock.nowMs() / 1000) + 60);
      expect((await restricted.get('/v1/charges')).status).to.equal(200);
      server.clock.advance(61_000);
      await eventually(async () => expectError(await restricted.get('/v1/charges'), 401, 'api_key_invalid'), REVOCATION_BOUND_MS);
      expect((await next.get('/v1/charges')).status).to.equal(200);
    });
  });

  describe('last_used', () => {
    const nowSeconds = () => Math.floor(server.clock.nowMs() / 1000);
    const lastUsed = async (accountId: string, keyId: string) =>
      (await admin().listKeys(accountId)).body.data.find((k: { id: string }) => k.id === keyId).last_used as number | null;

    itMovesTheClock('is null until the key is used, then the time of its use, kept to the minute', async () => {
      const { account, key, restricted } = await restrictedKey(['charges:read']);
      expect(await lastUsed(account.id, key.id)).to.equal(null);
      expect((await restricted.get('/v1/charges')).status).to.equal(200);
      const firstUse = nowSeconds();
      await eventually(async () => expect(await lastUsed(account.id, key.id)).to.equal(firstUse));

      // Within the minute, further use writes nothing, even once the key is read again.
      server.clock.advance(30_000);
      await pastTrust();
      expect((await restricted.get('/v1/charges')).status).to.equal(200);
      expect(await lastUsed(account.id, key.id)).to.equal(firstUse);

      // A minute later, the next read of the key records the new time.
      server.clock.advance(31_000);
      await eventually(async () => {
        expect((await restricted.get('/v1/charges')).status).to.equal(200);
        expect(await lastUsed(account.id, key.id)).to.equal(nowSeconds());
      }, 3000);
    });
  });

  // SQLite serves one API process; over Postgres any number share one database, and each its own cache of keys.
  if (engine === 'postgres') {
    describe('across API processes', () => {
      const BOOTSTRAP_KEY = 'sk_test_apikeysscaleout';
      let database: TestDatabase;
      const processes: ApiProcess[] = [];
      afterEach(async () => {
        await Promise.all(processes.splice(0).map((p) => p.stop()));
        await database?.drop();
      });

      it('a key revoked through one process is refused by the other within a second', async function () {
        this.timeout(90_000);
        database = await createDatabase('postgres');
        const env = { BOOTSTRAP_API_KEY: BOOTSTRAP_KEY, ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password };
        const [a, b] = await startApiProcessesInTurn(database.target, env, 2, processes);
        const account = await adminOf(a.url).createAccount('Scaled');
        const key = (await adminOf(a.url).createKey(account.id, { scopes: ['charges:read'] })).body;
        const onA = new ApiClient(a.url, key.secret);
        const onB = new ApiClient(b.url, key.secret);
        // Both processes have found the key, so both trust it for a second.
        for (const client of [onA, onB]) expect((await client.get('/v1/charges')).status).to.equal(200);
        expectInsufficientScope(await onB.get('/v1/customers'), 'customers:read');

        expect((await adminOf(a.url).revokeKey(account.id, key.id)).status).to.equal(200);
        await eventually(async () => {
          for (const client of [onA, onB]) expectError(await client.get('/v1/charges'), 401, 'api_key_invalid');
        }, REVOCATION_BOUND_MS);
        expect((await new ApiClient(b.url, BOOTSTRAP_KEY).get('/v1/charges')).status).to.equal(200);
      });
    });
  }
});

/** The ids of a list page, in its order. */
function idsOf(list: ApiResponse): string[] {
  return list.body.data.map((object: { id: string }) => object.id);
}

/** `object` without one property. */
function without<T extends object, K extends keyof T>(object: T, key: K): Omit<T, K> {
  const { [key]: _dropped, ...rest } = object;
  return rest;
}
