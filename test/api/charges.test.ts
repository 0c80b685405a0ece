import { expect } from 'chai';
import type { ApiClient } from '../helpers/api-client.js';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { APPROVED, documentedCard } from '../helpers/charge-cards.js';
import { withoutClientSecret } from '../helpers/client-secret.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** The account's events, oldest first, as `[type, data.object]` pairs. */
async function eventsOldestFirst(api: ApiClient): Promise<Array<[string, any]>> {
  const res = await api.get('/v1/events?limit=100');
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.has_more, 'more than 100 events').to.equal(false);
  return res.body.data.map((event: any) => [event.type, event.data.object]).reverse();
}

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
      // A token stands for a card valid for years to come, and carries no billing details.
      const expiry = { exp_month: 12, exp_year: new Date(server.clock.nowMs()).getUTCFullYear() + 3 };
      // The token's test card, as its payment methods show it; a token carries no checks.
      const fingerprint = (await server.api.post('/v1/payment_methods', { type: 'card', card: { token: 'tok_visa' } })).body.card.fingerprint;
      expect(res.body.payment_method_details).to.deep.equal({
        type: 'card',
        card: { ...documentedCard({ brand: 'visa', ...expiry, last4: '4242', fingerprint, amount_authorized: 2000 }), checks: null },
      });
      expect(res.body.payment_method).to.equal(null);
      expect(res.body.outcome).to.deep.equal(APPROVED);
      expect(res.body.billing_details).to.deep.equal({ address: null, email: null, name: null, phone: null, tax_id: null });
      expect(res.body.disputed).to.equal(false);
      // Captured at once, through a payment intent of its own.
      expect(res.body).to.include({ amount_captured: 2000, captured: true });
      expect(res.body.payment_intent).to.match(/^pi_[0-9A-Za-z]{24}$/);
      expect(res.body.refunds).to.deep.equal({ object: 'list', data: [], has_more: false, url: `/v1/charges/${res.body.id}/refunds` });
    });

    it("shows the expiry and billing details of the payment method an intent paid with, as they were at the payment", async () => {
      const billing = { name: 'Jenny Rosen', email: 'jenny@example.com', phone: null, address: null, tax_id: null };
      const pm = (
        await server.api.post('/v1/payment_methods', {
          type: 'card',
          card: { number: '4242424242424242', exp_month: 7, exp_year: 2031, cvc: '314' },
          billing_details: { name: billing.name, email: billing.email },
        })
      ).body;
      const intent = (await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', payment_method: pm.id, confirm: true })).body;
      await server.api.post(`/v1/payment_methods/${pm.id}`, { billing_details: { name: 'Someone Else' } });
      const charge = (await server.api.get(`/v1/charges/${intent.latest_charge}`)).body;
      expect(charge.payment_method_details.card).to.deep.equal(
        documentedCard({ ...pm.card, exp_month: 7, exp_year: 2031, amount_authorized: 2000 }),
      );
      expect(charge.payment_method).to.equal(pm.id);
      expect(charge.billing_details).to.deep.equal(billing);
    });

    it('charges tok_mastercard with the mastercard brand and last4', async () => {
      const charge = await aCharge(server.api, { source: 'tok_mastercard' });
      expect(charge.status).to.equal('succeeded');
      expect(charge.payment_method_details.card).to.deep.include({ brand: 'mastercard', last4: '4444' });
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
      // As confirming an intent answers: the charge's intent, back in requires_payment_method.
      expect(error.payment_intent).to.include({ id: failed.body.payment_intent, status: 'requires_payment_method', latest_charge: error.charge });
      expect(withoutClientSecret((await server.api.get(`/v1/payment_intents/${failed.body.payment_intent}`)).body)).to.deep.equal(error.payment_intent);
    });

    it('declines tok_chargeDeclinedInsufficientFunds with decline_code insufficient_funds', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclinedInsufficientFunds' });
      const error = expectError(res, 402, 'card_declined');
      expect(error.decline_code).to.equal('insufficient_funds');
      expect((await server.api.get(`/v1/charges/${error.charge}`)).body.status).to.equal('failed');
    });

    it('makes a succeeded payment intent for a successful charge, and records its three events in order', async () => {
      const charge = await aCharge(server.api, { amount: 1234, currency: 'eur', description: 'Order 6735', metadata: { order: '6735' } });
      const intent = withoutClientSecret((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body);
      expect(intent).to.include({
        amount: 1234,
        amount_received: 1234,
        amount_capturable: 0,
        currency: 'eur',
        capture_method: 'automatic',
        status: 'succeeded',
        latest_charge: charge.id,
        payment_method: 'tok_visa',
        description: 'Order 6735',
      });
      expect(intent.metadata).to.deep.equal({ order: '6735' });
      const events = await eventsOldestFirst(server.api);
      expect(events.map(([type]) => type)).to.deep.equal(['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded']);
      expect(events[0][1]).to.include({ id: intent.id, status: 'requires_confirmation', latest_charge: null });
      expect(events[1][1]).to.deep.equal(charge);
      expect(events[2][1]).to.deep.equal(intent);
    });

    it('records payment_intent.created, charge.failed and payment_intent.payment_failed for a declined charge', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' });
      const events = await eventsOldestFirst(server.api);
      expect(events.map(([type]) => type)).to.deep.equal(['payment_intent.created', 'charge.failed', 'payment_intent.payment_failed']);
      expect(events[1][1]).to.include({ id: res.body.error.charge, status: 'failed', captured: false, amount_captured: 0 });
      const intent = events[2][1];
      const chargeId = res.body.error.charge;
      expect(intent).to.include({ id: events[1][1].payment_intent, status: 'requires_payment_method', latest_charge: chargeId });
      expect(intent.last_payment_error).to.include({ code: 'card_declined', decline_code: 'generic_decline', charge: chargeId });
    });
  });

  describe('createCharge with capture=false', () => {
    it('only authorises: the charge is paid but not captured, and its intent waits in requires_capture', async () => {
      const charge = await aCharge(server.api, { amount: 2000, capture: false });
      expect(charge).to.include({ status: 'succeeded', paid: true, captured: false, amount_captured: 0, refunded: false });
      const intent = withoutClientSecret((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body);
      expect(intent).to.include({ status: 'requires_capture', capture_method: 'manual', amount_capturable: 2000, amount_received: 0 });
      const events = await eventsOldestFirst(server.api);
      expect(events.map(([type]) => type)).to.deep.equal([
        'payment_intent.created',
        'charge.succeeded',
        'payment_intent.amount_capturable_updated',
      ]);
      expect(events[1][1]).to.deep.equal(charge);
      expect(events[2][1]).to.deep.equal(intent);
    });

    it('takes capture=false from a form body', async () => {
      const form = { amount: '2000', currency: 'usd', source: 'tok_visa', capture: 'false' };
      const res = await server.api.post('/v1/charges', form, { form: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ captured: false, amount_captured: 0 });
    });

    it('answers 402 for a declined card as a captured charge does', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined', capture: false });
      const error = expectError(res, 402, 'card_declined');
      expect((await server.api.get(`/v1/charges/${error.charge}`)).body).to.include({ status: 'failed', captured: false });
    });
  });

  describe('captureCharge', () => {
    it('captures the whole authorisation by default, and records charge.captured then payment_intent.succeeded', async () => {
      const charge = await aCharge(server.api, { amount: 2000, capture: false });
      const before = (await eventsOldestFirst(server.api)).length;
      const res = await server.api.post(`/v1/charges/${charge.id}/capture`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ id: charge.id, captured: true, amount_captured: 2000, amount_refunded: 0, refunded: false });
      expect(res.body.refunds.data).to.deep.equal([]);
      const intent = withoutClientSecret((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body);
      expect(intent).to.include({ status: 'succeeded', amount_received: 2000, amount_capturable: 0 });
      const events = (await eventsOldestFirst(server.api)).slice(before);
      expect(events.map(([type]) => type)).to.deep.equal(['charge.captured', 'payment_intent.succeeded']);
      expect(events[0][1]).to.deep.equal(res.body);
      expect(events[1][1]).to.deep.equal(intent);
    });

    it('captures part and releases the rest as a refund of the charge', async () => {
      const charge = await aCharge(server.api, { amount: 2000, capture: false });
      const before = (await eventsOldestFirst(server.api)).length;
      const res = await server.api.post(`/v1/charges/${charge.id}/capture`, { amount: 1500 }, { form: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ captured: true, amount_captured: 1500, amount_refunded: 500, refunded: false });
      const [released] = res.body.refunds.data;
      expect(released).to.include({ amount: 500, charge: charge.id, payment_intent: charge.payment_intent, reason: null });
      expect((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body).to.include({ amount_received: 1500 });
      const events = (await eventsOldestFirst(server.api)).slice(before);
      expect(events.map(([type]) => type)).to.deep.equal(['charge.captured', 'refund.created', 'payment_intent.succeeded']);
      expect(events[1][1]).to.deep.equal(released);
      // What was captured can be refunded, and no more.
      expectError(await server.api.post('/v1/refunds', { charge: charge.id, amount: 1501 }), 400, 'amount_too_large', 'amount');
      const refund = await server.api.post('/v1/refunds', { charge: charge.id });
      expect(refund.body.amount).to.equal(1500);
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body).to.include({ amount_refunded: 2000, refunded: true });
    });

    it('answers charge_already_captured for a charge captured at creation, or already captured', async () => {
      const captured = await aCharge(server.api);
      expectError(await server.api.post(`/v1/charges/${captured.id}/capture`), 400, 'charge_already_captured');
      const authorised = await aCharge(server.api, { capture: false });
      expect((await server.api.post(`/v1/charges/${authorised.id}/capture`, { amount: 100 })).status).to.equal(200);
      expectError(await server.api.post(`/v1/charges/${authorised.id}/capture`), 400, 'charge_already_captured');
      expect((await server.api.get(`/v1/charges/${authorised.id}`)).body).to.include({ amount_captured: 100, amount_refunded: 1900 });
    });

    it('answers charge_already_refunded for an authorisation released by a refund or by canceling its intent', async () => {
      const refunded = await aCharge(server.api, { capture: false });
      expect((await server.api.post('/v1/refunds', { charge: refunded.id })).status).to.equal(200);
      expectError(await server.api.post(`/v1/charges/${refunded.id}/capture`), 400, 'charge_already_refunded');
      const canceled = await aCharge(server.api, { capture: false });
      expect((await server.api.post(`/v1/payment_intents/${canceled.payment_intent}/cancel`)).status).to.equal(200);
      expectError(await server.api.post(`/v1/charges/${canceled.id}/capture`), 400, 'charge_already_refunded');
      expect((await server.api.get(`/v1/charges/${canceled.id}`)).body).to.include({ captured: false, amount_refunded: 2000 });
    });

    it('answers amount_too_large naming amount for more than was authorised, and captures nothing', async () => {
      const charge = await aCharge(server.api, { amount: 2000, capture: false });
      expectError(await server.api.post(`/v1/charges/${charge.id}/capture`, { amount: 2001 }), 400, 'amount_too_large', 'amount');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body).to.include({ captured: false, amount_captured: 0 });
      expect((await server.api.get(`/v1/payment_intents/${charge.payment_intent}`)).body.status).to.equal('requires_capture');
    });

    it('answers 400 payment_intent_unexpected_state for a declined charge, carrying its intent', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined', capture: false });
      const { charge: chargeId } = expectError(res, 402, 'card_declined');
      const error = expectError(await server.api.post(`/v1/charges/${chargeId}/capture`), 400, 'payment_intent_unexpected_state');
      expect(error.payment_intent).to.include({ status: 'requires_payment_method', latest_charge: chargeId });
    });

    it('captures once when two captures of one charge arrive at once: the other is refused as already captured', async () => {
      for (let round = 0; round < 5; round++) {
        const charge = await aCharge(server.api, { amount: 2000, capture: false });
        const answers = await Promise.all([500, 1500].map((amount) => server.api.post(`/v1/charges/${charge.id}/capture`, { amount })));
        const won = answers.findIndex((res) => res.status === 200);
        expect(won, JSON.stringify(answers.map((res) => res.body))).to.not.equal(-1);
        // The same answer as for a capture that comes after: the charge is captured, whatever the loser read first.
        expectError(answers[1 - won], 400, 'charge_already_captured');
        expect((await server.api.get(`/v1/charges/${charge.id}`)).body).to.include({ amount_captured: answers[won].body.amount_captured });
      }
    });

    it("answers 404 for an unknown charge and for another account's, capturing nothing", async () => {
      expectError(await server.api.post('/v1/charges/ch_missing/capture'), 404, 'resource_missing', 'id');
      const theirs = await aCharge(server.otherApi, { capture: false });
      expectError(await server.api.post(`/v1/charges/${theirs.id}/capture`), 404, 'resource_missing', 'id');
      expect((await server.otherApi.get(`/v1/charges/${theirs.id}`)).body.captured).to.equal(false);
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

    it('filters by status', async () => {
      const succeeded = await aCharge(server.api);
      const declined = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' });
      const authorised = await aCharge(server.api, { capture: false });
      const failed = await server.api.get('/v1/charges?status=failed');
      expect(failed.body.data.map((x: any) => x.id)).to.deep.equal([declined.body.error.charge]);
      // An authorisation has succeeded too: `captured` tells it apart.
      const paid = await server.api.get('/v1/charges?status=succeeded');
      expect(paid.body.data.map((x: any) => x.id)).to.deep.equal([authorised.id, succeeded.id]);
      expectError(await server.api.get('/v1/charges?status=pending'), 400, 'parameter_invalid', 'status');
    });

    it('filters by payment_intent: every attempt of the intent, newest first', async () => {
      await aCharge(server.api);
      const intent = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method: 'pm_card_chargeDeclined',
        confirm: true,
      });
      const { charge: declined, payment_intent: { id } } = expectError(intent, 402, 'card_declined');
      const confirmed = await server.api.post(`/v1/payment_intents/${id}/confirm`, { payment_method: 'pm_card_visa' });
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
      const res = await server.api.get(`/v1/charges?payment_intent=${id}`);
      expect(res.body.data.map((x: any) => x.id)).to.deep.equal([confirmed.body.latest_charge, declined]);
      expect(res.body.data.map((x: any) => x.status)).to.deep.equal(['succeeded', 'failed']);
      expect((await server.api.get('/v1/charges?payment_intent=pi_missing')).body.data).to.deep.equal([]);
    });

    it("never shows another account's charges", async () => {
      const theirs = await aCharge(server.otherApi);
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
      expect((await server.api.get(`/v1/charges?payment_intent=${theirs.payment_intent}`)).body.data).to.deep.equal([]);
    });
  });

  describe('listChargeRefunds', () => {
    it("lists the charge's refunds newest first, the release of a partial capture included", async () => {
      const charge = await aCharge(server.api, { amount: 2000, capture: false });
      const captured = await server.api.post(`/v1/charges/${charge.id}/capture`, { amount: 1500 });
      const [released] = captured.body.refunds.data;
      const first = await server.api.post('/v1/refunds', { charge: charge.id, amount: 100 });
      const second = await server.api.post('/v1/refunds', { charge: charge.id, amount: 200 });
      await aCharge(server.api).then((other) => server.api.post('/v1/refunds', { charge: other.id }));
      const res = await server.api.get(`/v1/charges/${charge.id}/refunds`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ object: 'list', has_more: false, url: `/v1/charges/${charge.id}/refunds` });
      expect(res.body.data).to.deep.equal([second.body, first.body, released]);
      const page = await server.api.get(`/v1/charges/${charge.id}/refunds?limit=2`);
      expect(page.body).to.include({ has_more: true });
      expect(page.body.data.map((r: any) => r.id)).to.deep.equal([second.body.id, first.body.id]);
      // The charge embeds the same list.
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.refunds.data).to.deep.equal(res.body.data);
    });

    it("answers 404 for an unknown charge and for another account's", async () => {
      expectError(await server.api.get('/v1/charges/ch_missing/refunds'), 404, 'resource_missing', 'id');
      const theirs = await aCharge(server.otherApi);
      await server.otherApi.post('/v1/refunds', { charge: theirs.id });
      expectError(await server.api.get(`/v1/charges/${theirs.id}/refunds`), 404, 'resource_missing', 'id');
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

    it('sets the customer of a charge that has none (form-encoded, as the SDKs send it), with charge.updated', async () => {
      const charge = await aCharge(server.api);
      const customer = await aCustomer(server.api);
      const res = await server.api.post(`/v1/charges/${charge.id}`, { customer: customer.id }, { form: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.customer).to.equal(customer.id);
      expect((await server.api.get(`/v1/customers/${customer.id}/charges`)).body.data.map((c: any) => c.id)).to.deep.equal([charge.id]);
      const events = await server.api.get('/v1/events?type=charge.updated');
      expect(events.body.data[0].data.previous_attributes).to.deep.equal({ customer: null });
      // The same customer again changes nothing.
      expect((await server.api.post(`/v1/charges/${charge.id}`, { customer: customer.id })).status).to.equal(200);
    });

    it("refuses another customer for a charge that has one, and an unknown customer, naming customer, and changes nothing", async () => {
      const first = await aCustomer(server.api);
      const second = await aCustomer(server.api);
      const charge = await aCharge(server.api, { customer: first.id });
      const error = expectError(
        await server.api.post(`/v1/charges/${charge.id}`, { customer: second.id, description: 'moved' }),
        400,
        'parameter_invalid',
        'customer',
      );
      expect(error.message).to.contain(first.id);
      const unowned = await aCharge(server.api);
      expectError(await server.api.patch(`/v1/charges/${unowned.id}`, { customer: 'cus_nope' }), 404, 'resource_missing', 'customer');
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body).to.include({ customer: first.id, description: null });
      expect((await server.api.get(`/v1/charges/${unowned.id}`)).body.customer).to.equal(null);
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
