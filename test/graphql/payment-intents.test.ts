import { expect } from 'chai';
import type { Client, ExecutionResult } from 'graphql-ws';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { firstErrorCode, graphql, type GraphQLResult } from '../helpers/graphql-client.js';
import { ADMIN_AUTHORIZATION, useTestServer } from '../helpers/test-server.js';
import { bearer, nextValue, subscriptionClient } from './live-events.js';

const INTENT = `id created amount amountCapturable amountReceived canceledAt cancellationReason captureMethod currency
  description metadata paymentMethod setupFutureUsage status nextAction { type url } customer { id }
  lastPaymentError { code declineCode message paymentMethod charge { id state } }
  latestCharge { id state captured amountCaptured amountRefunded paymentIntent { id } }`;

const CREATE = `mutation ($input: CreatePaymentIntentInput!, $key: String) {
  createPaymentIntent(input: $input, idempotencyKey: $key) { ${INTENT} }
}`;
const UPDATE = `mutation ($id: ID!, $input: UpdatePaymentIntentInput!) { updatePaymentIntent(id: $id, input: $input) { ${INTENT} } }`;
const CONFIRM = `mutation ($id: ID!, $input: ConfirmPaymentIntentInput) { confirmPaymentIntent(id: $id, input: $input) { ${INTENT} } }`;
const CAPTURE = `mutation ($id: ID!, $amount: Int, $key: String) {
  capturePaymentIntent(id: $id, amountToCapture: $amount, idempotencyKey: $key) { ${INTENT} }
}`;
const CANCEL = `mutation ($id: ID!, $reason: CancellationReason) { cancelPaymentIntent(id: $id, cancellationReason: $reason) { ${INTENT} } }`;
const RETRIEVE = `query ($id: ID!) { paymentIntent(id: $id) { ${INTENT} } }`;
const LIST = `query ($first: Int, $after: String, $last: Int, $before: String, $customer: ID, $statuses: [PaymentIntentStatus!]) {
  paymentIntents(first: $first, after: $after, last: $last, before: $before, customer: $customer, statuses: $statuses) {
    edges { cursor node { id status } } pageInfo { hasNextPage hasPreviousPage endCursor }
  }
}`;

type EventsResult = ExecutionResult<{ events: { type: string; object: { id: string; status: string } } }>;

