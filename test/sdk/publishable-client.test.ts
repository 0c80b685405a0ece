import { expect } from 'chai';
import {
  createClient,
  createPublishableClient,
  PUBLISHABLE_OPERATIONS,
  type PublishableClient,
} from '../../sdk/src/index.js';
import { publishableOperations } from '../../src/operations/publishable-keys.js';
import { aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer, type TestServer } from '../helpers/test-server.js';

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '314' };

/** The account's publishable key, as the list of its keys shows it. */
async function publishableKeyOf(server: TestServer): Promise<string> {
  const keys = (await server.api.get('/v1/api_keys?limit=100')).body.data;
  return keys.find((key: { type: string }) => key.type === 'publishable').key;
}

/**
 * Calls a publishable client must not compile. Never run: `npm run typecheck` checks each
 * `@ts-expect-error` (an unused one fails), and the SDK README's examples compile the same
 * refusals under a consumer's `exactOptionalPropertyTypes`.
 */
export async function refusedAtCompileTime(payments: PublishableClient): Promise<void> {
  // @ts-expect-error: a publishable key lists nothing
  await payments.listCustomers();
  // @ts-expect-error: nor makes setup intents: the merchant's server does, with a secret key
  await payments.createSetupIntent({});
  // @ts-expect-error: nor sends any path it likes
  await payments.rawRequest('GET', '/v1/charges');
  // @ts-expect-error: reading an intent takes its client secret
  await payments.retrieveSetupIntent('seti_1', {});
  // @ts-expect-error: confirming one too
  await payments.confirmPaymentIntent('pi_1', { payment_method: 'pm_card_visa' });
  // @ts-expect-error: expansion would read the account's other objects
  await payments.retrievePaymentIntent('pi_1', { client_secret: 's', expand: ['customer'] });
  // @ts-expect-error: how a payment is captured is the merchant's to say
  await payments.confirmPaymentIntent('pi_1', { client_secret: 's', capture_method: 'manual' });
}

describe('the SDK publishable-key client', () => {
  it('offers exactly the operations whose security in the spec names publishableKey', () => {
    expect([...PUBLISHABLE_OPERATIONS].sort()).to.deep.equal([...publishableOperations()].sort());
    const payments = createPublishableClient({ publishableKey: 'pk_test_1' });
    expect(Object.keys(payments).sort()).to.deep.equal([...PUBLISHABLE_OPERATIONS].sort());
  });

  it('refuses a secret or restricted key, so that neither is shipped to a browser', () => {
    for (const key of ['sk_test_1', 'rk_test_1', '']) {
      expect(() => createPublishableClient({ publishableKey: key }), key).to.throw(
        TypeError,
        /publishable key \(pk_…\)/,
      );
    }
  });
});

forEachDatabase('the SDK publishable-key client against a live server', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });
  const secret = () =>
    createClient({ apiKey: server.api.apiKey!, baseUrl: server.url, maxRetries: 0 });
  const browser = async () =>
    createPublishableClient({
      publishableKey: await publishableKeyOf(server),
      baseUrl: server.url,
      maxRetries: 0,
    });

  it('saves a card as a browser does: makes it, reads the setup intent and confirms it with the client secret', async () => {
    const customer = await aCustomer(server.api);
    const setup = await secret().createSetupIntent({ customer: customer.id });
    if (setup.status !== 200) throw new Error(JSON.stringify(setup.data));
    const { id, client_secret } = setup.data;
    const payments = await browser();

    const card = await payments.createPaymentMethod({
      type: 'card',
      card: CARD,
      billing_details: { name: 'Jenny Rosen' },
    });
    if (card.status !== 200) throw new Error(JSON.stringify(card.data));
    expect(card.data.card).to.include({ brand: 'visa', last4: '4242' });
    const read = await payments.retrieveSetupIntent(id, { client_secret: client_secret! });
    expect(read.status === 200 && read.data.status).to.equal('requires_payment_method');
    const confirmed = await payments.confirmSetupIntent(id, {
      client_secret: client_secret!,
      payment_method: card.data.id,
    });
    if (confirmed.status !== 200) throw new Error(JSON.stringify(confirmed.data));
    expect(confirmed.data).to.include({ status: 'succeeded', payment_method: card.data.id });
    expect((await server.api.get(`/v1/payment_methods/${card.data.id}`)).body.customer).to.equal(
      customer.id,
    );

    // Another setup intent's secret opens nothing: 404, as for an unknown id.
    const other = await secret().createSetupIntent({});
    const wrong = await payments.retrieveSetupIntent(id, {
      client_secret: other.status === 200 ? other.data.client_secret! : '',
    });
    expect(wrong.status).to.equal(404);
  });

  it('pays as a browser does: reads the payment intent and confirms it, a card that asks for authentication waiting in requires_action', async () => {
    const payments = await browser();
    for (const [paymentMethod, status] of [
      ['pm_card_visa', 'succeeded'],
      ['pm_card_authenticationRequired', 'requires_action'],
    ] as const) {
      const intent = await secret().createPaymentIntent({ amount: 2000, currency: 'usd' });
      if (intent.status !== 200) throw new Error(JSON.stringify(intent.data));
      const { id, client_secret } = intent.data;
      const read = await payments.retrievePaymentIntent(id, { client_secret: client_secret! });
      expect(read.status === 200 && read.data.amount).to.equal(2000);
      const confirmed = await payments.confirmPaymentIntent(id, {
        client_secret: client_secret!,
        payment_method: paymentMethod,
      });
      expect(confirmed.status, JSON.stringify(confirmed.data)).to.equal(200);
      expect(confirmed.status === 200 && confirmed.data.status).to.equal(status);
    }
  });

  it('gets the 402 of a declined card as data, with the setup intent', async () => {
    const setup = await secret().createSetupIntent({});
    if (setup.status !== 200) throw new Error(JSON.stringify(setup.data));
    const declined = await (
      await browser()
    ).confirmSetupIntent(setup.data.id, {
      client_secret: setup.data.client_secret!,
      payment_method: 'pm_card_chargeDeclined',
    });
    expect(declined.status).to.equal(402);
    if (declined.status === 402) {
      expect(declined.data.error.code).to.equal('card_declined');
      expect(declined.data.error.setup_intent?.status).to.equal('requires_payment_method');
    }
  });
});
