import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { loadSpec } from '../../src/operations/spec.js';
import { aCharge, aCustomer, aUser } from '../helpers/builders.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const spec = loadSpec() as ReturnType<typeof loadSpec> & { webhooks: Record<string, { post: any }> };
const eventTypes = (spec.components.schemas as Record<string, { enum?: string[] }>).EventType.enum!;

/** A validator for each event type's payload, from the spec's `webhooks` section. */
function payloadValidators() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'spec', components: spec.components });
  return Object.fromEntries(
    Object.entries(spec.webhooks).map(([type, item]) => [
      type,
      ajv.compile({ $ref: `spec${item.post.requestBody.content['application/json'].schema.$ref}` }),
    ]),
  );
}

describe('webhooks section of the spec', () => {
  it('describes every event type', () => {
    expect(Object.keys(spec.webhooks).sort()).to.deep.equal([...eventTypes].sort());
  });
});

forEachDatabase('webhook payloads', (engine) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  afterEach(async () => {
    await server.close();
    await receiver.close();
  });

  it('match the spec for every event type the API emits', async function () {
    this.timeout(60_000);
    receiver = await startCaptureReceiver();
    server = await startTestServer(engine, {
      webhookAllowPrivateNetworks: true,
      webhookWorker: { retryScheduleSeconds: [0.05] },
      authorizationExpiryIntervalMs: 50,
    });
    await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    const { api } = server;
    const customer = await aCustomer(api);
    await api.patch(`/v1/customers/${customer.id}`, { name: 'New name' });
    const charge = await aCharge(api, { customer: customer.id });
    await api.post('/v1/charges', { amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    await api.patch(`/v1/charges/${charge.id}`, { description: 'updated' });
    const refund = (await api.post('/v1/refunds', { charge: charge.id, amount: 100 })).body;
    await api.post(`/v1/refunds/${refund.id}`, { metadata: { ticket: '42' } });
    // A card saved to the customer, updated, then detached.
    const card = (await api.post('/v1/payment_methods', { type: 'card', card: { token: 'tok_visa' } })).body;
    await api.post(`/v1/payment_methods/${card.id}/attach`, { customer: customer.id });
    await api.post(`/v1/payment_methods/${card.id}`, { metadata: { label: 'work' } });
    await api.post(`/v1/payment_methods/${card.id}/detach`);
    await api.delete(`/v1/customers/${customer.id}`);
    const user = await aUser(api);
    await api.patch(`/v1/users/${user.id}`, { name: 'Ada L.' });
    const order = (await api.post(`/v1/users/${user.id}/orders`, { amount: 1000, currency: 'eur' })).body;
    await api.patch(`/v1/users/${user.id}/orders/${order.id}`, { status: 'paid' });
    await api.delete(`/v1/users/${user.id}/orders/${order.id}`);
    await api.delete(`/v1/users/${user.id}`);
    // The payment lifecycle: authorise then capture, a customer action then a cancel, a declined
    // confirmation, and an authorisation that expires uncaptured.
    const authorised = (
      await api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        capture_method: 'manual',
        confirm: true,
      })
    ).body;
    await api.post(`/v1/payment_intents/${authorised.id}/capture`, { amount_to_capture: 1500 });
    const waiting = (
      await api.post('/v1/payment_intents', { amount: 800, currency: 'usd', payment_method: 'pm_card_authenticationRequired', confirm: true })
    ).body;
    await api.post(`/v1/payment_intents/${waiting.id}/cancel`, { cancellation_reason: 'abandoned' });
    await api.post('/v1/payment_intents', { amount: 900, currency: 'usd', payment_method: 'pm_card_chargeDeclined', confirm: true });
    // Setup intents: succeeded (its card attached), declined, waiting for the customer, canceled.
    await api.post('/v1/setup_intents', { customer: (await aCustomer(api)).id, payment_method: 'pm_card_visa', confirm: true });
    await api.post('/v1/setup_intents', { payment_method: 'pm_card_chargeDeclined', confirm: true });
    const setupWaiting = (await api.post('/v1/setup_intents', { payment_method: 'pm_card_authenticationRequired', confirm: true })).body;
    await api.post(`/v1/setup_intents/${setupWaiting.id}/cancel`, { cancellation_reason: 'abandoned' });
    const expiring = (await api.post('/v1/charges', { amount: 700, currency: 'usd', source: 'tok_visa', capture: false })).body;
    server.clock.advance(7 * 24 * 3600_000 + 1000);
    await eventually(async () => expect((await api.get(`/v1/charges/${expiring.id}`)).body.refunded).to.equal(true));

    const emitted = (await server.db.all<{ type: string }>('SELECT type FROM events')).map((e) => e.type);
    expect(new Set(emitted)).to.deep.equal(new Set(eventTypes));
    const received = await receiver.waitFor(emitted.length);
    const validators = payloadValidators();
    for (const request of received) {
      const event = JSON.parse(request.body);
      const validate = validators[event.type];
      expect(validate(event), `${event.type}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    }
  });
});