forEachDatabase('GraphQL payment intents', (engine) => {
  let clients: Client[];
  beforeEach(() => {
    clients = [];
  });
  // Before the server's own hook, so that the clients go before their server.
  afterEach(async () => {
    for (const client of clients) await client.dispose();
  });
  const server = useTestServer(engine);

  const send = (document: string, variables?: Record<string, unknown>, apiKey = server.api.apiKey) =>
    graphql(server.url, apiKey, document, variables);

  /** The data of a request that must succeed. */
  async function data(document: string, variables?: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await send(document, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data!;
  }

  /** The only error of a failed mutation, whose result is null. */
  function onlyError(res: GraphQLResult, field: string) {
    expect(res.body.data).to.deep.equal({ [field]: null });
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors![0].path).to.deep.equal([field]);
    return res.body.errors![0];
  }

  /** An intent created through GraphQL (extra `input` fields override the defaults). */
  async function anIntent(input: Record<string, unknown> = {}): Promise<Record<string, any>> {
    return (await data(CREATE, { input: { amount: 2000, currency: 'usd', ...input } })).createPaymentIntent;
  }

  /** An intent authorised for `amount`, waiting for its capture. */
  const anAuthorisedIntent = (input: Record<string, unknown> = {}) =>
    anIntent({ paymentMethod: 'pm_card_visa', captureMethod: 'MANUAL', confirm: true, ...input });

  async function eventTypesOf(objectId: string): Promise<string[]> {
    const events = (await server.api.get('/v1/events?limit=100')).body.data;
    return events.filter((e: any) => e.data.object.id === objectId).map((e: any) => e.type).reverse();
  }

  /** A restricted key of the first test account holding `scopes`, issued by the admin endpoint. */
  async function restrictedKey(scopes: string[]): Promise<string> {
    const res = await server.anonymous.post(`/admin/accounts/${server.accountIds.first}/api_keys`, { scopes }, {
      headers: { Authorization: ADMIN_AUTHORIZATION },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.secret;
  }

  function expectRefused(res: GraphQLResult, path: string[], scope: string): void {
    const error = res.body.errors?.find((e) => JSON.stringify(e.path) === JSON.stringify(path));
    expect(error, JSON.stringify(res.body.errors)).to.not.equal(undefined);
    expect(error!.extensions).to.include({ code: 'insufficient_scope', type: 'permission_error' });
    expect(error!.message).to.include(scope);
  }

  describe('the lifecycle', () => {
    it('creates with manual capture, confirms, captures part: the rest released, the charge captured', async () => {
      const customer = await aCustomer(server.api);
      const created = await anIntent({
        currency: 'USD',
        customer: customer.id,
        captureMethod: 'MANUAL',
        description: 'Order 6735',
        metadata: { order: '6735' },
      });
      const rest = (await server.api.get(`/v1/payment_intents/${created.id}`)).body;
      expect(created).to.deep.equal({
        id: rest.id,
        created: rest.created,
        amount: 2000,
        amountCapturable: 0,
        amountReceived: 0,
        canceledAt: null,
        cancellationReason: null,
        captureMethod: 'MANUAL',
        currency: 'usd',
        description: 'Order 6735',
        metadata: { order: '6735' },
        paymentMethod: null,
        setupFutureUsage: null,
        status: 'REQUIRES_PAYMENT_METHOD',
        nextAction: null,
        customer: { id: customer.id },
        lastPaymentError: null,
        latestCharge: null,
      });
      expect(rest).to.include({ status: 'requires_payment_method', capture_method: 'manual' });

      const confirmed = (await data(CONFIRM, { id: created.id, input: { paymentMethod: 'pm_card_visa' } })).confirmPaymentIntent;
      expect(confirmed).to.include({ status: 'REQUIRES_CAPTURE', amountCapturable: 2000, amountReceived: 0 });
      // The test name is answered as the payment method made from it.
      expect(confirmed.paymentMethod).to.match(/^pm_[0-9A-Za-z]{24}$/);
      expect(confirmed.latestCharge).to.deep.include({ state: 'SUCCEEDED', captured: false, amountCaptured: 0, amountRefunded: 0 });
      expect(confirmed.latestCharge.paymentIntent).to.deep.equal({ id: created.id });

      const captured = (await data(CAPTURE, { id: created.id, amount: 1500 })).capturePaymentIntent;
      expect(captured).to.include({ status: 'SUCCEEDED', amountCapturable: 0, amountReceived: 1500 });
      expect(captured.latestCharge).to.deep.include({
        id: confirmed.latestCharge.id,
        captured: true,
        amountCaptured: 1500,
        amountRefunded: 500,
      });
      expect((await server.api.get(`/v1/payment_intents/${created.id}`)).body).to.include({ status: 'succeeded', amount_received: 1500 });
      expect(await eventTypesOf(created.id)).to.deep.equal([
        'payment_intent.created',
        'payment_intent.amount_capturable_updated',
        'payment_intent.succeeded',
      ]);
    });

    it('updates what an intent pays before it is confirmed, and confirms it with what it holds', async () => {
      const created = await anIntent({ paymentMethod: 'pm_card_visa' });
      expect(created).to.include({ status: 'REQUIRES_CONFIRMATION', captureMethod: 'AUTOMATIC' });
      const updated = (await data(UPDATE, { id: created.id, input: { amount: 3000, captureMethod: 'MANUAL', metadata: { step: 'two' } } }))
        .updatePaymentIntent;
      expect(updated).to.deep.include({ amount: 3000, captureMethod: 'MANUAL', metadata: { step: 'two' } });
      expect((await server.api.get(`/v1/payment_intents/${created.id}`)).body).to.include({ amount: 3000, capture_method: 'manual' });

      // No input at all: the intent's own payment method.
      const confirmed = (await data(`mutation ($id: ID!) { confirmPaymentIntent(id: $id) { status amountCapturable } }`, { id: created.id }))
        .confirmPaymentIntent;
      expect(confirmed).to.deep.equal({ status: 'REQUIRES_CAPTURE', amountCapturable: 3000 });
    });

    it('validates input with the rules of the spec, naming the parameter, and creates nothing', async () => {
      const negative = await send(CREATE, { input: { amount: -5, currency: 'usd' } });
      expect(onlyError(negative, 'createPaymentIntent').extensions).to.include({ code: 'parameter_invalid', param: 'amount' });
      const unknownMethod = await send(CREATE, { input: { amount: 500, currency: 'usd', paymentMethod: 'pm_card_bogus' } });
      expect(onlyError(unknownMethod, 'createPaymentIntent').extensions).to.include({ code: 'parameter_invalid', param: 'payment_method' });
      const noMethod = await send(CREATE, { input: { amount: 500, currency: 'usd', confirm: true } });
      expect(onlyError(noMethod, 'createPaymentIntent').extensions).to.include({ code: 'parameter_missing', param: 'payment_method' });
      expect((await server.api.get('/v1/payment_intents')).body.data).to.deep.equal([]);
    });

    it('cancels an authorised intent, releasing its charge in full', async () => {
      const intent = await anAuthorisedIntent();
      const canceled = (await data(CANCEL, { id: intent.id, reason: 'REQUESTED_BY_CUSTOMER' })).cancelPaymentIntent;
      const rest = (await server.api.get(`/v1/payment_intents/${intent.id}`)).body;
      expect(canceled).to.include({
        status: 'CANCELED',
        cancellationReason: 'REQUESTED_BY_CUSTOMER',
        canceledAt: rest.canceled_at,
        amountCapturable: 0,
      });
      expect(rest.cancellation_reason).to.equal('requested_by_customer');
      expect(canceled.latestCharge).to.deep.include({ captured: false, amountCaptured: 0, amountRefunded: 2000 });
    });

    it('leaves AUTOMATIC, the expiry\'s own reason, to the server: REST refuses it naming the parameter', async () => {
      const intent = await anIntent();
      const res = await send(CANCEL, { id: intent.id, reason: 'AUTOMATIC' });
      expect(onlyError(res, 'cancelPaymentIntent').extensions).to.include({ code: 'parameter_invalid', param: 'cancellation_reason' });
      expect((await data(RETRIEVE, { id: intent.id })).paymentIntent.status).to.equal('REQUIRES_PAYMENT_METHOD');
    });

    it('waits in REQUIRES_ACTION with the next action, until the customer authenticates', async () => {
      const intent = await anIntent({ paymentMethod: 'pm_card_authenticationRequired', confirm: true });
      expect(intent.status).to.equal('REQUIRES_ACTION');
      expect(intent.nextAction).to.deep.equal({ type: 'authenticate', url: `/v1/test_helpers/payment_intents/${intent.id}/authenticate` });
      const authenticated = await server.api.post(intent.nextAction.url, {});
      expect(authenticated.status, JSON.stringify(authenticated.body)).to.equal(200);
      const after = (await data(RETRIEVE, { id: intent.id })).paymentIntent;
      expect(after).to.include({ status: 'SUCCEEDED', nextAction: null, amountReceived: 2000 });
    });
  });

  describe('saving the payment method', () => {
    it('takes setupFutureUsage and offSession, and saves the card to the customer once paid', async () => {
      const customer = await aCustomer(server.api);
      const input = { amount: 700, currency: 'usd', customer: customer.id, paymentMethod: 'pm_card_visa', confirm: true };
      const paid = (await data(CREATE, { input: { ...input, setupFutureUsage: 'OFF_SESSION' } })).createPaymentIntent;
      expect(paid).to.include({ status: 'SUCCEEDED', setupFutureUsage: 'OFF_SESSION' });
      const saved = (await server.api.get(`/v1/customers/${customer.id}/payment_methods`)).body.data;
      expect(saved.map((pm: { id: string }) => pm.id)).to.deep.equal([paid.paymentMethod]);
      const later = (await data(CREATE, { input: { ...input, paymentMethod: paid.paymentMethod, offSession: true } })).createPaymentIntent;
      expect(later).to.include({ status: 'SUCCEEDED', paymentMethod: paid.paymentMethod, setupFutureUsage: null });
    });
  });

  describe('declines and refused moves', () => {
    it('reports a decline on create as card_declined with the charge and the intent, which is kept', async () => {
      const res = await send(CREATE, { input: { amount: 500, currency: 'usd', paymentMethod: 'pm_card_chargeDeclined', confirm: true } });
      expect(res.status).to.equal(200);
      const error = onlyError(res, 'createPaymentIntent');
      expect(error.extensions).to.include({ code: 'card_declined', type: 'card_error', declineCode: 'generic_decline' });
      const { charge, paymentIntent } = error.extensions!;
      expect(charge).to.match(/^ch_/);
      expect(paymentIntent).to.match(/^pi_/);

      const intent = (await data(RETRIEVE, { id: paymentIntent })).paymentIntent;
      expect(intent).to.include({ status: 'REQUIRES_PAYMENT_METHOD', paymentMethod: null });
      expect(intent.lastPaymentError).to.deep.include({
        code: 'card_declined',
        declineCode: 'generic_decline',
        charge: { id: charge, state: 'FAILED' },
      });
      expect(intent.lastPaymentError.paymentMethod).to.match(/^pm_[0-9A-Za-z]{24}$/);
      expect(intent.latestCharge).to.include({ id: charge, state: 'FAILED', captured: false });

      // Kept: another payment method pays it, and the error is gone.
      const paid = (await data(CONFIRM, { id: paymentIntent, input: { paymentMethod: 'pm_card_visa' } })).confirmPaymentIntent;
      expect(paid).to.include({ status: 'SUCCEEDED', lastPaymentError: null, amountReceived: 500 });
    });

    it('reports a decline on confirm the same way', async () => {
      const intent = await anIntent();
      const res = await send(CONFIRM, { id: intent.id, input: { paymentMethod: 'pm_card_chargeDeclinedInsufficientFunds' } });
      const error = onlyError(res, 'confirmPaymentIntent');
      expect(error.extensions).to.include({ code: 'card_declined', declineCode: 'insufficient_funds', paymentIntent: intent.id });
      const failed = await server.api.get(`/v1/charges/${error.extensions!.charge}`);
      expect(failed.body).to.include({ status: 'failed', payment_intent: intent.id });
      expect((await data(RETRIEVE, { id: intent.id })).paymentIntent.status).to.equal('REQUIRES_PAYMENT_METHOD');
    });

    it('refuses a move the status does not allow with payment_intent_unexpected_state, changing nothing', async () => {
      const intent = await anIntent();
      const capture = onlyError(await send(CAPTURE, { id: intent.id }), 'capturePaymentIntent');
      expect(capture.extensions).to.include({
        code: 'payment_intent_unexpected_state',
        type: 'invalid_request_error',
        paymentIntent: intent.id,
      });
      expect(capture.message).to.include('requires_payment_method');

      await data(CANCEL, { id: intent.id });
      const again = onlyError(await send(CANCEL, { id: intent.id }), 'cancelPaymentIntent');
      expect(again.extensions).to.include({ code: 'payment_intent_unexpected_state', paymentIntent: intent.id });
      const update = onlyError(await send(UPDATE, { id: intent.id, input: { amount: 100 } }), 'updatePaymentIntent');
      expect(update.extensions!.code).to.equal('payment_intent_unexpected_state');
      expect((await data(RETRIEVE, { id: intent.id })).paymentIntent).to.include({ status: 'CANCELED', amount: 2000 });
    });

    it('answers a missing or foreign id with resource_missing', async () => {
      const foreign = (await server.otherApi.post('/v1/payment_intents', { amount: 100, currency: 'usd' })).body;
      const res = await send(RETRIEVE, { id: foreign.id });
      expect(res.body.data).to.deep.equal({ paymentIntent: null });
      expect(res.body.errors![0].extensions).to.include({ code: 'resource_missing', param: 'id' });
      expect(firstErrorCode(await send(CAPTURE, { id: foreign.id }))).to.equal('resource_missing');
    });
  });

  describe('lists', () => {
    it('filters by statuses and customer, and pages with cursors REST accepts too', async () => {
      const customer = await aCustomer(server.api);
      const authorised = await anAuthorisedIntent({ customer: customer.id });
      const waiting = await anIntent();
      const canceled = await anIntent({ customer: customer.id });
      await data(CANCEL, { id: canceled.id });
      const succeeded = await anIntent({ paymentMethod: 'pm_card_visa', confirm: true });
      const ownWaiting = await anIntent({ customer: customer.id });
      const ids = (res: Record<string, any>) => res.paymentIntents.edges.map((e: any) => e.node.id);

      const some = await data(LIST, { statuses: ['REQUIRES_CAPTURE', 'CANCELED'] });
      expect(some.paymentIntents.edges.map((e: any) => e.node)).to.deep.equal([
        { id: canceled.id, status: 'CANCELED' },
        { id: authorised.id, status: 'REQUIRES_CAPTURE' },
      ]);
      expect(ids(await data(LIST, { statuses: ['REQUIRES_PAYMENT_METHOD'], customer: customer.id }))).to.deep.equal([ownWaiting.id]);
      expect(ids(await data(LIST, { customer: customer.id }))).to.deep.equal([ownWaiting.id, canceled.id, authorised.id]);

      const first = (await data(LIST, { first: 2 })).paymentIntents;
      expect(first.edges.map((e: any) => e.node.id)).to.deep.equal([ownWaiting.id, succeeded.id]);
      expect(first.pageInfo).to.deep.equal({ hasNextPage: true, hasPreviousPage: false, endCursor: succeeded.id });
      const rest = (await data(LIST, { first: 10, after: first.pageInfo.endCursor })).paymentIntents;
      expect(rest.edges.map((e: any) => e.node.id)).to.deep.equal([canceled.id, waiting.id, authorised.id]);
      expect(rest.pageInfo).to.include({ hasNextPage: false, hasPreviousPage: true });
      const viaRest = await server.api.get(`/v1/payment_intents?limit=10&starting_after=${first.pageInfo.endCursor}`);
      expect(viaRest.body.data.map((i: any) => i.id)).to.deep.equal([canceled.id, waiting.id, authorised.id]);
      expect(ids(await data(LIST, { last: 1, before: canceled.id }))).to.deep.equal([succeeded.id]);

      // A filtered list pages within its filter.
      const firstOfSome = (await data(LIST, { first: 1, statuses: ['REQUIRES_CAPTURE', 'CANCELED'] })).paymentIntents;
      expect(firstOfSome.edges.map((e: any) => e.node.id)).to.deep.equal([canceled.id]);
      expect(firstOfSome.pageInfo.hasNextPage).to.equal(true);
      const next = await data(LIST, { first: 1, after: firstOfSome.pageInfo.endCursor, statuses: ['REQUIRES_CAPTURE', 'CANCELED'] });
      expect(ids(next)).to.deep.equal([authorised.id]);
      expect(next.paymentIntents.pageInfo.hasNextPage).to.equal(false);
    });

    it('loads the customers and charges of a page of intents in a constant number of statements', async () => {
      const statementsOfPage = async () => {
        const before = server.statementCount();
        const page = await data(`{ paymentIntents(first: 100) { edges { node {
          id customer { id } latestCharge { id paymentIntent { id } } lastPaymentError { charge { id } } } } } }`);
        for (const { node } of page.paymentIntents.edges) {
          expect(node.latestCharge.paymentIntent.id).to.equal(node.id);
          expect(node.customer).to.not.equal(null);
        }
        return server.statementCount() - before;
      };
      const somePayments = async (count: number) => {
        for (let i = 0; i < count; i += 1) {
          const customer = await aCustomer(server.api, { email: `c${i}@example.com` });
          await anAuthorisedIntent({ customer: customer.id });
          await send(CREATE, { input: { amount: 700, currency: 'usd', customer: customer.id, paymentMethod: 'pm_card_chargeDeclined', confirm: true } });
        }
      };
      await somePayments(2);
      const few = await statementsOfPage();
      await somePayments(8);
      expect(await statementsOfPage()).to.equal(few);
    });
  });

  describe('charges and refunds under the lifecycle', () => {
    it('shows a REST charge\'s intent, captured and amountCaptured', async () => {
      const charge = await aCharge(server.api);
      const res = await data(`query ($id: ID!) { charge(id: $id) {
        captured amountCaptured paymentIntent { status amountReceived latestCharge { id } } } }`, { id: charge.id });
      expect(res.charge).to.deep.equal({
        captured: true,
        amountCaptured: 2000,
        paymentIntent: { status: 'SUCCEEDED', amountReceived: 2000, latestCharge: { id: charge.id } },
      });
    });

    it('captures an authorised charge with captureCharge, once', async () => {
      const charge = await aCharge(server.api, { capture: false });
      const before = await data(`{ charge(id: "${charge.id}") { captured amountCaptured paymentIntent { status } } }`);
      expect(before.charge).to.deep.equal({ captured: false, amountCaptured: 0, paymentIntent: { status: 'REQUIRES_CAPTURE' } });
      const CAPTURE_CHARGE = `mutation ($id: ID!, $amount: Int) { captureCharge(id: $id, amount: $amount) {
        captured amountCaptured amountRefunded paymentIntent { status amountReceived } } }`;
      const captured = (await data(CAPTURE_CHARGE, { id: charge.id, amount: 1200 })).captureCharge;
      expect(captured).to.deep.equal({
        captured: true,
        amountCaptured: 1200,
        amountRefunded: 800,
        paymentIntent: { status: 'SUCCEEDED', amountReceived: 1200 },
      });
      expect(onlyError(await send(CAPTURE_CHARGE, { id: charge.id }), 'captureCharge').extensions!.code).to.equal('charge_already_captured');
    });

    it('makes an authorised-only charge with createCharge(capture: false), then captures it', async () => {
      const created = await data(`mutation { createCharge(input: { amount: 900, currency: "usd", source: "tok_visa", capture: false }) {
        id captured amountCaptured paymentIntent { status amountCapturable } } }`);
      expect(created.createCharge).to.deep.include({
        captured: false,
        amountCaptured: 0,
        paymentIntent: { status: 'REQUIRES_CAPTURE', amountCapturable: 900 },
      });
      const captured = await data(`mutation ($id: ID!) { captureCharge(id: $id) { captured amountCaptured } }`, {
        id: created.createCharge.id,
      });
      expect(captured.captureCharge).to.deep.equal({ captured: true, amountCaptured: 900 });
    });

    it('refunds by payment intent with createRefund', async () => {
      const intent = await anIntent({ paymentMethod: 'pm_card_visa', confirm: true });
      const res = await data(`mutation ($intent: ID!) { createRefund(input: { paymentIntent: $intent, amount: 300 }) {
        amount paymentIntent { id } charge { id amountRefunded paymentIntent { id } } } }`, { intent: intent.id });
      expect(res.createRefund).to.deep.equal({
        amount: 300,
        paymentIntent: { id: intent.id },
        charge: { id: intent.latestCharge.id, amountRefunded: 300, paymentIntent: { id: intent.id } },
      });
    });

    it("shows the request that caused an event, as REST's event.request does", async () => {
      const key = 'graphql-event-request';
      const charge = await data(`mutation { createCharge(input: { amount: 400, currency: "usd", source: "tok_visa" }, idempotencyKey: "${key}") { id } }`);
      const events = (await server.api.get(`/v1/events?object_id=${charge.createCharge.id}`)).body.data;
      const read = await data(`query ($id: ID!) { event(id: $id) { request { id idempotencyKey } } }`, { id: events[0].id });
      expect(read.event.request).to.deep.equal({ id: events[0].request.id, idempotencyKey: key });
      expect(read.event.request.id).to.match(/^req_/);
    });
  });

  describe('scopes', () => {
    it('answers an intent nested in a charge as null with insufficient_scope without payment_intents:read', async () => {
      const charge = await aCharge(server.api);
      const key = await restrictedKey(['charges:read']);
      const res = await send(`query ($id: ID!) { charge(id: $id) { id paymentIntent { id } } }`, { id: charge.id }, key);
      expect(res.body.data).to.deep.equal({ charge: { id: charge.id, paymentIntent: null } });
      expect(res.body.errors).to.have.length(1);
      expectRefused(res, ['charge', 'paymentIntent'], 'payment_intents:read');

      const list = await send('{ paymentIntents { edges { node { id } } } }', undefined, key);
      expect(list.body.data).to.equal(null);
      expectRefused(list, ['paymentIntents'], 'payment_intents:read');
    });

    it('holds an intent\'s customer and charges to their own scopes, and its changes to payment_intents:write', async () => {
      const customer = await aCustomer(server.api);
      const intent = await anAuthorisedIntent({ customer: customer.id });
      const key = await restrictedKey(['payment_intents:read']);
      const res = await send(`query ($id: ID!) { paymentIntent(id: $id) { id status customer { id } latestCharge { id } } }`, { id: intent.id }, key);
      expect(res.body.data).to.deep.equal({ paymentIntent: { id: intent.id, status: 'REQUIRES_CAPTURE', customer: null, latestCharge: null } });
      expectRefused(res, ['paymentIntent', 'customer'], 'customers:read');
      expectRefused(res, ['paymentIntent', 'latestCharge'], 'charges:read');

      const capture = await send(CAPTURE, { id: intent.id }, key);
      expectRefused(capture, ['capturePaymentIntent'], 'payment_intents:write');
      expect((await data(RETRIEVE, { id: intent.id })).paymentIntent.status).to.equal('REQUIRES_CAPTURE');
    });
  });

  describe('idempotency', () => {
    it('replays capturePaymentIntent with the same key: one capture, the same answer, through either door', async () => {
      const intent = await anAuthorisedIntent();
      const variables = { id: intent.id, amount: 1000, key: 'capture-6735' };
      const first = (await data(CAPTURE, variables)).capturePaymentIntent;
      const second = (await data(CAPTURE, variables)).capturePaymentIntent;
      expect(second).to.deep.equal(first);
      expect(first).to.include({ status: 'SUCCEEDED', amountReceived: 1000 });

      const viaRest = await server.api.post(`/v1/payment_intents/${intent.id}/capture`, { amount_to_capture: 1000 }, {
        headers: { 'Idempotency-Key': 'capture-6735' },
      });
      expect(viaRest.status).to.equal(200);
      expect(viaRest.headers.get('idempotent-replayed')).to.equal('true');
      expect(viaRest.body).to.include({ id: intent.id, status: 'succeeded', amount_received: 1000 });

      const reused = await send(CAPTURE, { ...variables, amount: 900 });
      expect(onlyError(reused, 'capturePaymentIntent').extensions!.code).to.equal('idempotency_key_reused');
      expect((await eventTypesOf(intent.id)).filter((type) => type === 'payment_intent.succeeded')).to.have.length(1);
    });
  });

  describe('subscriptions', () => {
    it('streams payment_intent.amount_capturable_updated to a subscriber of that type', async () => {
      const before = server.eventStream.subscriberCount;
      const client = subscriptionClient(server.wsUrl, bearer(server.apiKeys.first));
      clients.push(client);
      const results = client.iterate({
        query: 'subscription ($types: [String!]) { events(types: $types) { type object } }',
        variables: { types: ['payment_intent.amount_capturable_updated'] },
      }) as AsyncIterableIterator<EventsResult>;
      await eventually(() => expect(server.eventStream.subscriberCount).to.equal(before + 1));

      await anIntent({ paymentMethod: 'pm_card_visa', confirm: true });
      const intent = await anAuthorisedIntent();
      const result = await nextValue(results);
      expect(result.errors).to.equal(undefined);
      expect(result.data!.events.type).to.equal('payment_intent.amount_capturable_updated');
      expect(result.data!.events.object).to.include({ id: intent.id, status: 'requires_capture', amount_capturable: 2000 });
    });
  });
});
