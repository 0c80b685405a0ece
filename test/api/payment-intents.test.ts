import { expect } from 'chai';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { startApiProcessesInTurn, type ApiProcess } from '../helpers/api-process.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { APPROVED, documentedCard } from '../helpers/charge-cards.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { withoutClientSecret } from '../helpers/client-secret.js';
import { eventually } from '../helpers/eventually.js';
import { ADMIN_AUTHORIZATION, startTestServer, useTestServer, type TestServer } from '../helpers/test-server.js';

const INTENT = { amount: 2000, currency: 'usd' };

/** How long an authorisation may be captured: 7 days from its confirmation. */
const AUTHORIZATION_MS = 7 * 24 * 60 * 60 * 1000;

/** Creates a payment intent through the API (200) and returns it. */
async function anIntent(api: ApiClient, params: Record<string, unknown> = {}): Promise<any> {
  return ok(await api.post('/v1/payment_intents', { ...INTENT, ...params }));
}

/** An authorised intent (`requires_capture`) of 2000. */
/** The card of a payment method, read back by its id. */
async function cardOf(api: ApiClient, id: string): Promise<any> {
  expect(id).to.match(/^pm_[0-9A-Za-z]{24}$/);
  return ok(await api.get(`/v1/payment_methods/${id}`)).card;
}

/**
 * Asserts that a charge was paid with the payment method it names and shows its card as that
 * payment method shows it (brand and last four digits as expected, no number, no CVC), with the
 * amount authorised and, when the customer authenticated, 3-D Secure.
 */
async function expectChargeCard(
  api: ApiClient,
  charge: any,
  card: { brand: string; last4: string },
  { authenticated = false } = {},
): Promise<void> {
  const method = await cardOf(api, charge.payment_method);
  expect(method).to.include(card);
  const expected = documentedCard({ ...method, amount_authorized: charge.amount });
  if (authenticated) {
    const eci = card.brand === 'visa' ? '05' : '02';
    Object.assign(expected, { electronic_commerce_indicator: eci, three_d_secure: authenticatedWith(eci) });
  }
  expect(charge.payment_method_details).to.deep.equal({ type: 'card', card: expected });
  expect(charge.outcome).to.deep.equal(APPROVED);
}

/** A charge's `three_d_secure` after the customer authenticated (a challenge, as the test cards ask). */
function authenticatedWith(eci: string) {
  return {
    authentication_flow: 'challenge',
    electronic_commerce_indicator: eci,
    exemption_indicator: null,
    result: 'authenticated',
    result_reason: null,
    transaction_id: null,
    version: '2.2.0',
  };
}

function anAuthorisedIntent(api: ApiClient): Promise<any> {
  return anIntent(api, { payment_method: 'pm_card_visa', capture_method: 'manual', confirm: true });
}

/**
 * The body of a 200, or a failure that shows what came instead. An intent's `client_secret` is
 * left out, so that it compares with the same intent in events, error bodies and expansions, which
 * carry none (test/api/client-secrets.test.ts covers where it is).
 */
function ok(res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return withoutClientSecret(res.body);
}

/** The account's events (at most 100, every one), oldest first, as `[type, data.object]` pairs; `query` narrows them. */
async function eventsOldestFirst(api: ApiClient, query = ''): Promise<Array<[string, any]>> {
  const res = await api.get(`/v1/events?limit=100${query}`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.has_more, 'more than 100 events').to.equal(false);
  return res.body.data.map((event: any) => [event.type, event.data.object]).reverse();
}

/** Notes the newest event so far, and answers the events recorded after it, oldest first. */
async function eventsSince(api: ApiClient): Promise<() => Promise<Array<[string, any]>>> {
  const [newest] = (await api.get('/v1/events?limit=1')).body.data;
  return () => eventsOldestFirst(api, newest ? `&ending_before=${newest.id}` : '');
}

/** The statuses an intent can be seen in: `processing` lasts only inside the confirming request. */
type VisibleStatus =
  'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'requires_capture' | 'succeeded' | 'canceled';

/** How to bring a new intent to each visible status. */
const INTENT_IN: Record<VisibleStatus, (api: ApiClient) => Promise<any>> = {
  requires_payment_method: (api) => anIntent(api),
  requires_confirmation: (api) => anIntent(api, { payment_method: 'pm_card_visa' }),
  requires_action: (api) => anIntent(api, { payment_method: 'pm_card_authenticationRequired', confirm: true }),
  requires_capture: (api) => anAuthorisedIntent(api),
  succeeded: (api) => anIntent(api, { payment_method: 'pm_card_visa', confirm: true }),
  canceled: async (api) => ok(await api.post(`/v1/payment_intents/${(await anIntent(api)).id}/cancel`)),
};

/** What can be asked of an intent, and the status it is in after, from each status that allows it. */
interface IntentAction {
  name: string;
  send(api: ApiClient, id: string): Promise<ApiResponse>;
  after: Partial<Record<VisibleStatus, VisibleStatus>>;
}

const SAME_STATUS = {
  requires_payment_method: 'requires_payment_method',
  requires_confirmation: 'requires_confirmation',
} as const;

/** The spec's PaymentIntentStatus table, action by action. */
const ACTIONS: IntentAction[] = [
  {
    name: 'update its description',
    send: (api, id) => api.post(`/v1/payment_intents/${id}`, { description: 'Order 6735' }),
    after: { ...SAME_STATUS, requires_action: 'requires_action', requires_capture: 'requires_capture' },
  },
  { name: 'change its amount', send: (api, id) => api.post(`/v1/payment_intents/${id}`, { amount: 3000 }), after: SAME_STATUS },
  {
    name: 'confirm',
    send: (api, id) => api.post(`/v1/payment_intents/${id}/confirm`, { payment_method: 'pm_card_visa' }),
    after: { requires_payment_method: 'succeeded', requires_confirmation: 'succeeded' },
  },
  { name: 'capture', send: (api, id) => api.post(`/v1/payment_intents/${id}/capture`), after: { requires_capture: 'succeeded' } },
  {
    name: 'cancel',
    send: (api, id) => api.post(`/v1/payment_intents/${id}/cancel`),
    after: {
      requires_payment_method: 'canceled',
      requires_confirmation: 'canceled',
      requires_action: 'canceled',
      requires_capture: 'canceled',
    },
  },
  {
    name: 'authenticate',
    send: (api, id) => api.post(`/v1/test_helpers/payment_intents/${id}/authenticate`),
    after: { requires_action: 'succeeded' },
  },
];

