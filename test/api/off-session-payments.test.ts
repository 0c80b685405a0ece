import { expect } from 'chai';
import type { ApiClient, ApiResponse } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

function ok(res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** A customer with a card of this test name saved (attached) to it. */
async function aCustomerWithCard(api: ApiClient, token: string): Promise<{ customer: any; card: any }> {
  const customer = await aCustomer(api);
  const created = ok(await api.post('/v1/payment_methods', { type: 'card', card: { token } }));
  const card = ok(await api.post(`/v1/payment_methods/${created.id}/attach`, { customer: customer.id }));
  return { customer, card };
}

/** An off-session payment of the customer's saved card, confirmed at once. */
function chargeOffSession(api: ApiClient, customer: string, paymentMethod: string, more: Record<string, unknown> = {}) {
  return api.post('/v1/payment_intents', {
    amount: 2000,
    currency: 'usd',
    customer,
    payment_method: paymentMethod,
    off_session: true,
    confirm: true,
    ...more,
  });
}

forEachDatabase('charging a saved payment method', (engine) => {
  // Every test reads only what its accounts made, so one server serves the file.
  const server = useTestServer(engine, {}, { per: 'account' });

  it('pays off-session with a saved card, the customer away', async () => {
    const { customer, card } = await aCustomerWithCard(server.api, 'tok_visa');
    const intent = ok(await chargeOffSession(server.api, customer.id, card.id));
    expect(intent).to.include({ status: 'succeeded', customer: customer.id, payment_method: card.id, amount_received: 2000 });
    const expanded = ok(await server.api.get(`/v1/payment_intents/${intent.id}?expand[]=payment_method`));
    expect(expanded.payment_method).to.deep.equal(ok(await server.api.get(`/v1/payment_methods/${card.id}`)));
  });

  it('answers 402 authentication_required for a card that always asks, the intent back in requires_payment_method', async () => {
    const { customer, card } = await aCustomerWithCard(server.api, 'tok_authenticationRequired');
    const res = await chargeOffSession(server.api, customer.id, card.id);
    const error = expectError(res, 402, 'authentication_required');
    expect(error).to.include({ type: 'card_error', decline_code: 'authentication_required' });
    expect(error.payment_intent).to.include({ status: 'requires_payment_method', payment_method: null });
    expect(error.payment_intent.last_payment_error).to.include({ code: 'authentication_required', charge: error.charge });
    expect(error.payment_intent.last_payment_error.payment_method).to.deep.equal(card);
    const charge = ok(await server.api.get(`/v1/charges/${error.charge}`));
    expect(charge).to.include({ status: 'failed', failure_code: 'authentication_required' });
    // On session the same card waits for the customer instead.
    const onSession = ok(
      await server.api.post(`/v1/payment_intents/${error.payment_intent.id}/confirm`, { payment_method: card.id }),
    );
    expect(onSession.status).to.equal('requires_action');
  });

  it('refuses a card that asks on setup only until a payment set it up for off-session use, then pays', async () => {
    const { customer, card } = await aCustomerWithCard(server.api, 'tok_authenticationRequiredSetupForOffSession');
    expectError(await chargeOffSession(server.api, customer.id, card.id), 402, 'authentication_required');
    // The customer comes back, pays on session and authenticates, saving the card for off-session use.
    const onSession = ok(
      await server.api.post('/v1/payment_intents', {
        amount: 500,
        currency: 'usd',
        customer: customer.id,
        payment_method: card.id,
        setup_future_usage: 'off_session',
        confirm: true,
      }),
    );
    expect(onSession).to.include({ status: 'requires_action', setup_future_usage: 'off_session' });
    ok(await server.api.post(`/v1/test_helpers/payment_intents/${onSession.id}/authenticate`));
    const later = ok(await chargeOffSession(server.api, customer.id, card.id));
    expect(later.status).to.equal('succeeded');
  });

  it('attaches the payment method to the customer when a payment with setup_future_usage succeeds', async () => {
    const customer = await aCustomer(server.api);
    const declined = await server.api.post('/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
      payment_method: 'pm_card_chargeDeclined',
      setup_future_usage: 'on_session',
      confirm: true,
    });
    expectError(declined, 402, 'card_declined');
    expect(ok(await server.api.get(`/v1/customers/${customer.id}/payment_methods`)).data).to.deep.equal([]);
    const paid = ok(
      await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        customer: customer.id,
        payment_method: 'pm_card_visa',
        setup_future_usage: 'off_session',
        confirm: true,
      }),
    );
    const saved = ok(await server.api.get(`/v1/customers/${customer.id}/payment_methods`)).data;
    expect(saved.map((pm: any) => pm.id)).to.deep.equal([paid.payment_method]);
    const attached = ok(await server.api.get(`/v1/events?type=payment_method.attached`)).data;
    expect(attached.map((e: any) => e.data.object.id)).to.deep.equal([paid.payment_method]);
    // A customer's saved card, charged again later without them.
    expect(ok(await chargeOffSession(server.api, customer.id, paid.payment_method)).status).to.equal('succeeded');
  });

  it("refuses another customer's saved card, and off_session without confirm, naming the field", async () => {
    const { card } = await aCustomerWithCard(server.api, 'tok_visa');
    const stranger = await aCustomer(server.api);
    expectError(await chargeOffSession(server.api, stranger.id, card.id), 400, 'parameter_invalid', 'payment_method');
    const res = await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', payment_method: 'pm_card_visa', off_session: true });
    expectError(res, 400, 'parameter_invalid', 'off_session');
    expectError(await chargeOffSession(server.api, stranger.id, 'pm_000000000000000000000000'), 404, 'resource_missing', 'payment_method');
  });

  it('makes a new payment method from a test name at each use', async () => {
    const a = ok(await server.api.post('/v1/payment_intents', { amount: 100, currency: 'usd', payment_method: 'pm_card_visa' }));
    const b = ok(await server.api.post('/v1/payment_intents', { amount: 100, currency: 'usd', payment_method: 'pm_card_visa' }));
    expect(a.payment_method).to.match(/^pm_[0-9A-Za-z]{24}$/);
    expect(b.payment_method).to.match(/^pm_[0-9A-Za-z]{24}$/).and.not.equal(a.payment_method);
  });

  it('expands the default payment method and charges it as a saved card', async () => {
    const { customer, card } = await aCustomerWithCard(server.api, 'tok_mastercard');
    const updated = ok(
      await server.api.post(`/v1/customers/${customer.id}`, {
        invoice_settings: { default_payment_method: card.id },
        expand: ['invoice_settings.default_payment_method'],
      }),
    );
    expect(updated.invoice_settings.default_payment_method).to.deep.equal(card);
    const read = ok(await server.api.get(`/v1/customers/${customer.id}?expand[]=invoice_settings.default_payment_method`));
    expect(read.invoice_settings.default_payment_method).to.deep.equal(card);
    const paid = ok(await chargeOffSession(server.api, customer.id, read.invoice_settings.default_payment_method.id));
    expect(paid.status).to.equal('succeeded');
  });
});
