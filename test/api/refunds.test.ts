import { expect } from 'chai';
import type { ApiClient } from '../helpers/api-client.js';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { withoutClientSecret } from '../helpers/client-secret.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** Refunds a charge through the API and returns the refund. */
async function aRefund(api: ApiClient, params: Record<string, unknown>): Promise<any> {
  const res = await api.post('/v1/refunds', params);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** A declined charge (recorded as failed); returns its id. */
async function aFailedChargeId(api: ApiClient): Promise<string> {
  const res = await api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' });
  expect(res.status, JSON.stringify(res.body)).to.equal(402);
  return res.body.error.charge;
}

/** The account's events, oldest first, as `[type, data.object]` pairs. */
async function eventsOldestFirst(api: ApiClient): Promise<Array<[string, any]>> {
  const res = await api.get('/v1/events?limit=100');
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.has_more, 'more than 100 events').to.equal(false);
  return res.body.data.map((event: any) => [event.type, event.data.object]).reverse();
}

forEachDatabase('refunds', (engine) => {
  const server = useTestServer(engine);

  describe('createRefund', () => {
    it('refunds the whole remainder by default, and the charge shows it', async () => {
      const charge = await aCharge(server.api, { amount: 2000, currency: 'eur' });
      const res = await server.api.post('/v1/refunds', { charge: charge.id, metadata: { ticket: '42' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        object: 'refund',
        amount: 2000,
        charge: charge.id,
        currency: 'eur',
        reason: null,
        status: 'succeeded',
        livemode: false,
      });
      expect(res.body.id).to.match(/^re_[0-9A-Za-z]{24}$/);
      expect(res.body.created).to.equal(Math.floor(server.clock.nowMs() / 1000));
      expect(res.body.metadata).to.deep.equal({ ticket: '42' });
      const after = (await server.api.get(`/v1/charges/${charge.id}`)).body;
      expect(after).to.include({ amount_refunded: 2000, refunded: true, status: 'succeeded', paid: true });
    });

    it('refunds in parts, then the rest by default', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      await aRefund(server.api, { charge: charge.id, amount: 500 });
      let current = (await server.api.get(`/v1/charges/${charge.id}`)).body;
      expect(current).to.include({ amount_refunded: 500, refunded: false });
      await aRefund(server.api, { charge: charge.id, amount: 700 });
      current = (await server.api.get(`/v1/charges/${charge.id}`)).body;
      expect(current).to.include({ amount_refunded: 1200, refunded: false });
      const rest = await aRefund(server.api, { charge: charge.id });
      expect(rest.amount).to.equal(800);
      current = (await server.api.get(`/v1/charges/${charge.id}`)).body;
      expect(current).to.include({ amount_refunded: 2000, refunded: true });
    });

    it('accepts a form body with the amount as a string', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      const res = await server.api.post('/v1/refunds', { charge: charge.id, amount: '250', reason: 'duplicate' }, { form: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ amount: 250, reason: 'duplicate' });
    });

    it('answers 400 amount_too_large for more than what is left, and refunds nothing', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      await aRefund(server.api, { charge: charge.id, amount: 1500 });
      const res = await server.api.post('/v1/refunds', { charge: charge.id, amount: 501 });
      expectError(res, 400, 'amount_too_large', 'amount');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.amount_refunded).to.equal(1500);
      expect((await server.api.get(`/v1/refunds?charge=${charge.id}`)).body.data).to.have.length(1);
    });

    it('answers 400 charge_not_refundable for a declined charge', async () => {
      const chargeId = await aFailedChargeId(server.api);
      expectError(await server.api.post('/v1/refunds', { charge: chargeId }), 400, 'charge_not_refundable');
      expectError(await server.api.post('/v1/refunds', { charge: chargeId, amount: 100 }), 400, 'charge_not_refundable');
      expect((await server.api.get(`/v1/charges/${chargeId}`)).body.amount_refunded).to.equal(0);
    });

    it('answers 400 charge_already_refunded for a fully refunded charge', async () => {
      const charge = await aCharge(server.api);
      await aRefund(server.api, { charge: charge.id });
      expectError(await server.api.post('/v1/refunds', { charge: charge.id }), 400, 'charge_already_refunded');
      expectError(await server.api.post('/v1/refunds', { charge: charge.id, amount: 1 }), 400, 'charge_already_refunded');
    });

    it('answers 404 naming charge for an unknown charge', async () => {
      expectError(await server.api.post('/v1/refunds', { charge: 'ch_missing' }), 404, 'resource_missing', 'charge');
    });

    it("answers 404 for another account's charge, and refunds nothing", async () => {
      const theirs = await aCharge(server.otherApi);
      expectError(await server.api.post('/v1/refunds', { charge: theirs.id }), 404, 'resource_missing', 'charge');
      expect((await server.otherApi.get(`/v1/charges/${theirs.id}`)).body.amount_refunded).to.equal(0);
    });

    it('validates reason against its enum, naming it', async () => {
      const charge = await aCharge(server.api);
      expectError(await server.api.post('/v1/refunds', { charge: charge.id, reason: 'changed_mind' }), 400, 'parameter_invalid', 'reason');
      for (const reason of ['duplicate', 'fraudulent', 'requested_by_customer']) {
        const refund = await aRefund(server.api, { charge: charge.id, amount: 100, reason });
        expect(refund.reason).to.equal(reason);
      }
    });

    it('rejects a missing charge and a zero amount, naming them', async () => {
      const charge = await aCharge(server.api);
      expectError(await server.api.post('/v1/refunds', { amount: 100 }), 400, 'parameter_missing', 'charge');
      expectError(await server.api.post('/v1/refunds', { charge: charge.id, amount: 0 }), 400, 'parameter_invalid', 'amount');
    });

    it('records refund.created and charge.refunded', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      const refund = await aRefund(server.api, { charge: charge.id, amount: 600 });
      const created = await server.api.get('/v1/events?type=refund.created');
      expect(created.body.data).to.have.length(1);
      expect(created.body.data[0].data.object).to.deep.equal(refund);
      const refunded = await server.api.get('/v1/events?type=charge.refunded');
      expect(refunded.body.data).to.have.length(1);
      expect(refunded.body.data[0].data.object).to.include({ id: charge.id, amount_refunded: 600, refunded: false });
      // The charge's embedded refunds changed too: before, the empty list it was created with.
      expect(refunded.body.data[0].data.previous_attributes).to.deep.equal({ amount_refunded: 0, refunds: charge.refunds });
    });

    it('lists refunded in charge.refunded previous_attributes only when the refund completes the charge', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      const first = await aRefund(server.api, { charge: charge.id, amount: 600 });
      await aRefund(server.api, { charge: charge.id });
      const [last] = (await server.api.get('/v1/events?type=charge.refunded')).body.data;
      expect(last.data.object).to.include({ amount_refunded: 2000, refunded: true });
      expect(last.data.previous_attributes).to.deep.equal({
        amount_refunded: 600,
        refunded: false,
        refunds: { ...charge.refunds, data: [first] },
      });
    });

    it('records no event for a refused refund', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      await server.api.post('/v1/refunds', { charge: charge.id, amount: 5000 });
      expect((await server.api.get('/v1/events?type=refund.created')).body.data).to.deep.equal([]);
      expect((await server.api.get('/v1/events?type=charge.refunded')).body.data).to.deep.equal([]);
    });

    it('never refunds more than the charge under 10 concurrent partial refunds', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => server.api.post('/v1/refunds', { charge: charge.id, amount: 300 })),
      );
      const succeeded = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(succeeded, JSON.stringify(results.map((r) => r.status))).to.have.length(6);
      for (const res of refused) expectError(res, 400, 'amount_too_large', 'amount');
      const after = (await server.api.get(`/v1/charges/${charge.id}`)).body;
      expect(after).to.include({ amount_refunded: 1800, refunded: false });
      const listed = await server.api.get(`/v1/refunds?charge=${charge.id}&limit=100`);
      expect(listed.body.data).to.have.length(6);
    });
  });

  describe('createRefund by payment_intent', () => {
    it("refunds the intent's latest charge, and the refund names both", async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      const refund = await aRefund(server.api, { payment_intent: charge.payment_intent, amount: 700 });
      expect(refund).to.include({ amount: 700, charge: charge.id, payment_intent: charge.payment_intent });
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body).to.include({ amount_refunded: 700, refunded: false });
      // The intent stays succeeded: a refund returns money, it does not undo the payment.
      const intent = withoutClientSecret((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body);
      expect(intent).to.include({ status: 'succeeded', amount_received: 2000 });
    });

    it("accepts both charge and payment_intent when they agree, and refuses another charge naming payment_intent", async () => {
      const charge = await aCharge(server.api);
      const other = await aCharge(server.api);
      const mismatched = await server.api.post('/v1/refunds', { charge: other.id, payment_intent: charge.payment_intent });
      expectError(mismatched, 400, 'parameter_invalid', 'payment_intent');
      expect((await server.api.get(`/v1/charges/${other.id}`)).body.amount_refunded).to.equal(0);
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.amount_refunded).to.equal(0);
      const refund = await aRefund(server.api, { charge: charge.id, payment_intent: charge.payment_intent, amount: 300 });
      expect(refund).to.include({ charge: charge.id, payment_intent: charge.payment_intent, amount: 300 });
    });

    it("answers 404 naming payment_intent for an unknown intent and for another account's", async () => {
      expectError(await server.api.post('/v1/refunds', { payment_intent: 'pi_missing' }), 404, 'resource_missing', 'payment_intent');
      const theirs = await aCharge(server.otherApi);
      const res = await server.api.post('/v1/refunds', { payment_intent: theirs.payment_intent });
      expectError(res, 404, 'resource_missing', 'payment_intent');
      expect((await server.otherApi.get(`/v1/charges/${theirs.id}`)).body.amount_refunded).to.equal(0);
    });

    it('answers 400 charge_not_refundable naming payment_intent for an intent with no charge, or a declined one', async () => {
      const intent = await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd' });
      expectError(await server.api.post('/v1/refunds', { payment_intent: intent.body.id }), 400, 'charge_not_refundable', 'payment_intent');
      const declined = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method: 'pm_card_chargeDeclined',
        confirm: true,
      });
      const { payment_intent: failed } = expectError(declined, 402, 'card_declined');
      const res = await server.api.post('/v1/refunds', { payment_intent: failed.id });
      expectError(res, 400, 'charge_not_refundable', 'payment_intent');
    });
  });

  describe('createRefund of an uncaptured charge', () => {
    for (const by of ['charge', 'payment_intent'] as const) {
      it(`releases the whole authorisation and cancels the intent (named by ${by})`, async () => {
        const charge = await aCharge(server.api, { amount: 2000, capture: false });
        const before = (await eventsOldestFirst(server.api)).length;
        const target = by === 'charge' ? { charge: charge.id } : { payment_intent: charge.payment_intent };
        const refund = await aRefund(server.api, { ...target, reason: 'requested_by_customer' });
        expect(refund).to.include({ amount: 2000, charge: charge.id, payment_intent: charge.payment_intent });
        expect(refund.reason).to.equal('requested_by_customer');
        const after = (await server.api.get(`/v1/charges/${charge.id}`)).body;
        expect(after).to.include({ amount_refunded: 2000, amount_captured: 0, captured: false, refunded: true });
        expect(after.refunds.data).to.deep.equal([refund]);
        const intent = withoutClientSecret((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body);
        expect(intent).to.include({ status: 'canceled', amount_capturable: 0, cancellation_reason: 'requested_by_customer' });
        expect(intent.canceled_at).to.equal(Math.floor(server.clock.nowMs() / 1000));
        const events = (await eventsOldestFirst(server.api)).slice(before);
        expect(events.map(([type]) => type)).to.deep.equal(['refund.created', 'charge.refunded', 'payment_intent.canceled']);
        expect(events[0][1]).to.deep.equal(refund);
        expect(events[1][1]).to.deep.equal(after);
        expect(events[2][1]).to.deep.equal(intent);
      });
    }

    it('refuses a partial amount, naming amount, and releases nothing', async () => {
      const charge = await aCharge(server.api, { amount: 2000, capture: false });
      expectError(await server.api.post('/v1/refunds', { charge: charge.id, amount: 500 }), 400, 'parameter_invalid', 'amount');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body).to.include({ amount_refunded: 0, captured: false });
      const intent = withoutClientSecret((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body);
      expect(intent).to.include({ status: 'requires_capture', amount_capturable: 2000 });
      // The whole amount, named, is a release like no amount.
      expect((await aRefund(server.api, { charge: charge.id, amount: 2000 })).amount).to.equal(2000);
    });

    it('answers charge_already_refunded once released', async () => {
      const charge = await aCharge(server.api, { capture: false });
      await aRefund(server.api, { charge: charge.id });
      expectError(await server.api.post('/v1/refunds', { charge: charge.id }), 400, 'charge_already_refunded', 'charge');
      const byIntent = await server.api.post('/v1/refunds', { payment_intent: charge.payment_intent });
      expectError(byIntent, 400, 'charge_already_refunded', 'payment_intent');
    });
  });

  describe("a refund's customer and payment method", () => {
    /** A customer's payment, by intent with a saved card; the charge. */
    async function aCustomerPayment(): Promise<{ customer: any; charge: any }> {
      const customer = await aCustomer(server.api);
      const intent = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        customer: customer.id,
        payment_method: 'pm_card_visa',
        confirm: true,
      });
      expect(intent.status, JSON.stringify(intent.body)).to.equal(200);
      const charge = (await server.api.get(`/v1/charges/${intent.body.latest_charge}`)).body;
      return { customer, charge };
    }

    it("are the refunded charge's, in the answer, on retrieve, in lists and in refund.created", async () => {
      const { customer, charge } = await aCustomerPayment();
      expect(charge.payment_method).to.match(/^pm_/);
      const refund = await aRefund(server.api, { payment_intent: charge.payment_intent, amount: 500 });
      expect(refund).to.include({
        customer: customer.id,
        payment_method: charge.payment_method,
        customer_account: null,
      });
      expect((await server.api.get(`/v1/refunds/${refund.id}`)).body).to.deep.equal(refund);
      expect((await server.api.get(`/v1/refunds?charge=${charge.id}`)).body.data).to.deep.equal([refund]);
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.refunds.data).to.deep.equal([refund]);
      const created = (await eventsOldestFirst(server.api)).find(([type]) => type === 'refund.created');
      expect(created?.[1]).to.deep.equal(refund);
    });

    it('are null for a token charge with no customer', async () => {
      const charge = await aCharge(server.api);
      const refund = await aRefund(server.api, { charge: charge.id });
      expect(refund).to.include({ customer: null, payment_method: null, customer_account: null });
    });

    it('expand to the customer and the payment method, and the customer once deleted', async () => {
      const { customer, charge } = await aCustomerPayment();
      const refund = await aRefund(server.api, { charge: charge.id, amount: 100 });
      const expanded = await server.api.get(
        `/v1/refunds/${refund.id}?expand[]=customer&expand[]=payment_method`,
      );
      expect(expanded.status, JSON.stringify(expanded.body)).to.equal(200);
      expect(expanded.body.customer).to.include({ id: customer.id, object: 'customer', email: customer.email });
      expect(expanded.body.payment_method).to.include({ id: charge.payment_method, object: 'payment_method' });
      const listed = await server.api.get(`/v1/refunds?expand[]=data.customer`);
      expect(listed.body.data[0].customer).to.include({ id: customer.id, object: 'customer' });
      expect((await server.api.delete(`/v1/customers/${customer.id}`)).status).to.equal(200);
      const afterDelete = await server.api.get(`/v1/refunds/${refund.id}?expand[]=customer`);
      expect(afterDelete.body.customer).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
      expect((await server.api.get(`/v1/refunds/${refund.id}`)).body.customer).to.equal(customer.id);
    });

    it('shows the customer set on the charge after the refund', async () => {
      const charge = await aCharge(server.api, { amount: 2000 });
      const refund = await aRefund(server.api, { charge: charge.id, amount: 500 });
      expect(refund.customer).to.equal(null);
      const customer = await aCustomer(server.api);
      const updated = await server.api.post(`/v1/charges/${charge.id}`, { customer: customer.id });
      expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
      expect((await server.api.get(`/v1/refunds/${refund.id}`)).body.customer).to.equal(customer.id);
      const later = await aRefund(server.api, { charge: charge.id });
      expect(later.customer).to.equal(customer.id);
    });
  });

  describe('retrieveRefund', () => {
    it('returns the refund', async () => {
      const charge = await aCharge(server.api);
      const refund = await aRefund(server.api, { charge: charge.id, amount: 100 });
      const res = await server.api.get(`/v1/refunds/${refund.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(refund);
    });

    it("answers 404 for another account's refund", async () => {
      const charge = await aCharge(server.api);
      const refund = await aRefund(server.api, { charge: charge.id });
      expectError(await server.otherApi.get(`/v1/refunds/${refund.id}`), 404, 'resource_missing', 'id');
    });
  });

  describe('updateRefund', () => {
    it('records refund.updated with the refund and its metadata before, once per change, form-encoded as the SDKs send it', async () => {
      const charge = await aCharge(server.api);
      const refund = await aRefund(server.api, { charge: charge.id, metadata: { ticket: '42' } });
      const res = await server.api.post(`/v1/refunds/${refund.id}`, { metadata: { ticket: '', agent: 'ada' } }, { form: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.metadata).to.deep.equal({ agent: 'ada' });
      // The same metadata again changes nothing: no event.
      expect((await server.api.patch(`/v1/refunds/${refund.id}`, { metadata: { agent: 'ada' } })).status).to.equal(200);
      const events = (await server.api.get('/v1/events?type=refund.updated')).body.data;
      expect(events).to.have.length(1);
      expect(events[0].data).to.deep.equal({ object: res.body, previous_attributes: { metadata: { ticket: '42' } } });
      expect(events[0].request.id).to.equal(res.headers.get('request-id'));
    });

    it('delivers refund.updated to an endpoint subscribed to it', async () => {
      const endpoint = await server.api.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/refunds', enabled_events: ['refund.updated'] });
      expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(200);
      const refund = await aRefund(server.api, { charge: (await aCharge(server.api)).id });
      await server.api.post(`/v1/refunds/${refund.id}`, { metadata: { agent: 'ada' } });
      const [event] = (await server.api.get('/v1/events?type=refund.updated')).body.data;
      expect(event.pending_webhooks).to.equal(1);
      const deliveries = await server.api.get(`/v1/webhook_deliveries?event=${event.id}`);
      expect(deliveries.body.data.map((d: any) => d.endpoint)).to.deep.equal([endpoint.body.id]);
    });
  });

  describe('listRefunds', () => {
    it('lists newest first and filters by charge', async () => {
      const first = await aCharge(server.api);
      const second = await aCharge(server.api);
      const a = await aRefund(server.api, { charge: first.id, amount: 100 });
      const b = await aRefund(server.api, { charge: second.id, amount: 100 });
      const c = await aRefund(server.api, { charge: first.id, amount: 100 });
      const all = await server.api.get('/v1/refunds');
      expect(all.body).to.include({ object: 'list', has_more: false, url: '/v1/refunds' });
      expect(all.body.data.map((r: any) => r.id)).to.deep.equal([c.id, b.id, a.id]);
      const filtered = await server.api.get(`/v1/refunds?charge=${first.id}`);
      expect(filtered.body.data.map((r: any) => r.id)).to.deep.equal([c.id, a.id]);
    });

    it("filters by payment_intent: the refunds of the intent's charges", async () => {
      const first = await aCharge(server.api);
      const second = await aCharge(server.api);
      const a = await aRefund(server.api, { charge: first.id, amount: 100 });
      await aRefund(server.api, { charge: second.id, amount: 100 });
      const c = await aRefund(server.api, { payment_intent: first.payment_intent, amount: 100 });
      const filtered = await server.api.get(`/v1/refunds?payment_intent=${first.payment_intent}`);
      expect(filtered.status).to.equal(200);
      expect(filtered.body.data.map((r: any) => r.id)).to.deep.equal([c.id, a.id]);
      expect((await server.api.get('/v1/refunds?payment_intent=pi_missing')).body.data).to.deep.equal([]);
    });

    it("never shows another account's refunds", async () => {
      const theirs = await aCharge(server.otherApi);
      await aRefund(server.otherApi, { charge: theirs.id });
      expect((await server.api.get('/v1/refunds')).body.data).to.deep.equal([]);
      expect((await server.api.get(`/v1/refunds?charge=${theirs.id}`)).body.data).to.deep.equal([]);
    });
  });
});
