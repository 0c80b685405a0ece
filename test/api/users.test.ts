import { expect } from 'chai';
import type { ApiClient } from '../helpers/api-client.js';
import { aUser, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** Creates an order for a user through the API and returns it. */
async function anOrder(api: ApiClient, userId: string, params: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post(`/v1/users/${userId}/orders`, { amount: 1500, currency: 'usd', ...params });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

forEachDatabase('users', (engine) => {
  const server = useTestServer(engine);

  describe('createUser', () => {
    it('creates a user from a JSON body', async () => {
      const res = await server.api.post('/v1/users', { email: 'ada@example.com', name: 'Ada', metadata: { team: 'core' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ object: 'user', email: 'ada@example.com', name: 'Ada', livemode: false });
      expect(res.body.id).to.match(/^usr_[0-9A-Za-z]{24}$/);
      expect(res.body.created).to.equal(Math.floor(server.clock.nowMs() / 1000));
      expect(res.body.metadata).to.deep.equal({ team: 'core' });
    });

    it('accepts a form body with bracket notation', async () => {
      const res = await server.api.post('/v1/users', { email: 'ada@example.com', metadata: { team: 'core' } }, { form: true });
      expect(res.status).to.equal(200);
      expect(res.body.name).to.equal(null);
      expect(res.body.metadata).to.deep.equal({ team: 'core' });
    });

    it('requires an email, and rejects an invalid one, naming it', async () => {
      expectError(await server.api.post('/v1/users', { name: 'Ada' }), 400, 'parameter_missing', 'email');
      expectError(await server.api.post('/v1/users', { email: 'not-an-email' }), 400, 'parameter_invalid', 'email');
    });

    it('rejects an unknown field naming it', async () => {
      expectError(await server.api.post('/v1/users', { email: 'ada@example.com', role: 'admin' }), 400, 'parameter_unknown', 'role');
    });

    it('records user.created in the events', async () => {
      const user = await aUser(server.api);
      const events = await server.api.get('/v1/events?type=user.created');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object).to.deep.equal(user);
    });
  });

  describe('retrieveUser', () => {
    it('returns the user', async () => {
      const user = await aUser(server.api);
      const res = await server.api.get(`/v1/users/${user.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(user);
    });

    it("answers 404 for another account's user", async () => {
      const user = await aUser(server.api);
      expectError(await server.otherApi.get(`/v1/users/${user.id}`), 404, 'resource_missing', 'id');
    });
  });

  describe('listUsers', () => {
    it("lists newest first, and never another account's users", async () => {
      const a = await aUser(server.api, { email: 'a@example.com' });
      const b = await aUser(server.api, { email: 'b@example.com' });
      await aUser(server.otherApi);
      const res = await server.api.get('/v1/users');
      expect(res.body).to.include({ object: 'list', has_more: false, url: '/v1/users' });
      expect(res.body.data.map((u: any) => u.id)).to.deep.equal([b.id, a.id]);
    });
  });

  describe('replaceUser', () => {
    it('PUT replaces every field', async () => {
      const user = await aUser(server.api, { metadata: { a: '1' } });
      const res = await server.api.put(`/v1/users/${user.id}`, { email: 'new@example.com' });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: user.id, email: 'new@example.com', name: null });
      expect(res.body.metadata).to.deep.equal({});
    });

    it('PUT requires an email', async () => {
      const user = await aUser(server.api);
      expectError(await server.api.put(`/v1/users/${user.id}`, { name: 'Ada' }), 400, 'parameter_missing', 'email');
      expect((await server.api.get(`/v1/users/${user.id}`)).body).to.deep.equal(user);
    });
  });

  describe('updateUser', () => {
    it('PATCH changes only the fields sent, and records user.updated with previous_attributes', async () => {
      const user = await aUser(server.api, { metadata: { a: '1', b: '2' } });
      const res = await server.api.patch(`/v1/users/${user.id}`, { name: 'Ada L.', metadata: { b: '', c: '3' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: 'Ada L.', email: user.email });
      expect(res.body.metadata).to.deep.equal({ a: '1', c: '3' });
      const events = await server.api.get('/v1/events?type=user.updated');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object).to.deep.equal(res.body);
      expect(events.body.data[0].data.previous_attributes).to.deep.equal({ name: 'Ada', metadata: { a: '1', b: '2' } });
    });

    it('POST to the object path updates like PATCH, and an empty form value unsets', async () => {
      const user = await aUser(server.api);
      const res = await server.api.post(`/v1/users/${user.id}`, { name: '' }, { form: true });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: null, email: user.email });
    });

    it('records no user.updated when nothing changed', async () => {
      const user = await aUser(server.api);
      expect((await server.api.patch(`/v1/users/${user.id}`, { name: user.name })).status).to.equal(200);
      expect((await server.api.get('/v1/events?type=user.updated')).body.data).to.deep.equal([]);
    });

    it("answers 404 for another account's user and changes nothing", async () => {
      const user = await aUser(server.api);
      expectError(await server.otherApi.patch(`/v1/users/${user.id}`, { name: 'Eve' }), 404, 'resource_missing', 'id');
      expectError(await server.otherApi.post(`/v1/users/${user.id}`, { name: 'Eve' }), 404, 'resource_missing', 'id');
      expectError(await server.otherApi.put(`/v1/users/${user.id}`, { email: 'eve@example.com' }), 404, 'resource_missing', 'id');
      expect((await server.api.get(`/v1/users/${user.id}`)).body).to.deep.equal(user);
    });
  });

  describe('deleteUser', () => {
    it('deletes the user, then answers 404 to a second delete and to a read', async () => {
      const user = await aUser(server.api);
      const res = await server.api.delete(`/v1/users/${user.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ id: user.id, object: 'user', deleted: true });
      expectError(await server.api.delete(`/v1/users/${user.id}`), 404, 'resource_missing', 'id');
      expectError(await server.api.get(`/v1/users/${user.id}`), 404, 'resource_missing', 'id');
    });

    it("removes the user's orders, and no other user's", async () => {
      const user = await aUser(server.api);
      const other = await aUser(server.api, { email: 'other@example.com' });
      const doomed = await anOrder(server.api, user.id);
      const kept = await anOrder(server.api, other.id);
      expect((await server.api.delete(`/v1/users/${user.id}`)).status).to.equal(200);
      expectError(await server.api.get(`/v1/users/${user.id}/orders`), 404, 'resource_missing', 'id');
      expectError(await server.api.get(`/v1/users/${user.id}/orders/${doomed.id}`), 404, 'resource_missing');
      const left = await server.db.all<{ id: string }>('SELECT id FROM orders ORDER BY seq');
      expect(left.map((row) => row.id)).to.deep.equal([kept.id]);
      expect((await server.api.get(`/v1/users/${other.id}/orders/${kept.id}`)).status).to.equal(200);
    });

    it('records user.deleted with the user as it was', async () => {
      const user = await aUser(server.api);
      await server.api.delete(`/v1/users/${user.id}`);
      const events = await server.api.get('/v1/events?type=user.deleted');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object).to.deep.equal(user);
    });

    it("answers 404 for another account's user and deletes nothing", async () => {
      const user = await aUser(server.api);
      expectError(await server.otherApi.delete(`/v1/users/${user.id}`), 404, 'resource_missing', 'id');
      expect((await server.api.get(`/v1/users/${user.id}`)).status).to.equal(200);
    });
  });
});
