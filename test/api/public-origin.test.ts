import { expect } from 'chai';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const RETURN_URL = 'https://shop.example.com/checkout/done';
const EVENTS = [
  'payment_intent.requires_action',
  'setup_intent.requires_action',
  'charge.succeeded',
];

/** The URLs a browser opens, as one object shows them in the API's answer, its event, its webhook and GraphQL. */
interface Seen {
  answer: string;
  event: string;
  webhook: string;
  graphql: string;
}

forEachDatabase('the URLs a browser opens are absolute, on the public origin', (engine) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  /** A server on `publicUrl` (when given) with an endpoint for the events that carry the URLs. */
  async function serverWith(publicUrl: string | undefined): Promise<void> {
    receiver = await startCaptureReceiver();
    server = await startTestServer(engine, {
      publicUrl,
      webhookAllowPrivateNetworks: true,
      webhookWorker: { retryScheduleSeconds: [60] },
    });
    await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: EVENTS });
  }

  /** The page of a payment intent, a setup intent and a charge's receipt, everywhere they show. */
  async function urlsEverywhere(): Promise<{
    payment: Seen;
    setup: Seen;
    receipt: Seen;
    secrets: string[];
  }> {
    const { api } = server;
    const created = (
      await api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        return_url: RETURN_URL,
      })
    ).body;
    const intent = (
      await api.post(`/v1/payment_intents/${created.id}/confirm`, {
        payment_method: 'pm_card_authenticationRequired',
      })
    ).body;
    const setupCreated = (
      await api.post('/v1/setup_intents', { 'payment_method_types[]': 'card' }, { form: true })
    ).body;
    const setup = (
      await api.post(`/v1/setup_intents/${setupCreated.id}/confirm`, {
        payment_method: 'pm_card_authenticationRequired',
        return_url: RETURN_URL,
      })
    ).body;
    const charge = (
      await api.post('/v1/charges', { amount: 1500, currency: 'usd', source: 'tok_visa' })
    ).body;
    const events = (await api.get(`/v1/events?limit=10`)).body.data as any[];
    const eventOf = (type: string) => events.find((event) => event.type === type).data.object;
    const webhooks = (await receiver.waitFor(3)).map((request) => JSON.parse(request.body));
    const webhookOf = (type: string) => webhooks.find((event) => event.type === type).data.object;
    const query = `{ paymentIntent(id: "${intent.id}") { nextAction { url } } setupIntent(id: "${setup.id}") { nextAction { url } }
      charge(id: "${charge.id}") { receiptUrl } }`;
    const { data } = (await api.post('/graphql', { query })).body;
    return {
      payment: {
        answer: intent.next_action.redirect_to_url.url,
        event: eventOf('payment_intent.requires_action').next_action.redirect_to_url.url,
        webhook: webhookOf('payment_intent.requires_action').next_action.redirect_to_url.url,
        graphql: data.paymentIntent.nextAction.url,
      },
      setup: {
        answer: setup.next_action.redirect_to_url.url,
        event: eventOf('setup_intent.requires_action').next_action.redirect_to_url.url,
        webhook: webhookOf('setup_intent.requires_action').next_action.redirect_to_url.url,
        graphql: data.setupIntent.nextAction.url,
      },
      receipt: {
        answer: charge.receipt_url,
        event: eventOf('charge.succeeded').receipt_url,
        webhook: webhookOf('charge.succeeded').receipt_url,
        graphql: data.charge.receiptUrl,
      },
      secrets: [intent.client_secret, setup.client_secret],
    };
  }

  /** The page's URL in the answer carries the client secret; everywhere else (stored, sent, read) the same URL without it. */
  function expectPage(seen: Seen, origin: string, id: string, clientSecret: string): void {
    expect(seen.answer).to.equal(`${origin}/authenticate/${id}?client_secret=${clientSecret}`);
    expect([seen.event, seen.webhook, seen.graphql]).to.deep.equal(
      Array(3).fill(`${origin}/authenticate/${id}`),
    );
  }

  it('on PUBLIC_URL when it is set: in the answer, the event, its webhook and GraphQL alike', async function () {
    this.timeout(30_000);
    await serverWith('https://pay.example.test/any/path/');
    const { payment, setup, receipt, secrets } = await urlsEverywhere();
    expectPage(payment, 'https://pay.example.test', secrets[0].split('_secret_')[0], secrets[0]);
    expectPage(setup, 'https://pay.example.test', secrets[1].split('_secret_')[0], secrets[1]);
    expect(receipt.answer).to.match(
      /^https:\/\/pay\.example\.test\/receipts\/ch_[0-9A-Za-z]+\/rcpt_[0-9A-Za-z]{28}$/,
    );
    expect([receipt.event, receipt.webhook, receipt.graphql]).to.deep.equal(
      Array(3).fill(receipt.answer),
    );
  });

  it("on the API's own address without PUBLIC_URL, where the pages open as given", async function () {
    this.timeout(30_000);
    await serverWith(undefined);
    const { payment, setup, receipt, secrets } = await urlsEverywhere();
    expectPage(payment, server.url, secrets[0].split('_secret_')[0], secrets[0]);
    expectPage(setup, server.url, secrets[1].split('_secret_')[0], secrets[1]);
    expect([receipt.event, receipt.webhook, receipt.graphql]).to.deep.equal(
      Array(3).fill(receipt.answer),
    );
    expect((await fetch(payment.answer)).status).to.equal(200);
    expect((await fetch(setup.answer)).status).to.equal(200);
    expect((await fetch(receipt.answer)).status).to.equal(200);
  });

  it("keeps the test helper's next_action.authenticate.url an API path: the client calls it on its base URL", async function () {
    await serverWith('https://pay.example.test');
    const created = (
      await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd' })
    ).body;
    const intent = (
      await server.api.post(`/v1/payment_intents/${created.id}/confirm`, {
        payment_method: 'pm_card_authenticationRequired',
      })
    ).body;
    expect(intent.next_action).to.deep.equal({
      type: 'authenticate',
      authenticate: { url: `/v1/test_helpers/payment_intents/${intent.id}/authenticate` },
    });
  });
});
