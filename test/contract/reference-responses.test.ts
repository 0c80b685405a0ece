import { expect } from 'chai';
import type { ErrorObject } from 'ajv';
import type { ApiResponse } from '../helpers/api-client.js';
import { forEachDatabase } from '../helpers/databases.js';
import { REFERENCE_FILE, ReferenceValidators, operationKey } from '../helpers/reference-schemas.js';
import { loadSpec } from '../../src/operations/spec.js';
import { useTestServer } from '../helpers/test-server.js';

/**
 * Every answer of an operation this server shares with the widely used payments API conforms to
 * that API's published response schema (one pinned version, extracted by
 * scripts/extract-reference-schemas.ts): no required property missing, no type or enum value
 * outside the reference, and no field the reference lacks except those admitted below.
 */

/**
 * Fields our objects carry that the pinned reference's objects lack, admitted deliberately:
 * - `refund.livemode`: every object here carries `livemode` (docs/conventions.md), refunds too;
 * - `payment_method_card.display_brand`, `setup_intent.payment_method_configuration_details`:
 *   fields the reference added after the pinned version;
 * - `payment_intent.source`: published in our contract before this test (always null, as the
 *   legacy Sources API is not offered); taking it away would break clients;
 * - `webhook_endpoint.signature_header_aliases`: this server's own, the extra signature headers an
 *   endpoint asked for;
 * - a charge's `outcome` advice and network codes, its card's `amount_authorized`, network codes
 *   and `regulated_status`, and its 3-D Secure's indicators: fields the reference added after the
 *   pinned version, which the payments API's current Node client types as always present;
 * - `charge.source`: typed as always present by that client (always null here, as the legacy
 *   Sources API is not offered), as `payment_intent.source` is;
 * - a refund's `customer`, `customer_account` and `payment_method`, a payment method's
 *   `customer_account` and billing details' `tax_id`, a payment intent's and a setup intent's
 *   lists of allowed and excluded payment method types, and an intent's `customer_account`,
 *   `managed_payments`, `payment_method_configuration_details` and `payment_record`: typed by
 *   stripe-node 23.1.0, newer than the pinned reference (test/contract/client-fields.test.ts
 *   holds our objects to that client's types).
 */
const EXTRAS: Record<string, string[]> = {
  refund: ['livemode', 'customer', 'customer_account', 'payment_method'],
  payment_method: ['customer_account'],
  billing_details: ['tax_id'],
  payment_method_card: ['display_brand'],
  setup_intent: [
    'payment_method_configuration_details',
    'allowed_payment_method_types',
    'excluded_payment_method_types',
  ],
  payment_intent: [
    'source',
    'allowed_payment_method_types',
    'customer_account',
    'excluded_payment_method_types',
    'managed_payments',
    'payment_method_configuration_details',
    'payment_record',
  ],
  webhook_endpoint: ['signature_header_aliases'],
  charge: ['source'],
  charge_outcome: ['advice_code', 'network_advice_code', 'network_decline_code'],
  payment_method_details_card: [
    'amount_authorized',
    'authorization_code',
    'electronic_commerce_indicator',
    'network_transaction_id',
    'regulated_status',
    'transaction_link_id',
  ],
  three_d_secure_details_charge: ['electronic_commerce_indicator', 'exemption_indicator', 'transaction_id'],
};

// Compiled once for the file: both engines' servers are checked by the same validators.
const reference = new ReferenceValidators(EXTRAS);

const described = (errors: ErrorObject[]) =>
  errors.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);

/** Asserts a 200 whose body conforms to the reference's response of `method path`; the body. */
function conforms(called: Set<string>, method: string, path: string, res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const key = operationKey(method, path);
  called.add(key);
  expect(
    described(reference.errors(key, res.body)),
    `${key} answered ${JSON.stringify(res.body)}`,
  ).to.deep.equal([]);
  return res.body;
}

