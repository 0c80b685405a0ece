import { expect } from 'chai';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

forEachDatabase('customers', (engine) => {
  const server = useTestServer(engine);

  describe('createCustomer', () => {
    it('creates a customer from a JSON body', async () => {
      const res = await server.api.post('/v1/customers', {
        email: 'jenny@example.com',
        name: 'Jenny Rosen',
        phone: '+1 555 0100',
        metadata: { order: '6735' },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ object: 'customer', email: 'jenny@example.com', name: 'Jenny Rosen', livemode: false });
      expect(res.body.id).to.match(/^cus_[0-9A-Za-z]{24}$/);
      expect(res.body.metadata).to.deep.equal({ order: '6735' });
      expect(res.body.created).to.equal(Math.floor(server.clock.nowMs() / 1000));
    });

    it('accepts a form body with bracket notation', async () => {
      const res = await server.api.post('/v1/customers', { email: 'a@example.com', metadata: { order: '6735' } }, { form: true });
      expect(res.status).to.equal(200);
      expect(res.body.metadata).to.deep.equal({ order: '6735' });
    });

    it('rejects an unknown field naming it', async () => {
      const res = await server.api.post('/v1/customers', { email: 'a@example.com', nickname: 'x' });
      expectError(res, 400, 'parameter_unknown', 'nickname');
    });

    it('rejects an unknown form field even when its value is empty, creating nothing', async () => {
      const empty = await server.api.post('/v1/customers', { email: 'a@example.com', nickname: '' }, { form: true });
      expectError(empty, 400, 'parameter_unknown', 'nickname');
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });

    it('refuses a JSON text sent as a form body instead of reading it as no fields', async () => {
      const created = (await server.api.post('/v1/customers', { email: 'a@example.com', name: 'Ada' })).body;
      const res = await fetch(`${server.url}/v1/customers/${created.id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${server.apiKeys.first}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: '{"email":"b@example.com"}',
      });
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { error: object }).error).to.include({ code: 'parameter_unknown' });
      expect((await server.api.get(`/v1/customers/${created.id}`)).body).to.include({ email: 'a@example.com', name: 'Ada' });
    });

    it('names a metadata key that holds a percent sign when its value is too long', async () => {
      const res = await server.api.post('/v1/customers', { metadata: { 'discount 50%': 'x'.repeat(501) } });
      expectError(res, 400, 'parameter_invalid', 'metadata[discount 50%]');
    });

    it('rejects an invalid email naming it', async () => {
      expectError(await server.api.post('/v1/customers', { email: 'not-an-email' }), 400, 'parameter_invalid', 'email');
    });

    it('records customer.created in the events', async () => {
      const customer = await aCustomer(server.api);
      const events = await server.api.get('/v1/events?type=customer.created');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object.id).to.equal(customer.id);
    });
  });

  describe('retrieveCustomer', () => {
    it('returns the customer', async () => {
      const customer = await aCustomer(server.api);
      const res = await server.api.get(`/v1/customers/${customer.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(customer);
    });

    it("answers 404 for another account's customer", async () => {
      const customer = await aCustomer(server.api);
      expectError(await server.otherApi.get(`/v1/customers/${customer.id}`), 404, 'resource_missing', 'id');
    });
  });

  describe('updateCustomer', () => {
    it('PATCH changes only the fields sent, and records previous_attributes', async () => {
      const customer = await aCustomer(server.api, { description: 'first', metadata: { a: '1', b: '2' } });
      const res = await server.api.patch(`/v1/customers/${customer.id}`, { name: 'Jenny R.', metadata: { b: '', c: '3' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: 'Jenny R.', description: 'first', email: customer.email });
      expect(res.body.metadata).to.deep.equal({ a: '1', c: '3' });
      const events = await server.api.get('/v1/events?type=customer.updated');
      expect(events.body.data[0].data.previous_attributes).to.deep.equal({ name: 'Jenny Rosen', metadata: { a: '1', b: '2' } });
    });

    it('POST to the object path updates like PATCH, and an empty form value unsets', async () => {
      const customer = await aCustomer(server.api, { description: 'to be removed' });
      const res = await server.api.post(`/v1/customers/${customer.id}`, { description: '' }, { form: true });
      expect(res.status).to.equal(200);
      expect(res.body.description).to.equal(null);
      expect(res.body.name).to.equal('Jenny Rosen');
    });

    it('refuses an update that would leave more than 50 metadata keys, keeping the customer readable', async () => {
      const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
      const created = (await server.api.post('/v1/customers', { metadata: fifty })).body;
      const over = await server.api.post(`/v1/customers/${created.id}`, { metadata: { k50: 'v' } }, { form: true });
      expectError(over, 400, 'parameter_invalid', 'metadata');
      const read = await server.api.get(`/v1/customers/${created.id}`);
      expect(read.status).to.equal(200);
      expect(Object.keys(read.body.metadata)).to.have.length(50);
      const swapped = await server.api.patch(`/v1/customers/${created.id}`, { metadata: { k0: '', k50: 'v' } });
      expect(swapped.status).to.equal(200);
      expect(swapped.body.metadata).to.include({ k50: 'v' }).and.not.have.property('k0');
    });

    it('PUT replaces every field', async () => {
      const customer = await aCustomer(server.api, { description: 'x', metadata: { a: '1' } });
      const res = await server.api.put(`/v1/customers/${customer.id}`, { email: 'new@example.com' });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ email: 'new@example.com', name: null, description: null });
      expect(res.body.metadata).to.deep.equal({});
    });
  });

  describe('deleteCustomer', () => {
    it('deletes: a read then answers the deleted customer, and a second delete 404', async () => {
      const customer = await aCustomer(server.api);
      const res = await server.api.delete(`/v1/customers/${customer.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
      const read = await server.api.get(`/v1/customers/${customer.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
      expectError(await server.api.delete(`/v1/customers/${customer.id}`), 404, 'resource_missing', 'id');
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
      expect((await server.api.get('/v1/events?type=customer.deleted')).body.data).to.have.length(1);
    });

    it('answers 404 to every update of a deleted customer, recording no event', async () => {
      const customer = await aCustomer(server.api);
      await server.api.delete(`/v1/customers/${customer.id}`);
      expectError(await server.api.patch(`/v1/customers/${customer.id}`, { name: 'Back' }), 404, 'resource_missing', 'id');
      expectError(await server.api.post(`/v1/customers/${customer.id}`, { name: 'Back' }, { form: true }), 404, 'resource_missing', 'id');
      expectError(await server.api.put(`/v1/customers/${customer.id}`, { email: 'back@example.com' }), 404, 'resource_missing', 'id');
      expect((await server.api.get('/v1/events?type=customer.updated')).body.data).to.deep.equal([]);
      expect((await server.api.get(`/v1/customers/${customer.id}`)).body).to.deep.equal({
        id: customer.id,
        object: 'customer',
        deleted: true,
      });
    });

    it("answers 404 to another account for a deleted customer, and cannot delete another account's", async () => {
      const deleted = await aCustomer(server.api);
      await server.api.delete(`/v1/customers/${deleted.id}`);
      expectError(await server.otherApi.get(`/v1/customers/${deleted.id}`), 404, 'resource_missing', 'id');
      expectError(await server.otherApi.delete(`/v1/customers/${deleted.id}`), 404, 'resource_missing', 'id');
      const kept = await aCustomer(server.api);
      expectError(await server.otherApi.delete(`/v1/customers/${kept.id}`), 404, 'resource_missing', 'id');
      expect((await server.api.get(`/v1/customers/${kept.id}`)).body).to.deep.equal(kept);
    });

    it('answers 404 to a read of an id that never existed', async () => {
      expectError(await server.api.get('/v1/customers/cus_000000000000000000000000'), 404, 'resource_missing', 'id');
    });
  });

  describe('listCustomers', () => {
    it('lists newest first and filters by email', async () => {
      const a = await aCustomer(server.api, { email: 'a@example.com' });
      const b = await aCustomer(server.api, { email: 'b@example.com' });
      const all = await server.api.get('/v1/customers');
      expect(all.body).to.include({ object: 'list', has_more: false, url: '/v1/customers' });
      expect(all.body.data.map((c: any) => c.id)).to.deep.equal([b.id, a.id]);
      const filtered = await server.api.get('/v1/customers?email=a%40example.com');
      expect(filtered.body.data.map((c: any) => c.id)).to.deep.equal([a.id]);
    });

    it('expands each default payment method with expand[]=data.invoice_settings.default_payment_method', async () => {
      const card = await server.api.post('/v1/payment_methods', { type: 'card', card: { token: 'tok_visa' } });
      expect(card.status, JSON.stringify(card.body)).to.equal(200);
      const customer = await aCustomer(server.api);
      const attach = `/v1/payment_methods/${card.body.id}/attach`;
      expect((await server.api.post(attach, { customer: customer.id })).status).to.equal(200);
      const withCard = (
        await server.api.post(`/v1/customers/${customer.id}`, {
          invoice_settings: { default_payment_method: card.body.id },
        })
      ).body;
      const without = await aCustomer(server.api);
      const res = await server.api.get(
        '/v1/customers?expand[]=data.invoice_settings.default_payment_method',
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const defaults = res.body.data.map((c: any) => [c.id, c.invoice_settings.default_payment_method]);
      expect(defaults).to.deep.equal([
        [without.id, null],
        [withCard.id, { ...card.body, customer: withCard.id }],
      ]);
      // Unexpanded, the list holds the id, as the retrieve does.
      const plain = await server.api.get('/v1/customers');
      expect(plain.body.data[1].invoice_settings.default_payment_method).to.equal(card.body.id);
    });

    it('refuses an expand path without data., or of a field that does not expand, naming it', async () => {
      for (const path of ['invoice_settings.default_payment_method', 'data.default_source', 'data.nope']) {
        const res = await server.api.get(`/v1/customers?expand[]=${path}`);
        const error = expectError(res, 400, 'parameter_invalid', 'expand[0]');
        expect(error.message).to.equal(`This property cannot be expanded (${path}).`);
      }
    });
  });

  describe('listCustomerCharges', () => {
    it("lists only that customer's charges", async () => {
      const customer = await aCustomer(server.api);
      const mine = await aCharge(server.api, { customer: customer.id });
      await aCharge(server.api);
      const res = await server.api.get(`/v1/customers/${customer.id}/charges`);
      expect(res.status).to.equal(200);
      expect(res.body.url).to.equal(`/v1/customers/${customer.id}/charges`);
      expect(res.body.data.map((c: any) => c.id)).to.deep.equal([mine.id]);
    });

    it('answers 404 for an unknown customer', async () => {
      expectError(await server.api.get('/v1/customers/cus_missing/charges'), 404, 'resource_missing');
    });
  });
});
