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

forEachDatabase('orders', (engine) => {
  const server = useTestServer(engine);
  let user: any;
  beforeEach(async () => {
    user = await aUser(server.api);
  });

  describe('createUserOrder', () => {
    it('creates a pending order for the user from a JSON body', async () => {
      const res = await server.api.post(`/v1/users/${user.id}/orders`, {
        amount: 1500,
        currency: 'USD',
        description: 'Two books',
        metadata: { sku: 'b-2' },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        object: 'order',
        user: user.id,
        amount: 1500,
        currency: 'usd',
        description: 'Two books',
        status: 'pending',
        livemode: false,
      });
      expect(res.body.id).to.match(/^ord_[0-9A-Za-z]{24}$/);
      expect(res.body.created).to.equal(Math.floor(server.clock.nowMs() / 1000));
      expect(res.body.metadata).to.deep.equal({ sku: 'b-2' });
    });

    it('accepts a form body, coercing the amount, and an explicit status', async () => {
      const res = await server.api.post(
        `/v1/users/${user.id}/orders`,
        { amount: '990', currency: 'eur', status: 'paid', metadata: { sku: 'x' } },
        { form: true },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ amount: 990, currency: 'eur', status: 'paid', description: null });
      expect(res.body.metadata).to.deep.equal({ sku: 'x' });
    });

    it('validates status against its enum, naming it', async () => {
      const res = await server.api.post(`/v1/users/${user.id}/orders`, { amount: 1500, currency: 'usd', status: 'shipped' });
      expectError(res, 400, 'parameter_invalid', 'status');
    });

    it('requires amount and currency, naming them', async () => {
      expectError(await server.api.post(`/v1/users/${user.id}/orders`, { currency: 'usd' }), 400, 'parameter_missing', 'amount');
      expectError(await server.api.post(`/v1/users/${user.id}/orders`, { amount: 1500 }), 400, 'parameter_missing', 'currency');
    });

    it('answers 404 for an unknown user', async () => {
      const res = await server.api.post('/v1/users/usr_missing/orders', { amount: 1500, currency: 'usd' });
      expectError(res, 404, 'resource_missing', 'id');
    });

    it("answers 404 for another account's user, and creates nothing", async () => {
      const res = await server.otherApi.post(`/v1/users/${user.id}/orders`, { amount: 1500, currency: 'usd' });
      expectError(res, 404, 'resource_missing', 'id');
      expect((await server.api.get(`/v1/users/${user.id}/orders`)).body.data).to.deep.equal([]);
    });

    it('records order.created in the events', async () => {
      const order = await anOrder(server.api, user.id);
      const events = await server.api.get('/v1/events?type=order.created');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object).to.deep.equal(order);
    });
  });

  describe('listUserOrders', () => {
    it("lists the user's orders newest first, and only that user's", async () => {
      const other = await aUser(server.api, { email: 'other@example.com' });
      const a = await anOrder(server.api, user.id);
      await anOrder(server.api, other.id);
      const b = await anOrder(server.api, user.id);
      const res = await server.api.get(`/v1/users/${user.id}/orders`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ object: 'list', has_more: false, url: `/v1/users/${user.id}/orders` });
      expect(res.body.data.map((o: any) => o.id)).to.deep.equal([b.id, a.id]);
    });

    it('filters by status', async () => {
      const pending = await anOrder(server.api, user.id);
      const paid = await anOrder(server.api, user.id, { status: 'paid' });
      const cancelled = await anOrder(server.api, user.id, { status: 'cancelled' });
      const ids = async (status: string) =>
        (await server.api.get(`/v1/users/${user.id}/orders?status=${status}`)).body.data.map((o: any) => o.id);
      expect(await ids('pending')).to.deep.equal([pending.id]);
      expect(await ids('paid')).to.deep.equal([paid.id]);
      expect(await ids('cancelled')).to.deep.equal([cancelled.id]);
    });

    it('rejects an unknown status filter, naming it', async () => {
      expectError(await server.api.get(`/v1/users/${user.id}/orders?status=shipped`), 400, 'parameter_invalid', 'status');
    });

    it("answers 404 for an unknown user and for another account's user", async () => {
      expectError(await server.api.get('/v1/users/usr_missing/orders'), 404, 'resource_missing', 'id');
      await anOrder(server.api, user.id);
      expectError(await server.otherApi.get(`/v1/users/${user.id}/orders`), 404, 'resource_missing', 'id');
    });
  });

  describe('retrieveUserOrder', () => {
    it('returns the order', async () => {
      const order = await anOrder(server.api, user.id);
      const res = await server.api.get(`/v1/users/${user.id}/orders/${order.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(order);
    });

    it('answers 404 for an order reached through the wrong user', async () => {
      const other = await aUser(server.api, { email: 'other@example.com' });
      const order = await anOrder(server.api, user.id);
      expectError(await server.api.get(`/v1/users/${other.id}/orders/${order.id}`), 404, 'resource_missing', 'order_id');
    });

    it("answers 404 for another account's order", async () => {
      const order = await anOrder(server.api, user.id);
      expectError(await server.otherApi.get(`/v1/users/${user.id}/orders/${order.id}`), 404, 'resource_missing');
    });
  });

  describe('updateUserOrder', () => {
    it('PATCH changes only the fields sent, and records order.updated with previous_attributes', async () => {
      const order = await anOrder(server.api, user.id, { description: 'Two books', metadata: { a: '1' } });
      const res = await server.api.patch(`/v1/users/${user.id}/orders/${order.id}`, { status: 'paid', metadata: { b: '2' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ status: 'paid', amount: 1500, currency: 'usd', description: 'Two books', user: user.id });
      expect(res.body.metadata).to.deep.equal({ a: '1', b: '2' });
      const events = await server.api.get('/v1/events?type=order.updated');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object).to.deep.equal(res.body);
      expect(events.body.data[0].data.previous_attributes).to.deep.equal({ status: 'pending', metadata: { a: '1' } });
    });

    it('POST to the object path updates like PATCH, and an empty form value unsets', async () => {
      const order = await anOrder(server.api, user.id, { description: 'to be removed' });
      const res = await server.api.post(
        `/v1/users/${user.id}/orders/${order.id}`,
        { description: '', amount: '2500', currency: 'EUR' },
        { form: true },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ description: null, amount: 2500, currency: 'eur', status: 'pending' });
    });

    it('validates status against its enum, and changes nothing', async () => {
      const order = await anOrder(server.api, user.id);
      const res = await server.api.patch(`/v1/users/${user.id}/orders/${order.id}`, { status: 'refunded' });
      expectError(res, 400, 'parameter_invalid', 'status');
      expect((await server.api.get(`/v1/users/${user.id}/orders/${order.id}`)).body.status).to.equal('pending');
    });

    it('answers 404 through the wrong user, and changes nothing', async () => {
      const other = await aUser(server.api, { email: 'other@example.com' });
      const order = await anOrder(server.api, user.id);
      const path = `/v1/users/${other.id}/orders/${order.id}`;
      expectError(await server.api.patch(path, { status: 'cancelled' }), 404, 'resource_missing', 'order_id');
      expectError(await server.api.post(path, { status: 'cancelled' }), 404, 'resource_missing', 'order_id');
      expect((await server.api.get(`/v1/users/${user.id}/orders/${order.id}`)).body).to.deep.equal(order);
    });

    it('answers PUT with 405 method_not_allowed and an Allow header', async () => {
      const order = await anOrder(server.api, user.id);
      const res = await server.api.put(`/v1/users/${user.id}/orders/${order.id}`, { amount: 1, currency: 'usd' });
      expectError(res, 405, 'method_not_allowed');
      const allowed = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim().toUpperCase());
      expect(allowed).to.include.members(['GET', 'PATCH', 'POST', 'DELETE']);
      expect(allowed).not.to.include('PUT');
      expect((await server.api.get(`/v1/users/${user.id}/orders/${order.id}`)).body.amount).to.equal(1500);
    });
  });

  describe('deleteUserOrder', () => {
    it('deletes, then answers 404 to a second delete and to a read', async () => {
      const order = await anOrder(server.api, user.id);
      const path = `/v1/users/${user.id}/orders/${order.id}`;
      const res = await server.api.delete(path);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ id: order.id, object: 'order', deleted: true });
      expectError(await server.api.delete(path), 404, 'resource_missing', 'order_id');
      expectError(await server.api.get(path), 404, 'resource_missing', 'order_id');
      expect((await server.api.get(`/v1/users/${user.id}/orders`)).body.data).to.deep.equal([]);
    });

    it('records order.deleted with the order as it was', async () => {
      const order = await anOrder(server.api, user.id);
      await server.api.delete(`/v1/users/${user.id}/orders/${order.id}`);
      const events = await server.api.get('/v1/events?type=order.deleted');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object).to.deep.equal(order);
    });

    it('answers 404 through the wrong user or account, and deletes nothing', async () => {
      const other = await aUser(server.api, { email: 'other@example.com' });
      const order = await anOrder(server.api, user.id);
      expectError(await server.api.delete(`/v1/users/${other.id}/orders/${order.id}`), 404, 'resource_missing', 'order_id');
      expectError(await server.otherApi.delete(`/v1/users/${user.id}/orders/${order.id}`), 404, 'resource_missing');
      expect((await server.api.get(`/v1/users/${user.id}/orders/${order.id}`)).status).to.equal(200);
    });
  });
});
