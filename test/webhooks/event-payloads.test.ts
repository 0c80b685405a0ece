import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { loadSpec } from '../../src/operations/spec.js';
import { aCharge, aCustomer, aUser } from '../helpers/builders.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
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
    this.timeout(30_000);
    receiver = await startCaptureReceiver();
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: [0.05] } });
    await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    const { api } = server;
    const customer = await aCustomer(api);
    await api.patch(`/v1/customers/${customer.id}`, { name: 'New name' });
    const charge = await aCharge(api, { customer: customer.id });
    await api.post('/v1/charges', { amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    await api.patch(`/v1/charges/${charge.id}`, { description: 'updated' });
    await api.post('/v1/refunds', { charge: charge.id, amount: 100 });
    await api.delete(`/v1/customers/${customer.id}`);
    const user = await aUser(api);
    await api.patch(`/v1/users/${user.id}`, { name: 'Ada L.' });
    const order = (await api.post(`/v1/users/${user.id}/orders`, { amount: 1000, currency: 'eur' })).body;
    await api.patch(`/v1/users/${user.id}/orders/${order.id}`, { status: 'paid' });
    await api.delete(`/v1/users/${user.id}/orders/${order.id}`);
    await api.delete(`/v1/users/${user.id}`);

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