/** Another client of the first test account, whose key holds only `scopes`. */
async function restrictedClient(server: TestServer, scopes: string[]): Promise<ApiClient> {
  const res = await server.anonymous.post(
    `/admin/accounts/${server.accountIds.first}/api_keys`,
    { scopes },
    { headers: { Authorization: ADMIN_AUTHORIZATION } },
  );
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return new ApiClient(server.url, res.body.secret);
}

forEachDatabase('payment intents', (engine) => {
  describe('transitions', () => {
    // Every case makes its own intent, so one server serves the whole table.
    const server = useTestServer(engine, {}, { per: 'suite' });

    for (const [status, make] of Object.entries(INTENT_IN) as Array<[VisibleStatus, (api: ApiClient) => Promise<any>]>) {
      for (const action of ACTIONS) {
        const after = action.after[status];
        if (after) {
          it(`${status}: ${action.name} → ${after}`, async () => {
            const intent = await make(server.api);
            const res = await action.send(server.api, intent.id);
            expect(ok(res).status).to.equal(after);
            expect((await server.api.get(`/v1/payment_intents/${intent.id}`)).body).to.deep.equal(res.body);
          });
        } else {
          it(`${status}: ${action.name} is refused with payment_intent_unexpected_state, changing nothing`, async () => {
            const intent = await make(server.api);
            const before = ok(await server.api.get(`/v1/payment_intents/${intent.id}`));
            const since = await eventsSince(server.api);
            const error = expectError(await action.send(server.api, intent.id), 400, 'payment_intent_unexpected_state');
            expect(error.type).to.equal('invalid_request_error');
            expect(error.message).to.include(status);
            expect(error.payment_intent).to.deep.equal(before);
            expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(before);
            expect(await since()).to.deep.equal([]);
          });
        }
      }
    }
  });

  describe('createPaymentIntent', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('creates an intent waiting for a payment method, and records payment_intent.created', async () => {
      const res = await server.api.post('/v1/payment_intents', {
        ...INTENT,
        description: 'Order 6735',
        metadata: { order: '6735' },
      });
      const intent = ok(res);
      expect(intent.id).to.match(/^pi_[0-9A-Za-z]{24}$/);
      expect(intent).to.deep.equal({
        id: intent.id,
        object: 'payment_intent',
        created: Math.floor(server.clock.nowMs() / 1000),
        livemode: false,
        amount: 2000,
        amount_capturable: 0,
        amount_received: 0,
        canceled_at: null,
        cancellation_reason: null,
        capture_method: 'automatic',
        currency: 'usd',
        customer: null,
        description: 'Order 6735',
        last_payment_error: null,
        latest_charge: null,
        metadata: { order: '6735' },
        next_action: null,
        payment_method: null,
        setup_future_usage: null,
        status: 'requires_payment_method',
        receipt_email: null,
        automatic_payment_methods: null,
        confirmation_method: 'automatic',
        payment_method_options: { card: { request_three_d_secure: 'automatic' } },
        payment_method_types: ['card'],
        processing: null,
        shipping: null,
        statement_descriptor: null,
        statement_descriptor_suffix: null,
        application: null,
        application_fee_amount: null,
        on_behalf_of: null,
        review: null,
        source: null,
        transfer_data: null,
        transfer_group: null,
        allowed_payment_method_types: null,
        customer_account: null,
        excluded_payment_method_types: null,
        managed_payments: null,
        payment_method_configuration_details: null,
        payment_record: null,
      });
      expect(await eventsOldestFirst(server.api)).to.deep.equal([['payment_intent.created', intent]]);
    });

    it('is requires_confirmation with a payment method, and belongs to the customer named', async () => {
      const customer = await aCustomer(server.api);
      const intent = await anIntent(server.api, { payment_method: 'pm_card_mastercard', customer: customer.id, currency: 'EUR' });
      expect(intent).to.include({ status: 'requires_confirmation', customer: customer.id, currency: 'eur' });
      // The test name made a payment method of that card.
      expect(await cardOf(server.api, intent.payment_method)).to.include({ brand: 'mastercard', last4: '4444' });
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });

    it('confirms at once with confirm=true, from a form body too', async () => {
      const form = { amount: '2000', currency: 'usd', payment_method: 'pm_card_visa', capture_method: 'manual', confirm: 'true' };
      const intent = ok(await server.api.post('/v1/payment_intents', form, { form: true }));
      expect(intent).to.include({ amount: 2000, status: 'requires_capture', amount_capturable: 2000 });
      expect(intent.latest_charge).to.match(/^ch_/);
      const automatic = await anIntent(server.api, { payment_method: 'pm_card_visa', confirm: true });
      expect(automatic).to.include({ status: 'succeeded', amount_received: 2000 });
    });

    it('refuses confirm=true without a payment_method, naming it, and creates nothing', async () => {
      expectError(
        await server.api.post('/v1/payment_intents', { ...INTENT, confirm: true }),
        400,
        'parameter_missing',
        'payment_method',
      );
      expect((await server.api.get('/v1/payment_intents')).body.data).to.deep.equal([]);
      expect(await eventsOldestFirst(server.api)).to.deep.equal([]);
    });

    it('refuses a payment method that is not a test payment method, naming payment_method, and creates nothing', async () => {
      for (const payment_method of ['pm_card_unknown', 'card_visa', 'pm_card_visa ']) {
        const res = await server.api.post('/v1/payment_intents', { ...INTENT, payment_method });
        expectError(res, 400, 'parameter_invalid', 'payment_method');
      }
      expect((await server.api.get('/v1/payment_intents')).body.data).to.deep.equal([]);
    });

    it("answers 404 naming customer for an unknown customer and for another account's", async () => {
      expectError(
        await server.api.post('/v1/payment_intents', { ...INTENT, customer: 'cus_missing' }),
        404,
        'resource_missing',
        'customer',
      );
      const theirs = await aCustomer(server.otherApi);
      expectError(
        await server.api.post('/v1/payment_intents', { ...INTENT, customer: theirs.id }),
        404,
        'resource_missing',
        'customer',
      );
      expect((await server.api.get('/v1/payment_intents')).body.data).to.deep.equal([]);
    });

    it('rejects a missing currency and a zero amount, naming them', async () => {
      expectError(await server.api.post('/v1/payment_intents', { amount: 2000 }), 400, 'parameter_missing', 'currency');
      expectError(await server.api.post('/v1/payment_intents', { ...INTENT, amount: 0 }), 400, 'parameter_invalid', 'amount');
    });
  });

  describe('retrievePaymentIntent and listPaymentIntents', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it("retrieves the intent, and answers 404 for an unknown one and another account's", async () => {
      const intent = await anIntent(server.api);
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(intent);
      expectError(await server.api.get('/v1/payment_intents/pi_missing'), 404, 'resource_missing', 'id');
      expectError(await server.otherApi.get(`/v1/payment_intents/${intent.id}`), 404, 'resource_missing', 'id');
    });

    it('lists newest first, and filters by customer, by status, and by both', async () => {
      const customer = await aCustomer(server.api);
      const a = await anIntent(server.api, { customer: customer.id });
      const b = await anIntent(server.api, { payment_method: 'pm_card_visa', confirm: true });
      const c = await anIntent(server.api, { customer: customer.id, payment_method: 'pm_card_visa', confirm: true });
      const ids = async (query: string) => ok(await server.api.get(`/v1/payment_intents${query}`)).data.map((x: any) => x.id);
      const all = ok(await server.api.get('/v1/payment_intents'));
      expect(all).to.include({ object: 'list', has_more: false, url: '/v1/payment_intents' });
      expect(all.data.map((x: any) => x.id)).to.deep.equal([c.id, b.id, a.id]);
      expect(await ids(`?customer=${customer.id}`)).to.deep.equal([c.id, a.id]);
      expect(await ids('?status=succeeded')).to.deep.equal([c.id, b.id]);
      expect(await ids('?status=requires_payment_method')).to.deep.equal([a.id]);
      expect(await ids(`?customer=${customer.id}&status=succeeded`)).to.deep.equal([c.id]);
      expect(await ids('?status=requires_capture')).to.deep.equal([]);
    });

    it('refuses an unknown status, naming status', async () => {
      expectError(await server.api.get('/v1/payment_intents?status=pending'), 400, 'parameter_invalid', 'status');
    });

    it("never shows another account's intents", async () => {
      const theirs = await aCustomer(server.otherApi);
      await anIntent(server.otherApi, { customer: theirs.id });
      expect(ok(await server.api.get('/v1/payment_intents')).data).to.deep.equal([]);
      expect(ok(await server.api.get(`/v1/payment_intents?customer=${theirs.id}`)).data).to.deep.equal([]);
    });
  });

  describe('updatePaymentIntent', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('changes what it pays before confirmation, and confirming pays what it now says', async () => {
      const customer = await aCustomer(server.api);
      const intent = await anIntent(server.api);
      const updated = ok(
        await server.api.patch(`/v1/payment_intents/${intent.id}`, {
          amount: 3000,
          currency: 'EUR',
          customer: customer.id,
          capture_method: 'manual',
          payment_method: 'pm_card_mastercard',
        }),
      );
      // A payment method set where there was none: the intent can now be confirmed.
      expect(updated).to.include({
        amount: 3000,
        currency: 'eur',
        customer: customer.id,
        capture_method: 'manual',
        status: 'requires_confirmation',
      });
      expect(await cardOf(server.api, updated.payment_method)).to.include({ brand: 'mastercard' });
      const confirmed = ok(await server.api.post(`/v1/payment_intents/${intent.id}/confirm`));
      expect(confirmed).to.include({ status: 'requires_capture', amount_capturable: 3000 });
      const charge = ok(await server.api.get(`/v1/charges/${confirmed.latest_charge}`));
      expect(charge).to.include({ amount: 3000, currency: 'eur', customer: customer.id, captured: false });
      await expectChargeCard(server.api, charge, { brand: 'mastercard', last4: '4444' });
    });

    it('merges metadata and unsets the description with null, by PATCH and by POST, as long as the intent is not final', async () => {
      const intent = await anAuthorisedIntent(server.api);
      const first = ok(
        await server.api.patch(`/v1/payment_intents/${intent.id}`, { description: 'Order 6735', metadata: { a: '1', b: '2' } }),
      );
      expect(first).to.include({ description: 'Order 6735', status: 'requires_capture' });
      const second = ok(
        await server.api.post(
          `/v1/payment_intents/${intent.id}`,
          { description: '', metadata: { b: '', c: '3' } },
          { form: true },
        ),
      );
      expect(second.description).to.equal(null);
      expect(second.metadata).to.deep.equal({ a: '1', c: '3' });
      const third = ok(await server.api.patch(`/v1/payment_intents/${intent.id}`, { description: 'again' }));
      expect(ok(await server.api.patch(`/v1/payment_intents/${intent.id}`, { description: null }))).to.include({
        description: null,
      });
      expect(third.metadata).to.deep.equal({ a: '1', c: '3' });
    });

    it('refuses an unknown customer naming customer, and an unknown payment method naming payment_method, changing nothing', async () => {
      const intent = await anIntent(server.api);
      expectError(
        await server.api.patch(`/v1/payment_intents/${intent.id}`, { customer: 'cus_missing', amount: 1 }),
        404,
        'resource_missing',
        'customer',
      );
      const unknown = await server.api.patch(`/v1/payment_intents/${intent.id}`, {
        payment_method: 'pm_card_unknown',
        amount: 1,
      });
      expectError(unknown, 400, 'parameter_invalid', 'payment_method');
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(intent);
    });

    it('refuses a parameter it does not know, naming it', async () => {
      const intent = await anIntent(server.api);
      expectError(
        await server.api.patch(`/v1/payment_intents/${intent.id}`, { status: 'succeeded' }),
        400,
        'parameter_unknown',
        'status',
      );
    });

    it("answers 404 for another account's intent, changing nothing", async () => {
      const theirs = await anIntent(server.otherApi);
      expectError(await server.api.patch(`/v1/payment_intents/${theirs.id}`, { amount: 1 }), 404, 'resource_missing', 'id');
      expectError(await server.api.post(`/v1/payment_intents/${theirs.id}`, { amount: 1 }), 404, 'resource_missing', 'id');
      expect(ok(await server.otherApi.get(`/v1/payment_intents/${theirs.id}`)).amount).to.equal(2000);
    });
  });

  describe('confirmPaymentIntent', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('pays with capture_method automatic: the charge is captured, and each step records its events', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_visa' });
      const confirmed = ok(await server.api.post(`/v1/payment_intents/${intent.id}/confirm`));
      expect(confirmed).to.include({
        status: 'succeeded',
        amount_received: 2000,
        amount_capturable: 0,
        payment_method: intent.payment_method,
        last_payment_error: null,
      });
      const charge = ok(await server.api.get(`/v1/charges/${confirmed.latest_charge}`));
      expect(charge).to.include({
        amount: 2000,
        status: 'succeeded',
        paid: true,
        captured: true,
        amount_captured: 2000,
        payment_intent: intent.id,
      });
      expect(await eventsOldestFirst(server.api)).to.deep.equal([
        ['payment_intent.created', intent],
        ['charge.succeeded', charge],
        ['payment_intent.succeeded', confirmed],
      ]);
    });

    it('pays with the payment method sent, over the one the intent had, and takes capture_method', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_visa' });
      const res = await server.api.post(`/v1/payment_intents/${intent.id}/confirm`, {
        payment_method: 'pm_card_mastercard',
        capture_method: 'manual',
      });
      expect(ok(res)).to.include({ status: 'requires_capture', capture_method: 'manual' });
      expect(res.body.payment_method).to.match(/^pm_/).and.not.equal(intent.payment_method);
      const charge = ok(await server.api.get(`/v1/charges/${res.body.latest_charge}`));
      await expectChargeCard(server.api, charge, { brand: 'mastercard', last4: '4444' });
    });

    it('refuses an intent with no payment method, naming payment_method, and changes nothing', async () => {
      const intent = await anIntent(server.api);
      expectError(await server.api.post(`/v1/payment_intents/${intent.id}/confirm`), 400, 'parameter_missing', 'payment_method');
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(intent);
      expect(ok(await server.api.get('/v1/charges')).data).to.deep.equal([]);
    });

    it('answers a decline with 402: the failed charge, the decline code and the intent back in requires_payment_method', async () => {
      const intent = await anIntent(server.api);
      const since = await eventsSince(server.api);
      const res = await server.api.post(`/v1/payment_intents/${intent.id}/confirm`, { payment_method: 'pm_card_chargeDeclined' });
      const error = expectError(res, 402, 'card_declined');
      expect(error).to.include({ type: 'card_error', decline_code: 'generic_decline', message: 'Your card was declined.' });
      expect(error.charge).to.match(/^ch_/);
      expect(error.payment_intent).to.include({
        id: intent.id,
        status: 'requires_payment_method',
        payment_method: null,
        latest_charge: error.charge,
        amount_received: 0,
      });
      expect(error.payment_intent.last_payment_error).to.deep.equal({
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
        charge: error.charge,
        payment_method: error.payment_intent.last_payment_error.payment_method,
      });
      // The payment method, as an object, as the widely used payments API answers it.
      expect(error.payment_intent.last_payment_error.payment_method).to.include({ object: 'payment_method', type: 'card' });
      expect(error.payment_intent.last_payment_error.payment_method.card).to.include({ last4: '0002' });
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(error.payment_intent);
      const charge = ok(await server.api.get(`/v1/charges/${error.charge}`));
      expect(charge).to.include({
        status: 'failed',
        paid: false,
        captured: false,
        failure_code: 'card_declined',
        payment_intent: intent.id,
      });
      expect(await since()).to.deep.equal([
        ['charge.failed', charge],
        ['payment_intent.payment_failed', error.payment_intent],
      ]);
    });

    it('pays after a decline with another payment method, which clears last_payment_error', async () => {
      const declined = await server.api.post('/v1/payment_intents', {
        ...INTENT,
        payment_method: 'pm_card_chargeDeclinedInsufficientFunds',
        confirm: true,
      });
      const error = expectError(declined, 402, 'card_declined');
      expect(error.decline_code).to.equal('insufficient_funds');
      expect(error.payment_intent.last_payment_error).to.include({ decline_code: 'insufficient_funds' });
      const retried = ok(
        await server.api.post(`/v1/payment_intents/${error.payment_intent.id}/confirm`, { payment_method: 'pm_card_visa' }),
      );
      expect(retried).to.include({ status: 'succeeded', last_payment_error: null });
      expect(await cardOf(server.api, retried.payment_method)).to.include({ last4: '4242' });
      expect(retried.latest_charge).to.not.equal(error.charge);
    });

    it("answers 404 for another account's intent, charging nothing", async () => {
      const theirs = await anIntent(server.otherApi, { payment_method: 'pm_card_visa' });
      expectError(await server.api.post(`/v1/payment_intents/${theirs.id}/confirm`), 404, 'resource_missing', 'id');
      expect(ok(await server.otherApi.get(`/v1/payment_intents/${theirs.id}`)).status).to.equal('requires_confirmation');
    });
  });

  describe("the customer's action (requires_action)", () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('waits with next_action and no charge, then pays once authenticated through next_action', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_authenticationRequired' });
      const waiting = ok(await server.api.post(`/v1/payment_intents/${intent.id}/confirm`));
      expect(waiting).to.include({ status: 'requires_action', latest_charge: null, amount_received: 0 });
      expect(waiting.next_action).to.deep.equal({
        type: 'authenticate',
        authenticate: { url: `/v1/test_helpers/payment_intents/${intent.id}/authenticate` },
      });
      expect(ok(await server.api.get(`/v1/charges?payment_intent=${intent.id}`)).data).to.deep.equal([]);
      const paid = ok(await server.api.post(waiting.next_action.authenticate.url));
      expect(paid).to.include({ status: 'succeeded', next_action: null, amount_received: 2000 });
      const charge = ok(await server.api.get(`/v1/charges/${paid.latest_charge}`));
      await expectChargeCard(server.api, charge, { brand: 'visa', last4: '3184' }, { authenticated: true });
      expect(await eventsOldestFirst(server.api)).to.deep.equal([
        ['payment_intent.created', intent],
        ['payment_intent.requires_action', waiting],
        ['charge.succeeded', charge],
        ['payment_intent.succeeded', paid],
      ]);
    });

    it('authorises once authenticated when capture_method is manual', async () => {
      const intent = await anIntent(server.api, {
        payment_method: 'pm_card_authenticationRequired',
        capture_method: 'manual',
        confirm: true,
      });
      const res = await server.api.post(`/v1/test_helpers/payment_intents/${intent.id}/authenticate`, { outcome: 'succeeded' });
      expect(ok(res)).to.include({ status: 'requires_capture', amount_capturable: 2000 });
    });

    it('goes back to requires_payment_method with last_payment_error when authentication fails, charging nothing', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_authenticationRequired', confirm: true });
      const since = await eventsSince(server.api);
      const failed = ok(
        await server.api.post(`/v1/test_helpers/payment_intents/${intent.id}/authenticate`, { outcome: 'failed' }),
      );
      expect(failed).to.include({
        status: 'requires_payment_method',
        payment_method: null,
        next_action: null,
        latest_charge: null,
      });
      expect(failed.last_payment_error).to.include({
        type: 'card_error',
        code: 'payment_intent_authentication_failure',
      });
      expect(failed.last_payment_error.payment_method).to.include({ id: intent.payment_method, object: 'payment_method' });
      expect(await since()).to.deep.equal([['payment_intent.payment_failed', failed]]);
      expect(ok(await server.api.get('/v1/charges')).data).to.deep.equal([]);
      const paid = ok(await server.api.post(`/v1/payment_intents/${intent.id}/confirm`, { payment_method: 'pm_card_visa' }));
      expect(paid).to.include({ status: 'succeeded', last_payment_error: null });
    });

    it('refuses an unknown outcome, naming outcome', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_authenticationRequired', confirm: true });
      const res = await server.api.post(`/v1/test_helpers/payment_intents/${intent.id}/authenticate`, { outcome: 'maybe' });
      expectError(res, 400, 'parameter_invalid', 'outcome');
    });
  });

  describe('capturePaymentIntent', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('captures part of an authorisation, releases the rest, and records each step with the objects as they were', async () => {
      const customer = await aCustomer(server.api);
      const since = await eventsSince(server.api);
      const intent = await anIntent(server.api, {
        customer: customer.id,
        payment_method: 'pm_card_visa',
        capture_method: 'manual',
      });
      const authorised = ok(await server.api.post(`/v1/payment_intents/${intent.id}/confirm`));
      expect(authorised).to.include({ status: 'requires_capture', amount_capturable: 2000, amount_received: 0 });
      const authorisation = ok(await server.api.get(`/v1/charges/${authorised.latest_charge}`));
      expect(authorisation).to.include({
        status: 'succeeded',
        paid: true,
        captured: false,
        amount_captured: 0,
        amount_refunded: 0,
        refunded: false,
      });

      const captured = ok(await server.api.post(`/v1/payment_intents/${intent.id}/capture`, { amount_to_capture: 1500 }));
      expect(captured).to.include({ status: 'succeeded', amount_capturable: 0, amount_received: 1500 });
      const charge = ok(await server.api.get(`/v1/charges/${authorised.latest_charge}`));
      expect(charge).to.include({ captured: true, amount_captured: 1500, amount_refunded: 500, refunded: false });
      const [released] = charge.refunds.data;
      expect(released).to.include({
        amount: 500,
        charge: charge.id,
        payment_intent: intent.id,
        reason: null,
        status: 'succeeded',
      });

      const refund = ok(await server.api.post('/v1/refunds', { payment_intent: intent.id }));
      expect(refund).to.include({ amount: 1500, charge: charge.id, payment_intent: intent.id });
      const refunded = ok(await server.api.get(`/v1/charges/${charge.id}`));
      expect(refunded).to.include({ amount_refunded: 2000, refunded: true });
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(captured);

      const events = await since();
      expect(events).to.deep.equal([
        ['payment_intent.created', intent],
        ['charge.succeeded', authorisation],
        ['payment_intent.amount_capturable_updated', authorised],
        ['charge.captured', charge],
        ['refund.created', released],
        ['payment_intent.succeeded', captured],
        ['refund.created', refund],
        ['charge.refunded', refunded],
      ]);
      // `processing` lasts only inside the confirming request: no answer or event ever shows it.
      expect(events.map(([, object]) => object.status)).to.not.include('processing');
    });

    it('captures all of it by default, releasing nothing', async () => {
      const intent = await anAuthorisedIntent(server.api);
      const since = await eventsSince(server.api);
      const captured = ok(await server.api.post(`/v1/payment_intents/${intent.id}/capture`));
      expect(captured).to.include({ status: 'succeeded', amount_received: 2000 });
      const charge = ok(await server.api.get(`/v1/charges/${intent.latest_charge}`));
      expect(charge).to.include({ captured: true, amount_captured: 2000, amount_refunded: 0 });
      expect((await since()).map(([type]) => type)).to.deep.equal(['charge.captured', 'payment_intent.succeeded']);
    });

    it('refuses more than amount_capturable, naming amount_to_capture, and captures nothing', async () => {
      const intent = await anAuthorisedIntent(server.api);
      const res = await server.api.post(`/v1/payment_intents/${intent.id}/capture`, { amount_to_capture: 2001 });
      expectError(res, 400, 'amount_too_large', 'amount_to_capture');
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(intent);
      expect(ok(await server.api.get(`/v1/charges/${intent.latest_charge}`)).captured).to.equal(false);
    });

    it("answers 404 for another account's intent, capturing nothing", async () => {
      const theirs = await anAuthorisedIntent(server.otherApi);
      expectError(await server.api.post(`/v1/payment_intents/${theirs.id}/capture`), 404, 'resource_missing', 'id');
      expect(ok(await server.otherApi.get(`/v1/payment_intents/${theirs.id}`)).status).to.equal('requires_capture');
    });
  });

  describe('cancelPaymentIntent', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('releases an authorisation in full: refund.created, charge.refunded, then payment_intent.canceled', async () => {
      const intent = await anAuthorisedIntent(server.api);
      const authorisation = ok(await server.api.get(`/v1/charges/${intent.latest_charge}`));
      const since = await eventsSince(server.api);
      const canceled = ok(
        await server.api.post(`/v1/payment_intents/${intent.id}/cancel`, { cancellation_reason: 'requested_by_customer' }),
      );
      expect(canceled).to.include({
        status: 'canceled',
        cancellation_reason: 'requested_by_customer',
        canceled_at: Math.floor(server.clock.nowMs() / 1000),
        amount_capturable: 0,
        amount_received: 0,
      });
      const charge = ok(await server.api.get(`/v1/charges/${intent.latest_charge}`));
      expect(charge).to.include({
        status: 'succeeded',
        captured: false,
        amount_captured: 0,
        amount_refunded: 2000,
        refunded: true,
      });
      const [release] = charge.refunds.data;
      expect(release).to.include({ amount: 2000, reason: 'requested_by_customer', payment_intent: intent.id });
      const events = await since();
      expect(events).to.deep.equal([
        ['refund.created', release],
        ['charge.refunded', charge],
        ['payment_intent.canceled', canceled],
      ]);
      const [refundedEvent] = ok(await server.api.get('/v1/events?type=charge.refunded')).data;
      expect(refundedEvent.data.previous_attributes).to.deep.equal({
        amount_refunded: 0,
        refunded: false,
        refunds: authorisation.refunds,
      });
    });

    it('gives the release no reason when the intent was abandoned (not a refund reason)', async () => {
      const intent = await anAuthorisedIntent(server.api);
      ok(await server.api.post(`/v1/payment_intents/${intent.id}/cancel`, { cancellation_reason: 'abandoned' }));
      const [release] = ok(await server.api.get(`/v1/refunds?payment_intent=${intent.id}`)).data;
      expect(release).to.include({ amount: 2000, reason: null });
    });

    it('records only payment_intent.canceled for an intent that holds nothing', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_visa' });
      const since = await eventsSince(server.api);
      const canceled = ok(await server.api.post(`/v1/payment_intents/${intent.id}/cancel`, { cancellation_reason: 'duplicate' }));
      expect(canceled).to.include({ status: 'canceled', cancellation_reason: 'duplicate' });
      expect(await since()).to.deep.equal([['payment_intent.canceled', canceled]]);
      expect(ok(await server.api.get('/v1/refunds')).data).to.deep.equal([]);
    });

    it('refuses automatic, which only the expiry gives, naming cancellation_reason', async () => {
      const intent = await anIntent(server.api);
      const res = await server.api.post(`/v1/payment_intents/${intent.id}/cancel`, { cancellation_reason: 'automatic' });
      expectError(res, 400, 'parameter_invalid', 'cancellation_reason');
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`)).status).to.equal('requires_payment_method');
    });

    it("answers 404 for another account's intent, canceling nothing", async () => {
      const theirs = await anAuthorisedIntent(server.otherApi);
      expectError(await server.api.post(`/v1/payment_intents/${theirs.id}/cancel`), 404, 'resource_missing', 'id');
      expect(ok(await server.otherApi.get(`/v1/payment_intents/${theirs.id}`)).status).to.equal('requires_capture');
    });
  });

  describe('Idempotency-Key', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    /** Sends the same request three times with one key: the first executes, the others replay it. */
    async function sentThrice(path: string, body: Record<string, unknown>, key: string): Promise<ApiResponse> {
      const first = await server.api.post(path, body, { idempotencyKey: key });
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const since = await eventsSince(server.api);
      for (let i = 0; i < 2; i++) {
        const replay = await server.api.post(path, body, { idempotencyKey: key });
        expect(replay.status).to.equal(first.status);
        expect(replay.headers.get('idempotent-replayed')).to.equal('true');
        const expected = first.body.error
          ? { error: { ...first.body.error, request_id: replay.headers.get('request-id') } }
          : first.body;
        expect(replay.body).to.deep.equal(expected);
      }
      expect(await since(), 'events recorded by a replay').to.deep.equal([]);
      return first;
    }

    it('confirms once: a replay answers the same intent and records nothing', async () => {
      const intent = await anIntent(server.api, { capture_method: 'manual' });
      const first = await sentThrice(`/v1/payment_intents/${intent.id}/confirm`, { payment_method: 'pm_card_visa' }, 'confirm-1');
      expect(ok(first).status).to.equal('requires_capture');
      expect(ok(await server.api.get(`/v1/charges?payment_intent=${intent.id}`)).data).to.have.length(1);
    });

    it('captures once: a replay answers the same intent, and the same key with another amount is refused', async () => {
      const intent = await anAuthorisedIntent(server.api);
      const path = `/v1/payment_intents/${intent.id}/capture`;
      expect(ok(await sentThrice(path, { amount_to_capture: 1500 }, 'capture-1')).amount_received).to.equal(1500);
      expectError(
        await server.api.post(path, { amount_to_capture: 1000 }, { idempotencyKey: 'capture-1' }),
        400,
        'idempotency_key_reused',
      );
      expect(ok(await server.api.get(`/v1/charges/${intent.latest_charge}`))).to.include({
        amount_captured: 1500,
        amount_refunded: 500,
      });
    });

    it('cancels once: a replay answers the same intent and releases nothing more', async () => {
      const intent = await anAuthorisedIntent(server.api);
      const first = await sentThrice(`/v1/payment_intents/${intent.id}/cancel`, { cancellation_reason: 'duplicate' }, 'cancel-1');
      expect(ok(first).status).to.equal('canceled');
      expect(ok(await server.api.get(`/v1/refunds?payment_intent=${intent.id}`)).data).to.have.length(1);
    });

    it('replays a declined confirmation as the same 402, with the same failed charge', async () => {
      const intent = await anIntent(server.api);
      const first = await sentThrice(
        `/v1/payment_intents/${intent.id}/confirm`,
        { payment_method: 'pm_card_chargeDeclined' },
        'declined-1',
      );
      expectError(first, 402, 'card_declined');
      expect(ok(await server.api.get(`/v1/charges?payment_intent=${intent.id}`)).data.map((c: any) => c.id)).to.deep.equal([
        first.body.error.charge,
      ]);
    });

    it('replays a refused transition as the same 400', async () => {
      const intent = await anIntent(server.api);
      const first = await sentThrice(`/v1/payment_intents/${intent.id}/capture`, {}, 'refused-1');
      expectError(first, 400, 'payment_intent_unexpected_state');
    });

    it('replays a create to a key of the same account restricted to payment_intents:write', async () => {
      const restricted = await restrictedClient(server, ['payment_intents:write']);
      const first = await server.api.post('/v1/payment_intents', INTENT, { idempotencyKey: 'create-1' });
      ok(first);
      const replay = await restricted.post('/v1/payment_intents', INTENT, { idempotencyKey: 'create-1' });
      expect(replay.status, JSON.stringify(replay.body)).to.equal(200);
      expect(replay.body).to.deep.equal(first.body);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    });
  });

  describe('expansion', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('answers the latest charge with expand[]=latest_charge, on retrieve and on the confirmation itself', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_visa' });
      const confirmed = ok(await server.api.post(`/v1/payment_intents/${intent.id}/confirm`, { expand: ['latest_charge'] }));
      const charge = ok(await server.api.get(`/v1/charges/${confirmed.latest_charge.id}`));
      expect(confirmed.latest_charge).to.deep.equal(charge);
      const retrieved = ok(await server.api.get(`/v1/payment_intents/${intent.id}?expand[]=latest_charge`));
      expect(retrieved).to.deep.equal(confirmed);
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`)).latest_charge).to.equal(charge.id);
    });

    it('answers the customer with expand[]=customer, and the deleted customer once deleted', async () => {
      const customer = await aCustomer(server.api);
      const intent = await anIntent(server.api, { customer: customer.id });
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}?expand[]=customer`)).customer).to.deep.equal(customer);
      ok(await server.api.delete(`/v1/customers/${customer.id}`));
      const res = ok(await server.api.get(`/v1/payment_intents/${intent.id}?expand[]=customer`));
      expect(res.customer).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
    });

    it("expands a charge's intent with expand[]=payment_intent, and that intent's customer with payment_intent.customer", async () => {
      const customer = await aCustomer(server.api);
      const intent = await anIntent(server.api, { customer: customer.id, payment_method: 'pm_card_visa', confirm: true });
      const charge = ok(await server.api.get(`/v1/charges/${intent.latest_charge}?expand[]=payment_intent`));
      expect(charge.payment_intent).to.deep.equal(intent);
      const deeper = ok(await server.api.get(`/v1/charges/${intent.latest_charge}?expand[]=payment_intent.customer`));
      expect(deeper.payment_intent).to.deep.equal({ ...intent, customer });
    });

    it('expands every intent of a list page with expand[]=data.latest_charge', async () => {
      const paid = await anIntent(server.api, { payment_method: 'pm_card_visa', confirm: true });
      await anIntent(server.api);
      const page = ok(await server.api.get('/v1/payment_intents?expand[]=data.latest_charge'));
      expect(page.data.map((x: any) => x.latest_charge?.id ?? x.latest_charge)).to.deep.equal([null, paid.latest_charge]);
      expect(page.data[1].latest_charge).to.deep.equal(ok(await server.api.get(`/v1/charges/${paid.latest_charge}`)));
    });

    it('refuses a path that cannot be expanded, naming it, before confirming anything', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_visa' });
      const res = await server.api.post(`/v1/payment_intents/${intent.id}/confirm`, {
        expand: ['latest_charge', 'metadata'],
      });
      expectError(res, 400, 'parameter_invalid', 'expand[1]');
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(intent);
      expect(ok(await server.api.get('/v1/charges')).data).to.deep.equal([]);
    });

    it('needs charges:read to expand latest_charge, as reading the charge does', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_visa', confirm: true });
      const reader = await restrictedClient(server, ['payment_intents:read']);
      expect(ok(await reader.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(intent);
      const res = await reader.get(`/v1/payment_intents/${intent.id}?expand[]=latest_charge`);
      expect(expectError(res, 403, 'insufficient_scope').message).to.include('charges:read');
    });
  });

  describe('an authorisation past its 7 days', () => {
    const server = useTestServer(engine);

    it('can be captured until its last second', async () => {
      const intent = await anAuthorisedIntent(server.api);
      server.clock.advance(AUTHORIZATION_MS - 1000);
      expect(ok(await server.api.post(`/v1/payment_intents/${intent.id}/capture`)).status).to.equal('succeeded');
    });

    it('answers 400 charge_expired_for_capture once expired, before the worker has released it, and changes nothing', async () => {
      const intent = await anAuthorisedIntent(server.api);
      const charge = await aChargeAuthorised(server.api);
      server.clock.advance(AUTHORIZATION_MS + 1000);
      const error = expectError(
        await server.api.post(`/v1/payment_intents/${intent.id}/capture`),
        400,
        'charge_expired_for_capture',
      );
      expect(error.payment_intent).to.deep.equal(intent);
      expectError(await server.api.post(`/v1/charges/${charge.id}/capture`), 400, 'charge_expired_for_capture');
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`))).to.deep.equal(intent);
      expect(ok(await server.api.get(`/v1/charges/${charge.id}`))).to.deep.equal(charge);
    });
  });

  describe('expiry in the worker', () => {
    let server: TestServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('releases an authorisation 7 days after confirmation and cancels its intent (automatic), leaving younger ones', async () => {
      server = await startTestServer(engine, { webhookWorker: { retryScheduleSeconds: [1] }, authorizationExpiryIntervalMs: 20 });
      const api = server.api;
      const old = await anAuthorisedIntent(api);
      server.clock.advance(60_000);
      const young = await anAuthorisedIntent(api);
      const since = await eventsSince(api);
      server.clock.advance(AUTHORIZATION_MS - 30_000);
      await eventually(async () => expect(ok(await api.get(`/v1/payment_intents/${old.id}`)).status).to.equal('canceled'));

      const canceled = ok(await api.get(`/v1/payment_intents/${old.id}`));
      expect(canceled).to.include({ cancellation_reason: 'automatic', amount_capturable: 0, amount_received: 0 });
      expect(canceled.canceled_at).to.be.at.least(old.created + AUTHORIZATION_MS / 1000);
      const charge = ok(await api.get(`/v1/charges/${old.latest_charge}`));
      expect(charge).to.include({
        status: 'succeeded',
        captured: false,
        amount_captured: 0,
        amount_refunded: 2000,
        refunded: true,
      });
      const [release] = charge.refunds.data;
      expect(release).to.include({ amount: 2000, reason: null, payment_intent: old.id });
      expect(await since()).to.deep.equal([
        ['refund.created', release],
        ['charge.expired', charge],
        ['payment_intent.canceled', canceled],
      ]);
      // The worker's own change answers no request.
      const [expired] = ok(await api.get('/v1/events?type=charge.expired')).data;
      expect(expired.request).to.deep.equal({ id: null, idempotency_key: null });

      // The younger authorisation, not yet due when that run released the older, is still capturable.
      expect(ok(await api.get(`/v1/payment_intents/${young.id}`))).to.deep.equal(young);
      expectError(await api.post(`/v1/payment_intents/${old.id}/capture`), 400, 'payment_intent_unexpected_state');
      expectError(await api.post(`/v1/charges/${old.latest_charge}/capture`), 400, 'charge_expired_for_capture');
      expect(ok(await api.post(`/v1/payment_intents/${young.id}/capture`)).status).to.equal('succeeded');
    });
  });

  describe('concurrent changes', () => {
    const server = useTestServer(engine, {}, { per: 'account' });

    it('captures once when two captures of one intent arrive at once: the other is refused', async () => {
      for (let round = 0; round < 5; round++) {
        const intent = await anAuthorisedIntent(server.api);
        const amounts = [500, 1500];
        const path = `/v1/payment_intents/${intent.id}/capture`;
        const answers = await Promise.all(amounts.map((amount) => server.api.post(path, { amount_to_capture: amount })));
        await expectCapturedOnce(server.api, intent, amounts, answers);
      }
    });

    it('lets either a capture or a cancel win when both arrive at once, and the charge agrees with the intent', async () => {
      for (let round = 0; round < 5; round++) {
        const intent = await anAuthorisedIntent(server.api);
        const [capture, cancel] = await Promise.all([
          server.api.post(`/v1/payment_intents/${intent.id}/capture`),
          server.api.post(`/v1/payment_intents/${intent.id}/cancel`),
        ]);
        expect([capture.status, cancel.status].sort()).to.deep.equal([200, 400]);
        const loser = capture.status === 200 ? cancel : capture;
        expectError(loser, 400, 'payment_intent_unexpected_state');
        const after = ok(await server.api.get(`/v1/payment_intents/${intent.id}`));
        const charge = ok(await server.api.get(`/v1/charges/${intent.latest_charge}`));
        if (capture.status === 200) {
          expect(after.status).to.equal('succeeded');
          expect(charge).to.include({ captured: true, amount_captured: 2000, amount_refunded: 0 });
        } else {
          expect(after.status).to.equal('canceled');
          expect(charge).to.include({ captured: false, amount_captured: 0, amount_refunded: 2000 });
        }
      }
    });
  });

  if (engine === 'postgres') {
    describe('concurrent captures across API processes over one database', () => {
      const apiKey = 'sk_test_capturescaleout';
      let database: TestDatabase | undefined;
      const processes: ApiProcess[] = [];
      afterEach(async () => {
        await Promise.all(processes.splice(0).map((p) => p.stop()));
        await database?.drop();
        database = undefined;
      });

      it('captures once when the two captures reach two processes at once', async function () {
        this.timeout(90_000);
        database = await createDatabase(engine);
        const started = await startApiProcessesInTurn(database.target, { BOOTSTRAP_API_KEY: apiKey }, 2, processes);
        const clients = started.map((p) => new ApiClient(p.url, apiKey));
        for (let round = 0; round < 5; round++) {
          const intent = await anAuthorisedIntent(clients[round % 2]);
          const amounts = [500, 1500];
          const path = `/v1/payment_intents/${intent.id}/capture`;
          const answers = await Promise.all(amounts.map((amount, i) => clients[i].post(path, { amount_to_capture: amount })));
          await expectCapturedOnce(clients[0], intent, amounts, answers);
        }
      });
    });
  }
});

