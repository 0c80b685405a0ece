import { expect } from 'chai';
import { loadSpec } from '../../src/operations/spec.js';
import { useTestServer } from '../helpers/test-server.js';

/** The spec's list of products this server does not offer, with the parameters that belong to them. */
const ABSENT = loadSpec()['x-absent-features'] as Array<{ feature: string; parameters: string[] }>;

/**
 * Code written for the widely used payments API may send a parameter of a product this server does
 * not have (Connect's `application_fee_amount`, a customer's `test_clock`). It is refused as any
 * unknown parameter, and the message says which product it belongs to. Request validation does
 * not depend on the engine: SQLite only.
 */
describe('parameters of products this server does not offer', () => {
  const server = useTestServer('sqlite', {}, { per: 'suite' });

  it('refuses Connect’s application_fee_amount on a payment intent, naming the parameter and Connect, and creates nothing', async () => {
    const res = await server.api.post('/v1/payment_intents', {
      amount: 1000,
      currency: 'usd',
      application_fee_amount: 100,
    });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.include({
      type: 'invalid_request_error',
      code: 'parameter_unknown',
      param: 'application_fee_amount',
    });
    expect(res.body.error.message).to.match(
      /^Received application_fee_amount, which belongs to Connect \(.+\): this server does not offer it\.$/,
    );
    expect((await server.api.get('/v1/payment_intents')).body.data).to.deep.equal([]);
  });

  it('says so in a form body too, as the payment SDKs send it', async () => {
    const res = await server.api.post(
      '/v1/customers',
      { email: 'a@example.com', test_clock: 'clock_1' },
      { form: true },
    );
    expect(res.status).to.equal(400);
    expect(res.body.error).to.include({ code: 'parameter_unknown', param: 'test_clock' });
    expect(res.body.error.message).to.contain('test clocks');
  });

  it("refuses a refund's currency, customer and origin as refunds to a customer balance, which this server does not offer", async () => {
    for (const [parameter, value] of [['currency', 'usd'], ['customer', 'cus_unused'], ['origin', 'customer_balance']]) {
      const res = await server.api.post('/v1/refunds', { charge: 'ch_unused', [parameter]: value }, { form: true });
      expect(res.status, parameter).to.equal(400);
      expect(res.body.error, parameter).to.include({ code: 'parameter_unknown', param: parameter });
      expect(res.body.error.message, parameter).to.match(/^Received \w+, which belongs to customer balances \(.+\): this server does not offer it\.$/);
    }
    // Elsewhere a customer is no customer balance: an operation that does not take it says only that.
    const res = await server.api.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/a', enabled_events: ['*'], customer: 'cus_1' });
    expect(res.body.error).to.include({ code: 'parameter_unknown', param: 'customer', message: 'Received unknown parameter: customer.' });
  });

  it('names the product of every listed parameter where an operation does not take it', async () => {
    for (const { feature, parameters } of ABSENT) {
      for (const parameter of parameters) {
        const res = await server.api.post('/v1/refunds', { charge: 'ch_unused', [parameter]: 'x' });
        expect(res.status, parameter).to.equal(400);
        expect(res.body.error, parameter).to.include({
          code: 'parameter_unknown',
          param: parameter,
        });
        expect(res.body.error.message, parameter).to.contain(`belongs to ${feature}`);
      }
    }
  });

  it('keeps the plain message for a parameter of no product, and for a listed name nested in another parameter', async () => {
    const typo = await server.api.post('/v1/customers', { emial: 'a@example.com' });
    expect(typo.body.error).to.include({
      code: 'parameter_unknown',
      param: 'emial',
      message: 'Received unknown parameter: emial.',
    });
    const nested = await server.api.post('/v1/customers', { address: { coupon: 'x' } });
    expect(nested.status).to.equal(400);
    expect(nested.body.error.message).to.not.contain('belongs to');
  });
});