describe('the reference of the widely used payments API', () => {
  it('is one published version, and names the operations this server shares with it', () => {
    expect(reference.file.origin).to.include({
      repository: 'https://github.com/stripe/openapi',
      path: 'openapi/spec3.yaml',
    });
    expect(reference.file.origin.commit).to.match(/^[0-9a-f]{40}$/);
    // A shared operation added to our spec without a new extract would go unchecked.
    const ours = loadSpec() as unknown as { paths: Record<string, Record<string, unknown>> };
    const shared = Object.entries(ours.paths)
      .flatMap(([path, item]) =>
        ['get', 'post', 'delete'].filter((m) => item[m]).map((m) => operationKey(m, path)),
      )
      .filter((key) => reference.file.reference_operations.includes(key));
    expect(
      Object.keys(reference.file.operations).sort(),
      `re-run scripts/extract-reference-schemas.ts (${REFERENCE_FILE})`,
    ).to.deep.equal(shared.sort());
  });
});

forEachDatabase('responses as the widely used payments API publishes them', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });
  /** The shared operations a test called, to prove at the end that every one was. */
  const called = new Set<string>();
  const get = async (path: string, url = path) =>
    conforms(called, 'get', path, await server.api.get(url));
  const post = async (path: string, url: string, body: Record<string, unknown> = {}) =>
    conforms(called, 'post', path, await server.api.post(url, body, { form: true }));
  const remove = async (path: string, url: string) =>
    conforms(called, 'delete', path, await server.api.delete(url));

  it('customers: create, retrieve, update, list, delete, and their payment methods', async () => {
    const customer = await post('/v1/customers', '/v1/customers', {
      email: 'jenny@example.com',
      name: 'Jenny Rosen',
      phone: '+14155550100',
      address: {
        line1: '510 Townsend St',
        city: 'San Francisco',
        postal_code: '94103',
        country: 'US',
      },
      metadata: { order: '6735' },
    });
    await get('/v1/customers/{id}', `/v1/customers/${customer.id}`);
    await post('/v1/customers/{id}', `/v1/customers/${customer.id}`, {
      description: 'VIP',
      shipping: { name: 'Jenny', address: { line1: '1 Main St' } },
    });
    const pm = await post('/v1/payment_methods', '/v1/payment_methods', {
      type: 'card',
      card: { token: 'tok_visa' },
    });
    await post('/v1/payment_methods/{id}/attach', `/v1/payment_methods/${pm.id}/attach`, {
      customer: customer.id,
    });
    await get('/v1/customers/{id}/payment_methods', `/v1/customers/${customer.id}/payment_methods`);
    await get(
      '/v1/customers/{id}/payment_methods/{pm}',
      `/v1/customers/${customer.id}/payment_methods/${pm.id}`,
    );
    await get('/v1/customers', '/v1/customers?limit=3');
    await remove('/v1/customers/{id}', `/v1/customers/${customer.id}`);
  });

  it('charges: succeeded, declined, uncaptured and captured, partly and fully refunded, updated, listed', async () => {
    const customer = await post('/v1/customers', '/v1/customers', { email: 'jenny@example.com' });
    const charge = await post('/v1/charges', '/v1/charges', {
      amount: 2000,
      currency: 'usd',
      source: 'tok_visa',
      customer: customer.id,
      description: 'Order 6735',
      receipt_email: 'jenny@example.com',
      metadata: { order: '6735' },
    });
    const declined = await server.api.post('/v1/charges', {
      amount: 2000,
      currency: 'usd',
      source: 'tok_chargeDeclinedInsufficientFunds',
    });
    expect(declined.status).to.equal(402);
    await get('/v1/charges/{id}', `/v1/charges/${declined.body.error.charge}`);
    const held = await post('/v1/charges', '/v1/charges', {
      amount: 3000,
      currency: 'eur',
      source: 'tok_mastercard',
      capture: false,
    });
    await get('/v1/charges/{id}', `/v1/charges/${held.id}`);
    await post('/v1/charges/{id}/capture', `/v1/charges/${held.id}/capture`, { amount: 2500 });
    await post('/v1/refunds', '/v1/refunds', {
      charge: charge.id,
      amount: 500,
      reason: 'requested_by_customer',
    });
    await get('/v1/charges/{id}', `/v1/charges/${charge.id}`);
    await post('/v1/refunds', '/v1/refunds', { charge: charge.id, metadata: { why: 'returned' } });
    await get('/v1/charges/{id}', `/v1/charges/${charge.id}?expand[]=customer`);
    await post('/v1/charges/{id}', `/v1/charges/${charge.id}`, {
      description: 'Order 6736',
      metadata: { order: '6736' },
    });
    await get('/v1/charges/{id}/refunds', `/v1/charges/${charge.id}/refunds`);
    await get('/v1/charges', '/v1/charges?limit=5');
  });

  it('refunds: create, retrieve, update, list', async () => {
    const charge = await post('/v1/charges', '/v1/charges', {
      amount: 2000,
      currency: 'usd',
      source: 'tok_visa',
    });
    const refund = await post('/v1/refunds', '/v1/refunds', { charge: charge.id, amount: 800 });
    await get('/v1/refunds/{id}', `/v1/refunds/${refund.id}?expand[]=charge`);
    await post('/v1/refunds/{id}', `/v1/refunds/${refund.id}`, { metadata: { ticket: '42' } });
    await get('/v1/refunds', `/v1/refunds?charge=${charge.id}`);
  });

  it('payment intents: requires a payment method, succeeded, declined, requires action, requires capture and captured, canceled, updated, listed', async () => {
    const intent = await post('/v1/payment_intents', '/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      metadata: { order: '6735' },
    });
    await post('/v1/payment_intents/{id}', `/v1/payment_intents/${intent.id}`, {
      description: 'Order 6735',
      receipt_email: 'jenny@example.com',
    });
    const succeeded = await post(
      '/v1/payment_intents/{id}/confirm',
      `/v1/payment_intents/${intent.id}/confirm`,
      { payment_method: 'pm_card_visa' },
    );
    expect(succeeded.status).to.equal('succeeded');
    await get(
      '/v1/payment_intents/{id}',
      `/v1/payment_intents/${intent.id}?expand[]=latest_charge&expand[]=payment_method`,
    );

    const declined = await server.api.post('/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      payment_method: 'pm_card_chargeDeclined',
      confirm: true,
    });
    expect(declined.status).to.equal(402);
    const failed = await get(
      '/v1/payment_intents/{id}',
      `/v1/payment_intents/${declined.body.error.payment_intent.id}`,
    );
    expect(failed.status).to.equal('requires_payment_method');

    const action = await post('/v1/payment_intents', '/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
      return_url: 'https://shop.example.com/return',
    });
    expect(action.status).to.equal('requires_action');
    await get('/v1/payment_intents/{id}', `/v1/payment_intents/${action.id}`);

    const manual = await post('/v1/payment_intents', '/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });
    expect(manual.status).to.equal('requires_capture');
    await post('/v1/payment_intents/{id}/capture', `/v1/payment_intents/${manual.id}/capture`, {
      amount_to_capture: 1500,
    });
    await post('/v1/payment_intents/{id}/cancel', `/v1/payment_intents/${action.id}/cancel`, {
      cancellation_reason: 'abandoned',
    });
    await get('/v1/payment_intents', '/v1/payment_intents?limit=10');
  });

  it('payment methods: create, retrieve, update, attach, detach, list', async () => {
    const customer = await post('/v1/customers', '/v1/customers', { email: 'jenny@example.com' });
    const pm = await post('/v1/payment_methods', '/v1/payment_methods', {
      type: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '314' },
      billing_details: { name: 'Jenny Rosen', email: 'jenny@example.com' },
    });
    await get('/v1/payment_methods/{id}', `/v1/payment_methods/${pm.id}`);
    await post('/v1/payment_methods/{id}/attach', `/v1/payment_methods/${pm.id}/attach`, {
      customer: customer.id,
    });
    await post('/v1/payment_methods/{id}', `/v1/payment_methods/${pm.id}`, {
      metadata: { kind: 'work' },
      card: { exp_month: 1 },
    });
    await get('/v1/payment_methods', `/v1/payment_methods?customer=${customer.id}&type=card`);
    await post('/v1/payment_methods/{id}/detach', `/v1/payment_methods/${pm.id}/detach`);
  });

  it('setup intents: succeeded, requires action, canceled, updated, listed', async () => {
    const customer = await post('/v1/customers', '/v1/customers', { email: 'jenny@example.com' });
    const intent = await post('/v1/setup_intents', '/v1/setup_intents', {
      customer: customer.id,
      usage: 'off_session',
    });
    await post('/v1/setup_intents/{id}', `/v1/setup_intents/${intent.id}`, {
      metadata: { plan: 'pro' },
    });
    const done = await post(
      '/v1/setup_intents/{id}/confirm',
      `/v1/setup_intents/${intent.id}/confirm`,
      { payment_method: 'pm_card_visa' },
    );
    expect(done.status).to.equal('succeeded');
    const action = await post('/v1/setup_intents', '/v1/setup_intents', {
      customer: customer.id,
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
      return_url: 'https://shop.example.com/return',
    });
    expect(action.status).to.equal('requires_action');
    await get('/v1/setup_intents/{id}', `/v1/setup_intents/${action.id}`);
    await post('/v1/setup_intents/{id}/cancel', `/v1/setup_intents/${action.id}/cancel`, {
      cancellation_reason: 'abandoned',
    });
    await get('/v1/setup_intents', '/v1/setup_intents');
  });

  it('events and webhook endpoints: create, retrieve, update, list, delete', async () => {
    const endpoint = await post('/v1/webhook_endpoints', '/v1/webhook_endpoints', {
      url: 'https://hooks.example.com/payments',
      enabled_events: ['charge.succeeded', 'payment_intent.succeeded'],
      description: 'orders',
      metadata: { team: 'billing' },
    });
    await get('/v1/webhook_endpoints/{id}', `/v1/webhook_endpoints/${endpoint.id}`);
    await post('/v1/webhook_endpoints/{id}', `/v1/webhook_endpoints/${endpoint.id}`, {
      disabled: true,
      enabled_events: ['*'],
    });
    await get('/v1/webhook_endpoints', '/v1/webhook_endpoints');
    await post('/v1/charges', '/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa' });
    // Every event the tests above caused (the server is the file's), page by page.
    const events: any[] = [];
    for (let page: any = { has_more: true }; page.has_more;) {
      const after = events.length ? `&starting_after=${events.at(-1).id}` : '';
      page = await get('/v1/events', `/v1/events?limit=100${after}`);
      events.push(...page.data);
    }
    await get('/v1/events/{id}', `/v1/events/${events[0].id}`);
    // The reference leaves `data.object` open: each is checked as the object it names.
    for (const { type, data } of events) {
      const name = data.object.deleted ? `deleted_${data.object.object}` : data.object.object;
      expect(
        described(reference.objectErrors(name, data.object)),
        `${type} ${JSON.stringify(data.object)}`,
      ).to.deep.equal([]);
    }
    expect(new Set(events.map((e) => e.data.object.object))).to.include.keys(
      'charge',
      'customer',
      'payment_intent',
      'payment_method',
      'refund',
      'setup_intent',
    );
    await remove('/v1/webhook_endpoints/{id}', `/v1/webhook_endpoints/${endpoint.id}`);
  });

  it('every shared operation was called above', () => {
    expect([...called].sort()).to.deep.equal(Object.keys(reference.file.operations).sort());
  });
});
