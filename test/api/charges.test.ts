import { expect } from 'chai';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

forEachDatabase('charges', (engine) => {
  const server = useTestServer(engine);

  describe('createCharge', () => {
    it('charges tok_visa and returns a succeeded charge with its card', async () => {
      const res = await server.api.post('/v1/charges', {
        amount: 2000,
        currency: 'usd',
        source: 'tok_visa',
        description: 'Order 6735',
        metadata: { order: '6735' },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        object: 'charge',
        amount: 2000,
        amount_refunded: 0,
        currency: 'usd',
        customer: null,
        description: 'Order 6735',
        livemode: false,
        paid: true,
        refunded: false,
        status: 'succeeded',
        failure_code: null,
        failure_message: null,
      });
      expect(res.body.id).to.match(/^ch_[0-9A-Za-z]{24}$/);
      expect(res.body.created).to.equal(Math.floor(server.clock.nowMs() / 1000));
      expect(res.body.metadata).to.deep.equal({ order: '6735' });
      expect(res.body.payment_method_details).to.deep.equal({ type: 'card', card: { brand: 'visa', last4: '4242' } });
    });

    it('charges tok_mastercard with the mastercard brand and last4', async () => {
      const charge = await aCharge(server.api, { source: 'tok_mastercard' });
      expect(charge.status).to.equal('succeeded');
      expect(charge.payment_method_details.card).to.deep.equal({ brand: 'mastercard', last4: '4444' });
    });

    it('accepts a form body, coercing amount=2000 to an integer', async () => {
      const res = await server.api.post(
        '/v1/charges',
        { amount: '2000', currency: 'usd', source: 'tok_visa', metadata: { order: '6735' } },
        { form: true },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.amount).to.equal(2000);
      expect(res.body.metadata).to.deep.equal({ order: '6735' });
    });

    it('rejects a JSON amount sent as a string, naming amount', async () => {
      const res = await server.api.post('/v1/charges', { amount: '2000', currency: 'usd', source: 'tok_visa' });
      expectError(res, 400, 'parameter_invalid', 'amount');
    });

    it('rejects a non-numeric form amount, naming amount', async () => {
      const res = await server.api.post('/v1/charges', { amount: 'lots', currency: 'usd', source: 'tok_visa' }, { form: true });
      expectError(res, 400, 'parameter_invalid', 'amount');
    });

    it('rejects a missing amount, naming it', async () => {
      const res = await server.api.post('/v1/charges', { currency: 'usd', source: 'tok_visa' });
      expectError(res, 400, 'parameter_missing', 'amount');
    });

    it('accepts an uppercase currency and answers it lowercase', async () => {
      const charge = await aCharge(server.api, { currency: 'USD' });
      expect(charge.currency).to.equal('usd');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.currency).to.equal('usd');
    });

    it('charges a customer of this account', async () => {
      const customer = await aCustomer(server.api);
      const charge = await aCharge(server.api, { customer: customer.id });
      expect(charge.customer).to.equal(customer.id);
    });

    it('answers 404 naming customer for an unknown customer, and records no charge', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa', customer: 'cus_missing' });
      expectError(res, 404, 'resource_missing', 'customer');
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });

    it("answers 404 for another account's customer", async () => {
      const theirs = await aCustomer(server.otherApi);
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa', customer: theirs.id });
      expectError(res, 404, 'resource_missing', 'customer');
    });

    it('answers 400 naming source for an unknown token, and records no charge', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_unknown' });
      expectError(res, 400, 'parameter_invalid', 'source');
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });

    it('declines tok_chargeDeclined with 402 and records the failed charge', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' });
      const error = expectError(res, 402, 'card_declined');
      expect(error).to.include({ type: 'card_error', decline_code: 'generic_decline' });
      expect(error.charge).to.match(/^ch_/);
      const failed = await server.api.get(`/v1/charges/${error.charge}`);
      expect(failed.status).to.equal(200);
      expect(failed.body).to.include({ status: 'failed', paid: false, refunded: false, failure_code: 'card_declined', amount: 2000 });
      expect(failed.body.failure_message).to.be.a('string').and.not.equal('');
    });

    it('declines tok_chargeDeclinedInsufficientFunds with decline_code insufficient_funds', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclinedInsufficientFunds' });
      const error = expectError(res, 402, 'card_declined');
      expect(error.decline_code).to.equal('insufficient_funds');
      expect((await server.api.get(`/v1/charges/${error.charge}`)).body.status).to.equal('failed');
    });

    it('records charge.succeeded and payment_intent.succeeded for a successful charge', async () => {
      const charge = await aCharge(server.api, { amount: 1234, currency: 'eur' });
      const succeeded = await server.api.get('/v1/events?type=charge.succeeded');
      expect(succeeded.body.data).to.have.length(1);
      expect(succeeded.body.data[0].data.object).to.deep.equal(charge);
      const intents = await server.api.get('/v1/events?type=payment_intent.succeeded');
      expect(intents.body.data).to.have.length(1);
      expect(intents.body.data[0].data.object).to.include({ object: 'payment_intent', amount: 1234, currency: 'eur' });
      expect((await server.api.get('/v1/events?type=charge.failed')).body.data).to.deep.equal([]);
    });

    it('records only charge.failed for a declined charge', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' });
      const failed = await server.api.get('/v1/events?type=charge.failed');
      expect(failed.body.data).to.have.length(1);
      expect(failed.body.data[0].data.object).to.include({ id: res.body.error.charge, status: 'failed' });
      expect((await server.api.get('/v1/events?type=charge.succeeded')).body.data).to.deep.equal([]);
      expect((await server.api.get('/v1/events?type=payment_intent.succeeded')).body.data).to.deep.equal([]);
    });
  });

  describe('retrieveCharge', () => {
    it('returns the charge', async () => {
      const charge = await aCharge(server.api);
      const res = await server.api.get(`/v1/charges/${charge.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(charge);
    });

    it("answers 404 for another account's charge", async () => {
      const charge = await aCharge(server.api);
      expectError(await server.otherApi.get(`/v1/charges/${charge.id}`), 404, 'resource_missing', 'id');
    });
  });

  describe('listCharges', () => {
    it('lists newest first and filters by customer', async () => {
      const customer = await aCustomer(server.api);
      const a = await aCharge(server.api, { customer: customer.id });
      const b = await aCharge(server.api);
      const c = await aCharge(server.api, { customer: customer.id });
      const all = await server.api.get('/v1/charges');
      expect(all.body).to.include({ object: 'list', has_more: false, url: '/v1/charges' });
      expect(all.body.data.map((x: any) => x.id)).to.deep.equal([c.id, b.id, a.id]);
      const filtered = await server.api.get(`/v1/charges?customer=${customer.id}`);
      expect(filtered.body.data.map((x: any) => x.id)).to.deep.equal([c.id, a.id]);
    });

    it("never shows another account's charges", async () => {
      await aCharge(server.otherApi);
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });
  });

  describe('updateCharge', () => {
    it('PATCH changes description and metadata, and records charge.updated with previous_attributes', async () => {
      const charge = await aCharge(server.api, { metadata: { a: '1', b: '2' } });
      const res = await server.api.patch(`/v1/charges/${charge.id}`, { description: 'Refundable', metadata: { b: '', c: '3' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ description: 'Refundable', amount: 2000, status: 'succeeded' });
      expect(res.body.metadata).to.deep.equal({ a: '1', c: '3' });
      const events = await server.api.get('/v1/events?type=charge.updated');
      expect(events.body.data).to.have.length(1);
      expect(events.body.data[0].data.object).to.deep.equal(res.body);
      expect(events.body.data[0].data.previous_attributes).to.deep.equal({ description: null, metadata: { a: '1', b: '2' } });
    });

    it('POST to the object path updates like PATCH, and an empty form value unsets', async () => {
      const charge = await aCharge(server.api, { description: 'to be removed', metadata: { a: '1' } });
      const res = await server.api.post(`/v1/charges/${charge.id}`, { description: '' }, { form: true });
      expect(res.status).to.equal(200);
      expect(res.body.description).to.equal(null);
      expect(res.body.metadata).to.deep.equal({ a: '1' });
    });

    it('rejects a change to amount as an unknown parameter, and changes nothing', async () => {
      const charge = await aCharge(server.api);
      expectError(await server.api.patch(`/v1/charges/${charge.id}`, { amount: 1 }), 400, 'parameter_unknown', 'amount');
      expectError(await server.api.post(`/v1/charges/${charge.id}`, { amount: 1 }), 400, 'parameter_unknown', 'amount');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.amount).to.equal(2000);
    });

    it("answers 404 for another account's charge", async () => {
      const charge = await aCharge(server.api);
      expectError(await server.otherApi.patch(`/v1/charges/${charge.id}`, { description: 'x' }), 404, 'resource_missing', 'id');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.description).to.equal(null);
    });
  });

  describe('DELETE /v1/charges/{id}', () => {
    it('answers 405 method_not_allowed with an Allow header', async () => {
      const charge = await aCharge(server.api);
      const res = await server.api.delete(`/v1/charges/${charge.id}`);
      expectError(res, 405, 'method_not_allowed');
      expect(res.body.error.type).to.equal('invalid_request_error');
      const allowed = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim().toUpperCase());
      expect(allowed).to.include.members(['GET', 'PATCH', 'POST']);
      expect(allowed).not.to.include('DELETE');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).status).to.equal(200);
    });
  });
});
