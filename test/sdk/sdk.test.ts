import { expect } from 'chai';
import { autoPaginate, createClient, PaymentsError } from '../../sdk/src/index.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

forEachDatabase('SDK against a live server', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });

  it('creates and retrieves objects with typed results', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const customer = await payments.createCustomer({ email: 'sdk@example.com', metadata: { via: 'sdk' } });
    expect(customer.status).to.equal(200);
    if (customer.status !== 200) return;
    const charge = await payments.createCharge({ amount: 1500, currency: 'usd', source: 'tok_visa', customer: customer.data.id });
    expect(charge.status).to.equal(200);
    if (charge.status !== 200) return;
    expect(charge.data).to.include({ amount: 1500, customer: customer.data.id, status: 'succeeded' });
    const fetched = await payments.retrieveCharge(charge.data.id);
    expect(fetched.status === 200 && fetched.data.id).to.equal(charge.data.id);
  });

  it('returns declared error statuses as data, with the error envelope', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const declined = await payments.createCharge({ amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    expect(declined.status).to.equal(402);
    if (declined.status === 402) expect(declined.data.error.code).to.equal('card_declined');
  });

  it('authorises, then captures part of a payment intent, with typed results', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const intent = await payments.createPaymentIntent({
      amount: 2000,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });
    if (intent.status !== 200) throw new Error(JSON.stringify(intent.data));
    expect(intent.data).to.include({ status: 'requires_capture', amount_capturable: 2000 });
    const captured = await payments.capturePaymentIntent(intent.data.id, { amount_to_capture: 1500 });
    if (captured.status !== 200) throw new Error(JSON.stringify(captured.data));
    expect(captured.data).to.include({ status: 'succeeded', amount_received: 1500 });
    const charge = await payments.retrieveCharge(captured.data.latest_charge as string);
    expect(charge.status === 200 && charge.data).to.include({ captured: true, amount_captured: 1500, amount_refunded: 500 });
  });

  it('hands a declined confirmation its intent in the error', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const declined = await payments.createPaymentIntent({
      amount: 700,
      currency: 'usd',
      payment_method: 'pm_card_chargeDeclined',
      confirm: true,
    });
    if (declined.status !== 402) throw new Error(JSON.stringify(declined.data));
    expect(declined.data.error.payment_intent).to.include({ object: 'payment_intent', status: 'requires_payment_method' });
    expect(declined.data.error.payment_intent?.last_payment_error).to.include({ code: 'card_declined', charge: declined.data.error.charge });
  });

  it('retries a POST after a network failure with the same Idempotency-Key, creating one object', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      const response = await fetch(input, init);
      // The first attempt reaches the server but its answer is "lost" on the way back.
      if (calls === 1) throw new TypeError('fetch failed: connection reset');
      return response;
    };
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url, fetch: flaky });
    const before = (await server.api.get('/v1/customers?limit=100')).body.data.length;
    const created = await payments.createCustomer({ email: 'retry@example.com' });
    expect(created.status).to.equal(200);
    expect(created.headers.get('idempotent-replayed')).to.equal('true');
    expect(calls).to.equal(2);
    const after = (await server.api.get('/v1/customers?limit=100')).body.data.length;
    expect(after).to.equal(before + 1);
  });

  it('iterates over every page with autoPaginate', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await payments.createUser({ email: `user${i}@example.com` });
      if (res.status === 200) created.push(res.data.id);
    }
    const seen: string[] = [];
    for await (const user of autoPaginate((after) => payments.listUsers({ limit: 3, starting_after: after }))) {
      seen.push(user.id);
    }
    expect(seen).to.deep.equal([...created].reverse());
  });

  it('throws PaymentsError from autoPaginate on an error answer', async () => {
    const payments = createClient({ apiKey: 'sk_test_notarealkey000', baseUrl: server.url });
    const iterate = async () => {
      for await (const _ of autoPaginate((after) => payments.listCharges({ starting_after: after }))) void _;
    };
    const error = await iterate().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(PaymentsError);
    expect((error as PaymentsError).code).to.equal('api_key_invalid');
  });
});
