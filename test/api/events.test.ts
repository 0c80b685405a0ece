import { expect } from 'chai';
import { aCustomer, aUser, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

forEachDatabase('events', (engine) => {
  const server = useTestServer(engine);

  /** The events of one type, newest first. */
  async function eventsOfType(type: string): Promise<any[]> {
    const res = await server.api.get(`/v1/events?type=${type}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data;
  }

  describe('retrieveEvent', () => {
    it('returns the event with its envelope fields', async () => {
      server.clock.advance(90_000);
      const customer = await aCustomer(server.api);
      const [listed] = await eventsOfType('customer.created');
      const res = await server.api.get(`/v1/events/${listed.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(listed);
      expect(res.body).to.include({ object: 'event', type: 'customer.created', livemode: false, pending_webhooks: 0 });
      expect(res.body.id).to.match(/^evt_[0-9A-Za-z]{24}$/);
      expect(res.body.created).to.equal(Math.floor(server.clock.nowMs() / 1000));
      expect(res.body.api_version).to.be.a('string').and.not.equal('');
      expect(res.body.data).to.deep.equal({ object: customer });
    });

    it("answers 404 for another account's event", async () => {
      await aCustomer(server.api);
      const [event] = await eventsOfType('customer.created');
      expectError(await server.otherApi.get(`/v1/events/${event.id}`), 404, 'resource_missing', 'id');
      expect((await server.otherApi.get('/v1/events')).body.data).to.deep.equal([]);
    });

    it('answers 404 for an unknown event', async () => {
      expectError(await server.api.get('/v1/events/evt_missing'), 404, 'resource_missing', 'id');
    });
  });

  describe('listEvents', () => {
    it('lists every change newest first', async () => {
      const customer = await aCustomer(server.api);
      const user = await aUser(server.api);
      await server.api.patch(`/v1/customers/${customer.id}`, { name: 'Jenny R.' });
      const res = await server.api.get('/v1/events');
      expect(res.body).to.include({ object: 'list', has_more: false, url: '/v1/events' });
      expect(res.body.data.map((e: any) => e.type)).to.deep.equal(['customer.updated', 'user.created', 'customer.created']);
      expect(res.body.data[1].data.object.id).to.equal(user.id);
    });

    it('filters by type', async () => {
      await aCustomer(server.api);
      const user = await aUser(server.api);
      await aCustomer(server.api, { email: 'b@example.com' });
      const users = await eventsOfType('user.created');
      expect(users.map((e) => e.data.object.id)).to.deep.equal([user.id]);
      expect((await eventsOfType('customer.created')).map((e) => e.type)).to.deep.equal(['customer.created', 'customer.created']);
      expect(await eventsOfType('order.created')).to.deep.equal([]);
    });

    it('rejects an unknown type value, naming type', async () => {
      expectError(await server.api.get('/v1/events?type=customer.exploded'), 400, 'parameter_invalid', 'type');
    });

    it('records no event for a request that failed', async () => {
      await server.api.post('/v1/customers', { email: 'not-an-email' });
      await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_unknown' });
      expect((await server.api.get('/v1/events')).body.data).to.deep.equal([]);
    });
  });

  describe('request', () => {
    it('carries the Request-Id of the request that made the change, and a null idempotency_key without a key', async () => {
      const created = await server.api.post('/v1/customers', { email: 'a@example.com' });
      const updated = await server.api.patch(`/v1/customers/${created.body.id}`, { name: 'A' });
      const createdId = created.headers.get('request-id');
      const updatedId = updated.headers.get('request-id');
      expect(createdId).to.match(/^req_/);
      expect(updatedId).to.match(/^req_/).and.not.equal(createdId);
      expect((await eventsOfType('customer.created'))[0].request).to.deep.equal({ id: createdId, idempotency_key: null });
      expect((await eventsOfType('customer.updated'))[0].request).to.deep.equal({ id: updatedId, idempotency_key: null });
    });

    it('carries the Idempotency-Key when one was sent, on every event of the request', async () => {
      const res = await server.api.post(
        '/v1/charges',
        { amount: 2000, currency: 'usd', source: 'tok_visa' },
        { idempotencyKey: 'order-6735-attempt-1' },
      );
      expect(res.status).to.equal(200);
      const expected = { id: res.headers.get('request-id'), idempotency_key: 'order-6735-attempt-1' };
      expect((await eventsOfType('charge.succeeded'))[0].request).to.deep.equal(expected);
      expect((await eventsOfType('payment_intent.succeeded'))[0].request).to.deep.equal(expected);
    });

    it('carries the Idempotency-Key of a declined charge on charge.failed', async () => {
      const res = await server.api.post(
        '/v1/charges',
        { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' },
        { idempotencyKey: 'declined-1' },
      );
      expect(res.status).to.equal(402);
      const [failed] = await eventsOfType('charge.failed');
      expect(failed.request).to.deep.equal({ id: res.headers.get('request-id'), idempotency_key: 'declined-1' });
      expect(failed.data.object.id).to.equal(res.body.error.charge);
    });
  });
});
