import { expect } from 'chai';
import { countAccounts } from '../../src/resources/accounts/accounts.repo.js';
import { ApiClient } from '../helpers/api-client.js';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { ADMIN, basicAuthorization, useTestServer } from '../helpers/test-server.js';

const basic = basicAuthorization;
const ADMIN_AUTH = basic(ADMIN.user, ADMIN.password);
const ACCOUNT = { name: 'Rocket Rides', email: 'ops@rocketrides.example' };

forEachDatabase('auth', (engine) => {
  const server = useTestServer(engine);

  /** POST /admin/accounts with these headers (no API key). */
  function createAccount(headers: Record<string, string>, body: object = ACCOUNT) {
    return server.anonymous.post('/admin/accounts', body, { headers });
  }

  describe('API keys on /v1', () => {
    it('answers 401 api_key_missing without Authorization, and tells how to send the key', async () => {
      const error = expectError(await server.anonymous.get('/v1/customers'), 401, 'api_key_missing');
      expect(error.type).to.equal('authentication_error');
      expect(error.message).to.include('Bearer');
    });

    it('answers 401 api_key_invalid to an unknown key, without echoing the key', async () => {
      const key = 'sk_test_0123456789abcdefghijklmnopqrstuv';
      const res = await new ApiClient(server.url, key).get('/v1/customers');
      const error = expectError(res, 401, 'api_key_invalid');
      expect(error.type).to.equal('authentication_error');
      expect(error.message).to.not.include(key);
    });

    for (const header of ['Token sk_test_abc', 'Bearer', 'Bearer two words', 'sk_test_abc']) {
      it(`answers 401 api_key_invalid to the malformed header "${header}"`, async () => {
        const res = await server.anonymous.get('/v1/customers', { headers: { Authorization: header } });
        expect(expectError(res, 401, 'api_key_invalid').type).to.equal('authentication_error');
      });
    }

    it('does not accept the admin credentials (HTTP Basic)', async () => {
      const res = await server.anonymous.get('/v1/customers', { headers: { Authorization: ADMIN_AUTH } });
      expect(expectError(res, 401, 'api_key_invalid').type).to.equal('authentication_error');
    });

    it('refuses a POST without credentials and creates nothing', async () => {
      expectError(await server.anonymous.post('/v1/customers', { email: 'a@example.com' }), 401, 'api_key_missing');
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });

    it('accepts the scheme name in any case', async () => {
      const res = await server.anonymous.get('/v1/customers', { headers: { Authorization: `bearer ${server.api.apiKey}` } });
      expect(res.status).to.equal(200);
    });
  });

  describe('the API key as the HTTP Basic user name (curl -u sk_test_…:)', () => {
    it('authenticates reads and writes as the key does, form bodies included', async () => {
      const auth = { Authorization: basic(server.api.apiKey!, '') };
      const created = await server.anonymous.post('/v1/customers', { email: 'basic@example.com' }, { headers: auth, form: true });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      const mine = await aCustomer(server.api, { email: 'bearer@example.com' });
      const listed = await server.anonymous.get('/v1/customers', { headers: auth });
      expect(listed.status).to.equal(200);
      expect(listed.body.data.map((c: { id: string }) => c.id)).to.deep.equal([mine.id, created.body.id]);
      expect((await server.otherApi.get(`/v1/customers/${mine.id}`)).status).to.equal(404);
    });

    it('authenticates GraphQL too', async () => {
      const res = await server.anonymous.post(
        '/graphql',
        { query: '{ charges(first: 1) { edges { node { id } } } }' },
        { headers: { Authorization: basic(server.api.apiKey!, '') } },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ data: { charges: { edges: [] } } });
    });

    it('answers 401 api_key_invalid to an unknown key, without echoing it', async () => {
      const key = 'sk_test_0123456789abcdefghijklmnopqrstuv';
      const res = await server.anonymous.get('/v1/customers', { headers: { Authorization: basic(key, '') } });
      expect(expectError(res, 401, 'api_key_invalid').message).to.not.include(key);
    });

    it('answers 401 api_key_invalid to a password, or an empty user name, saying how to send the key', async () => {
      for (const [user, password] of [[server.api.apiKey!, 'secret'], ['', '']]) {
        const res = await server.anonymous.get('/v1/customers', { headers: { Authorization: basic(user, password) } });
        expect(expectError(res, 401, 'api_key_invalid').message).to.include('empty');
      }
    });

    it('is not the admin credentials: /admin refuses it', async () => {
      expectError(await createAccount({ Authorization: basic(server.api.apiKey!, '') }), 401, 'admin_credentials_invalid');
    });
  });

  describe('POST /admin/accounts', () => {
    it('creates an account and a working API key that sees only its own objects', async () => {
      const res = await createAccount({ Authorization: ADMIN_AUTH });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ object: 'account', ...ACCOUNT });
      expect(res.body.id).to.match(/^acct_[0-9A-Za-z]{24}$/);
      expect(res.body.api_key).to.match(/^sk_test_[0-9A-Za-z]{32}$/);

      const existing = await aCustomer(server.api);
      await aCharge(server.api);
      const fresh = new ApiClient(server.url, res.body.api_key);
      const list = await fresh.get('/v1/customers');
      expect(list.status).to.equal(200);
      expect(list.body.data).to.deep.equal([]);
      expect((await fresh.get('/v1/charges')).body.data).to.deep.equal([]);
      expect((await fresh.get('/v1/events')).body.data).to.deep.equal([]);
      expectError(await fresh.get(`/v1/customers/${existing.id}`), 404, 'resource_missing');

      const own = await aCustomer(fresh, { email: 'rider@example.com' });
      expect((await fresh.get('/v1/customers')).body.data.map((c: any) => c.id)).to.deep.equal([own.id]);
      expectError(await server.api.get(`/v1/customers/${own.id}`), 404, 'resource_missing');
      expect((await server.api.get('/v1/customers')).body.data.map((c: any) => c.id)).to.deep.equal([existing.id]);
    });

    it('gives every account its own key', async () => {
      const a = await createAccount({ Authorization: ADMIN_AUTH });
      const b = await createAccount({ Authorization: ADMIN_AUTH }, { name: 'Other', email: 'b@example.com' });
      expect(a.body.id).to.not.equal(b.body.id);
      expect(a.body.api_key).to.not.equal(b.body.api_key);
    });

    it('answers 401 admin_credentials_invalid to a wrong password or user, creating nothing', async () => {
      for (const header of [basic(ADMIN.user, 'wrong-password'), basic('root', ADMIN.password), basic(ADMIN.user, '')]) {
        const error = expectError(await createAccount({ Authorization: header }), 401, 'admin_credentials_invalid');
        expect(error.type).to.equal('authentication_error');
      }
      expect(await countAccounts(server.db)).to.equal(2);
    });

    it('answers 401 admin_credentials_invalid without credentials', async () => {
      expectError(await createAccount({}), 401, 'admin_credentials_invalid');
    });

    it('does not accept an API key', async () => {
      const error = expectError(
        await createAccount({ Authorization: `Bearer ${server.api.apiKey}` }),
        401,
        'admin_credentials_invalid',
      );
      expect(error.type).to.equal('authentication_error');
    });

    it('validates the body once authenticated', async () => {
      expectError(await createAccount({ Authorization: ADMIN_AUTH }, { name: 'x' }), 400, 'parameter_missing', 'email');
    });
  });
});