/** A charge made with `capture=false` (its intent in `requires_capture`). */
async function aChargeAuthorised(api: ApiClient): Promise<any> {
  return ok(await api.post('/v1/charges', { ...INTENT, source: 'tok_visa', capture: false }));
}

/**
 * Asserts that of two captures of `amounts` sent at once, exactly one captured and the other was
 * refused as the intent had already succeeded; the charge, the refunds and the events tell of the
 * winner's capture alone.
 */
async function expectCapturedOnce(api: ApiClient, intent: any, amounts: number[], answers: ApiResponse[]): Promise<void> {
  const won = answers.findIndex((res) => res.status === 200);
  expect(won, JSON.stringify(answers.map((res) => res.body))).to.not.equal(-1);
  const loser = answers[1 - won];
  const error = expectError(loser, 400, 'payment_intent_unexpected_state');
  expect(error.payment_intent).to.include({ status: 'succeeded', amount_received: amounts[won] });
  expect(answers[won].body).to.include({ status: 'succeeded', amount_received: amounts[won] });
  const charge = ok(await api.get(`/v1/charges/${intent.latest_charge}`));
  expect(charge).to.include({ amount_captured: amounts[won], amount_refunded: 2000 - amounts[won] });
  expect(ok(await api.get(`/v1/refunds?payment_intent=${intent.id}`)).data.map((r: any) => r.amount)).to.deep.equal([
    2000 - amounts[won],
  ]);
  const captures = ok(await api.get('/v1/events?type=charge.captured&limit=100')).data.filter(
    (e: any) => e.data.object.id === charge.id,
  );
  expect(captures).to.have.length(1);
}
