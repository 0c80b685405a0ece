import { expect } from 'chai';
import type { ApiClient } from '../helpers/api-client.js';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { APPROVED, declined, documentedCard } from '../helpers/charge-cards.js';
import { forEachDatabase } from '../helpers/databases.js';
import { graphql } from '../helpers/graphql-client.js';
import { useTestServer } from '../helpers/test-server.js';

const ADDRESS = {
  line1: '510 Townsend St',
  city: 'San Francisco',
  postal_code: '94103',
  country: 'US',
};
const STORED_ADDRESS = { ...ADDRESS, line2: null, state: null };
const SHIPPING = {
  name: 'Jenny Rosen',
  address: ADDRESS,
  carrier: 'UPS',
  tracking_number: '1Z999',
};
const STORED_SHIPPING = {
  name: 'Jenny Rosen',
  address: STORED_ADDRESS,
  carrier: 'UPS',
  phone: null,
  tracking_number: '1Z999',
};

async function ok<T = any>(pending: Promise<{ status: number; body: T }>): Promise<T> {
  const res = await pending;
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** An intent created (and, with `confirm`, confirmed) with these parameters; the 200 answer. */
const anIntent = (api: ApiClient, params: Record<string, unknown>, form = false) =>
  ok(api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', ...params }, { form }));

/**
 * The documented parameters of the widely used payments API's customers, charges, payment
 * intents, refunds and webhook endpoints: each is taken, stored and shown back as that API
 * documents it, form-encoded as its SDKs send it or as JSON, and a bad value is a 400 naming it.
 */
forEachDatabase('documented fields', (engine) => {
  const server = useTestServer(engine, {}, { per: 'account' });

  describe('customers', () => {
    it('shows every field the widely used API always has, with its value here, on a new customer', async () => {
      const customer = await aCustomer(server.api);
      expect(customer).to.deep.include({
        address: null,
        balance: 0,
        currency: null,
        default_source: null,
        delinquent: false,
        discount: null,
        next_invoice_sequence: 1,
        preferred_locales: [],
        shipping: null,
        tax_exempt: 'none',
        test_clock: null,
        invoice_settings: {
          custom_fields: null,
          default_payment_method: null,
          footer: null,
          rendering_options: null,
        },
      });
      expect(customer.invoice_prefix).to.match(/^[0-9A-F]{8}$/);
      // Fixed for the customer: the same prefix on every read.
      expect((await ok(server.api.get(`/v1/customers/${customer.id}`))).invoice_prefix).to.equal(
        customer.invoice_prefix,
      );
    });

    it('stores an address, shipping, phone, locales and tax status sent form-encoded, and unsets them with empty values', async () => {
      const created = await ok(
        server.api.post(
          '/v1/customers',
          {
            name: 'Jenny Rosen',
            phone: '+1 555 010 0100',
            address: ADDRESS,
            shipping: { name: 'Jenny Rosen', address: ADDRESS, phone: '+1 555 010 0199' },
            preferred_locales: ['fr-CA', 'en'],
            tax_exempt: 'reverse',
          },
          { form: true },
        ),
      );
      expect(created).to.deep.include({
        phone: '+1 555 010 0100',
        address: STORED_ADDRESS,
        shipping: {
          name: 'Jenny Rosen',
          address: STORED_ADDRESS,
          carrier: null,
          phone: '+1 555 010 0199',
          tracking_number: null,
        },
        preferred_locales: ['fr-CA', 'en'],
        tax_exempt: 'reverse',
      });
      expect(await ok(server.api.get(`/v1/customers/${created.id}`))).to.deep.equal(created);
      const cleared = await ok(
        server.api.post(
          `/v1/customers/${created.id}`,
          { address: '', shipping: '', preferred_locales: '', tax_exempt: '' },
          { form: true },
        ),
      );
      expect(cleared).to.deep.include({
        address: null,
        shipping: null,
        preferred_locales: [],
        tax_exempt: 'none',
        phone: '+1 555 010 0100',
      });
      const [updated] = (await ok(server.api.get('/v1/events?type=customer.updated'))).data;
      expect(updated.data.previous_attributes).to.deep.include({
        tax_exempt: 'reverse',
        preferred_locales: ['fr-CA', 'en'],
      });
    });

    it("keeps invoice_settings' custom fields, footer and rendering options, field by field", async () => {
      const customer = await aCustomer(server.api, {
        invoice_settings: {
          custom_fields: [{ name: 'PO number', value: 'PO-6735' }],
          footer: 'Thank you',
        },
      });
      expect(customer.invoice_settings).to.deep.equal({
        custom_fields: [{ name: 'PO number', value: 'PO-6735' }],
        default_payment_method: null,
        footer: 'Thank you',
        rendering_options: null,
      });
      const updated = await ok(
        server.api.post(
          `/v1/customers/${customer.id}`,
          {
            'invoice_settings[rendering_options][amount_tax_display]': 'exclude_tax',
            'invoice_settings[footer]': '',
          },
          { form: true },
        ),
      );
      expect(updated.invoice_settings).to.deep.equal({
        custom_fields: [{ name: 'PO number', value: 'PO-6735' }],
        default_payment_method: null,
        footer: null,
        rendering_options: { amount_tax_display: 'exclude_tax', template: null },
      });
    });

    it('attaches the payment_method given at creation, without making it the default', async () => {
      const customer = await ok(
        server.api.post(
          '/v1/customers',
          { email: 'jenny@example.com', payment_method: 'pm_card_visa' },
          { form: true },
        ),
      );
      expect(customer.invoice_settings.default_payment_method).to.equal(null);
      const methods = (await ok(server.api.get(`/v1/customers/${customer.id}/payment_methods`)))
        .data;
      expect(methods).to.have.length(1);
      expect(methods[0]).to.deep.include({ customer: customer.id, card: methods[0].card });
      expect(methods[0].card.brand).to.equal('visa');
      const events = (await ok(server.api.get('/v1/events'))).data.map(
        (event: { type: string }) => event.type,
      );
      expect(events.slice(0, 2)).to.deep.equal(['payment_method.attached', 'customer.created']);
      // A saved payment method of another customer is refused, and nothing is created.
      const taken = await server.api.post('/v1/customers', { payment_method: methods[0].id });
      expectError(taken, 400, 'payment_method_unexpected_state', 'payment_method');
      expect((await ok(server.api.get('/v1/customers'))).data).to.have.length(1);
    });

    it('refuses bad values, naming the parameter', async () => {
      expectError(
        await server.api.post('/v1/customers', { tax_exempt: 'sometimes' }),
        400,
        'parameter_invalid',
        'tax_exempt',
      );
      expectError(
        await server.api.post('/v1/customers', { preferred_locales: ['en', 'not a locale'] }),
        400,
        'parameter_invalid',
        'preferred_locales[1]',
      );
      const res = await server.api.post(
        '/v1/customers',
        { 'shipping[address][line1]': 'x' },
        { form: true },
      );
      expect(res.status).to.equal(400);
      expect(res.body.error.param).to.match(/^shipping/);
      expectError(
        await server.api.post('/v1/customers', {
          invoice_settings: { custom_fields: [{ name: 'x'.repeat(41), value: 'v' }] },
        }),
        400,
        'parameter_invalid',
      );
      expect((await ok(server.api.get('/v1/customers'))).data).to.deep.equal([]);
    });
  });

  describe('charges and captures', () => {
    it('stores shipping and statement descriptors, and shows what the card statement says', async () => {
      const charge = await aCharge(server.api, {
        shipping: SHIPPING,
        statement_descriptor_suffix: 'ORDER 6735',
      });
      expect(charge).to.deep.include({
        shipping: STORED_SHIPPING,
        statement_descriptor: null,
        statement_descriptor_suffix: 'ORDER 6735',
        // The test account is named "Test".
        calculated_statement_descriptor: 'TEST* ORDER 6735',
      });
      const own = await aCharge(server.api, { statement_descriptor: 'ACME SHOES' });
      expect(own).to.include({
        statement_descriptor: 'ACME SHOES',
        calculated_statement_descriptor: 'ACME SHOES',
      });
      const plain = await aCharge(server.api);
      expect(plain.calculated_statement_descriptor).to.equal('TEST');
      // Its intent carries them too.
      const intent = await ok(server.api.get(`/v1/payment_intents/${charge.payment_intent}`));
      expect(intent).to.deep.include({
        shipping: STORED_SHIPPING,
        statement_descriptor_suffix: 'ORDER 6735',
      });
    });

    it('changes shipping on an update, and a capture sets its own descriptor', async () => {
      const charge = await aCharge(server.api, {
        capture: false,
        statement_descriptor_suffix: 'HOLD',
      });
      const updated = await ok(server.api.post(`/v1/charges/${charge.id}`, { shipping: SHIPPING }));
      expect(updated.shipping).to.deep.equal(STORED_SHIPPING);
      const captured = await ok(
        server.api.post(
          `/v1/charges/${charge.id}/capture`,
          { statement_descriptor_suffix: 'SHIPPED' },
          { form: true },
        ),
      );
      expect(captured).to.include({
        captured: true,
        statement_descriptor_suffix: 'SHIPPED',
        calculated_statement_descriptor: 'TEST* SHIPPED',
      });
      const unset = await ok(
        server.api.post(`/v1/charges/${charge.id}`, { shipping: '' }, { form: true }),
      );
      expect(unset.shipping).to.equal(null);
    });

    it('refuses a descriptor longer than 22 characters, with a forbidden character, or without a letter', async () => {
      for (const [param, value] of [
        ['statement_descriptor', 'A'.repeat(23)],
        ['statement_descriptor', 'ACME <SHOES>'],
        ['statement_descriptor_suffix', "JENNY'S"],
        ['statement_descriptor_suffix', 'ORDER*6735'],
        ['statement_descriptor', '6735 6736'],
      ]) {
        const res = await server.api.post('/v1/charges', {
          amount: 500,
          currency: 'usd',
          source: 'tok_visa',
          [param]: value,
        });
        expectError(res, 400, 'parameter_invalid', param);
      }
      expect((await ok(server.api.get('/v1/charges'))).data).to.deep.equal([]);
    });
  });

  describe('payment intents', () => {
    it('takes automatic_payment_methods with allow_redirects, and shows the types and options of the intent', async () => {
      const intent = await anIntent(
        server.api,
        { automatic_payment_methods: { enabled: true, allow_redirects: 'never' } },
        true,
      );
      expect(intent).to.deep.include({
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        payment_method_types: ['card'],
        payment_method_options: { card: { request_three_d_secure: 'automatic' } },
        confirmation_method: 'automatic',
        processing: null,
      });
      const typed = await anIntent(server.api, { payment_method_types: ['card'] }, true);
      expect(typed).to.deep.include({
        automatic_payment_methods: null,
        payment_method_types: ['card'],
      });
    });

    it('refuses payment method types other than card, and both ways of choosing them at once', async () => {
      const other = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method_types: ['sepa_debit'],
      });
      expectError(other, 400, 'parameter_invalid', 'payment_method_types[0]');
      const both = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method_types: ['card'],
        automatic_payment_methods: { enabled: true },
      });
      expectError(both, 400, 'parameter_invalid', 'automatic_payment_methods');
      const redirects = await server.api.post(
        '/v1/payment_intents',
        {
          amount: 2000,
          currency: 'usd',
          'automatic_payment_methods[enabled]': 'true',
          'automatic_payment_methods[allow_redirects]': 'sometimes',
        },
        { form: true },
      );
      expectError(
        redirects,
        400,
        'parameter_invalid',
        'automatic_payment_methods[allow_redirects]',
      );
      expectError(
        await server.api.post('/v1/payment_intents', {
          amount: 2000,
          currency: 'usd',
          confirmation_method: 'later',
        }),
        400,
        'parameter_invalid',
        'confirmation_method',
      );
      expect((await ok(server.api.get('/v1/payment_intents'))).data).to.deep.equal([]);
    });

    it('fails at once with error_on_requires_action when the card asks for authentication', async () => {
      const res = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method: 'pm_card_authenticationRequired',
        confirm: true,
        error_on_requires_action: true,
      });
      const error = expectError(res, 402, 'authentication_required');
      expect(error.payment_intent).to.include({ status: 'requires_payment_method' });
      const intent = await anIntent(server.api, {});
      const confirmed = await server.api.post(`/v1/payment_intents/${intent.id}/confirm`, {
        payment_method: 'pm_card_authenticationRequired',
        error_on_requires_action: true,
      });
      expectError(confirmed, 402, 'authentication_required');
      const later = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        error_on_requires_action: true,
      });
      expectError(later, 400, 'parameter_invalid', 'error_on_requires_action');
    });

    it('authorises only, with payment_method_options[card][capture_method]=manual', async () => {
      const intent = await anIntent(
        server.api,
        {
          payment_method: 'pm_card_visa',
          confirm: true,
          'payment_method_options[card][capture_method]': 'manual',
        },
        true,
      );
      expect(intent).to.deep.include({
        status: 'requires_capture',
        capture_method: 'automatic',
        amount_capturable: 2000,
        payment_method_options: {
          card: { capture_method: 'manual', request_three_d_secure: 'automatic' },
        },
      });
      const unset = await ok(
        server.api.post(
          `/v1/payment_intents/${(await anIntent(server.api, { payment_method_options: { card: { capture_method: 'manual' } } })).id}`,
          {
            payment_method_options: { card: { capture_method: '' } },
          },
        ),
      );
      expect(unset.payment_method_options).to.deep.equal({
        card: { request_three_d_secure: 'automatic' },
      });
    });

    it('makes the payment method of payment_method_data, and names its field when it is wrong', async () => {
      const intent = await anIntent(
        server.api,
        {
          confirm: true,
          payment_method_data: {
            type: 'card',
            card: { token: 'tok_mastercard' },
            billing_details: { name: 'Jenny Rosen' },
          },
        },
        true,
      );
      expect(intent.status).to.equal('succeeded');
      const method = await ok(server.api.get(`/v1/payment_methods/${intent.payment_method}`));
      expect(method.card.brand).to.equal('mastercard');
      expect(method.billing_details.name).to.equal('Jenny Rosen');
      const wrong = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method_data: { type: 'card', card: { token: 'tok_nothing' } },
      });
      expectError(wrong, 400, 'parameter_invalid', 'payment_method_data[card][token]');
      const both = await server.api.post('/v1/payment_intents', {
        amount: 2000,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        payment_method_data: { type: 'card', card: { token: 'tok_visa' } },
      });
      expectError(both, 400, 'parameter_invalid', 'payment_method_data');
    });

    it('passes shipping and descriptors to its charge, and a capture takes metadata and its own descriptor', async () => {
      const intent = await anIntent(server.api, {
        payment_method: 'pm_card_visa',
        capture_method: 'manual',
        confirm: true,
        shipping: SHIPPING,
        statement_descriptor: 'ACME SHOES',
        metadata: { order: '6735' },
      });
      expect(intent).to.deep.include({
        shipping: STORED_SHIPPING,
        statement_descriptor: 'ACME SHOES',
        statement_descriptor_suffix: null,
      });
      const captured = await ok(
        server.api.post(
          `/v1/payment_intents/${intent.id}/capture`,
          {
            'metadata[shipped]': 'yes',
            statement_descriptor_suffix: 'SHIPPED',
            statement_descriptor: 'ACME BOOTS',
          },
          { form: true },
        ),
      );
      expect(captured).to.deep.include({
        status: 'succeeded',
        metadata: { order: '6735', shipped: 'yes' },
        statement_descriptor: 'ACME BOOTS',
        statement_descriptor_suffix: 'SHIPPED',
      });
      const charge = await ok(server.api.get(`/v1/charges/${captured.latest_charge}`));
      expect(charge).to.deep.include({
        shipping: STORED_SHIPPING,
        statement_descriptor: 'ACME BOOTS',
        calculated_statement_descriptor: 'ACME BOOTS',
      });
      const updated = await ok(
        server.api.post(`/v1/payment_intents/${(await anIntent(server.api, {})).id}`, {
          shipping: SHIPPING,
          statement_descriptor_suffix: 'LATER',
        }),
      );
      expect(updated).to.deep.include({
        shipping: STORED_SHIPPING,
        statement_descriptor_suffix: 'LATER',
      });
    });

    it('refuses a confirmation with the publishable key when confirmation_method is manual', async () => {
      const intent = await anIntent(server.api, {
        confirmation_method: 'manual',
        payment_method: 'pm_card_visa',
      });
      // The account's publishable key, as the list of its keys shows it (in full: it is public).
      const keys = (await ok(server.api.get('/v1/api_keys'))).data as Array<{
        type: string;
        key: string;
      }>;
      const publishable = keys.find((key) => key.type === 'publishable')!.key;
      const res = await fetch(`${server.url}/v1/payment_intents/${intent.id}/confirm`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${publishable}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: `client_secret=${encodeURIComponent(intent.client_secret)}`,
      });
      const body = (await res.json()) as { error: { code: string; param: string } };
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(body.error).to.include({ code: 'parameter_invalid', param: 'client_secret' });
      expect((await ok(server.api.get(`/v1/payment_intents/${intent.id}`))).status).to.equal(
        'requires_confirmation',
      );
    });
  });

  describe("what a charge says of its payment", () => {
    /** The fields of features this server does not offer (Connect, Radar, balances, sources). */
    const NOT_OFFERED = {
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: null,
      failure_balance_transaction: null,
      fraud_details: {},
      on_behalf_of: null,
      review: null,
      source: null,
      source_transfer: null,
      transfer_data: null,
      transfer_group: null,
    };

    /** Asserts that the charge shows the features this server does not offer as that API does when unused. */
    const expectNotOffered = (charge: any) => {
      const { fraud_details, ...nulls } = NOT_OFFERED;
      expect(charge).to.include(nulls);
      expect(charge.fraud_details).to.deep.equal(fraud_details);
    };

    it('names the payment method paid with, shows its card as the payment method does, and the approval', async () => {
      const pm = await ok(
        server.api.post('/v1/payment_methods', {
          type: 'card',
          card: { number: '5555555555554444', exp_month: 3, exp_year: 2033, cvc: '123' },
        }),
      );
      const intent = await anIntent(server.api, { payment_method: pm.id, confirm: true });
      const charge = await ok(server.api.get(`/v1/charges/${intent.latest_charge}`));
      expect(charge.payment_method).to.equal(pm.id);
      expectNotOffered(charge);
      expect(pm.card.checks).to.deep.equal({ address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' });
      expect(charge.payment_method_details).to.deep.equal({
        type: 'card',
        card: documentedCard({ ...pm.card, amount_authorized: 2000 }),
      });
      expect(charge.outcome).to.deep.equal(APPROVED);
    });

    const DECLINES = [
      ['chargeDeclined', 'generic_decline', 'The bank did not return any further details with this decline.'],
      ['chargeDeclinedInsufficientFunds', 'insufficient_funds', 'The bank returned the decline code `insufficient_funds`.'],
      ['chargeDeclinedLostCard', 'lost_card', 'The bank returned the decline code `lost_card`.'],
    ] as const;
    for (const [card, reason, sellerMessage] of DECLINES) {
      it(`shows a charge declined by pm_card_${card} as issuer_declined with reason ${reason}, and its card authorised nothing`, async () => {
        const res = await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', payment_method: `pm_card_${card}`, confirm: true });
        const error = expectError(res, 402, 'card_declined');
        const charge = await ok(server.api.get(`/v1/charges/${error.charge}`));
        const method = error.payment_intent.last_payment_error.payment_method;
        expect(charge).to.include({ status: 'failed', payment_method: method.id });
        expectNotOffered(charge);
        expect(charge.outcome).to.deep.equal(declined(reason, sellerMessage));
        expect(charge.payment_method_details.card).to.deep.equal(
          documentedCard({ ...method.card, amount_authorized: null }),
        );
      });
    }

    it('shows the outcome of a charge made from a declined token, and the same outcome in its charge.failed event', async () => {
      const res = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclinedInsufficientFunds' });
      const error = expectError(res, 402, 'card_declined');
      const charge = await ok(server.api.get(`/v1/charges/${error.charge}`));
      const outcome = declined('insufficient_funds', 'The bank returned the decline code `insufficient_funds`.');
      expect(charge).to.include({ payment_method: null });
      expect(charge.outcome).to.deep.equal(outcome);
      const events = await ok(server.api.get(`/v1/events?type=charge.failed`));
      expect(events.data.map((event: any) => event.data.object)).to.deep.equal([charge]);
    });

    it('serves the outcome and the payment method over GraphQL', async () => {
      const intent = await anIntent(server.api, { payment_method: 'pm_card_visa', confirm: true });
      const res = await graphql(
        server.url,
        server.apiKeys.first,
        `query($id: ID!) {
          charge(id: $id) {
            paymentMethod
            outcome { networkStatus reason riskLevel sellerMessage type }
            card { amountAuthorized brand country fingerprint funding network }
          }
        }`,
        { id: intent.latest_charge },
      );
      expect(res.body.errors).to.equal(undefined);
      const pm = await ok(server.api.get(`/v1/payment_methods/${intent.payment_method}`));
      expect(res.body.data?.charge).to.deep.equal({
        paymentMethod: pm.id,
        outcome: { networkStatus: 'approved_by_network', reason: null, riskLevel: 'normal', sellerMessage: 'Payment complete.', type: 'authorized' },
        card: { amountAuthorized: 2000, brand: 'visa', country: 'US', fingerprint: pm.card.fingerprint, funding: 'credit', network: 'visa' },
      });
    });
  });

  describe('refunds', () => {
    it("updates a refund's metadata (POST or PATCH), keeps its reason, and shows the fields the widely used API always has", async () => {
      const charge = await aCharge(server.api);
      const refund = await ok(
        server.api.post('/v1/refunds', {
          charge: charge.id,
          amount: 500,
          reason: 'requested_by_customer',
          metadata: { ticket: '1' },
        }),
      );
      expect(refund).to.deep.include({
        reason: 'requested_by_customer',
        metadata: { ticket: '1' },
        balance_transaction: null,
        receipt_number: null,
        source_transfer_reversal: null,
        transfer_reversal: null,
      });
      const updated = await ok(
        server.api.post(
          `/v1/refunds/${refund.id}`,
          { 'metadata[ticket]': '', 'metadata[agent]': 'ada' },
          { form: true },
        ),
      );
      expect(updated).to.deep.include({
        metadata: { agent: 'ada' },
        reason: 'requested_by_customer',
        amount: 500,
      });
      const patched = await ok(
        server.api.patch(`/v1/refunds/${refund.id}`, { metadata: { agent: 'grace' } }),
      );
      expect(patched.metadata).to.deep.equal({ agent: 'grace' });
      expect(await ok(server.api.get(`/v1/refunds/${refund.id}`))).to.deep.equal(patched);
      expectError(
        await server.api.post(`/v1/refunds/${refund.id}`, { amount: 1 }),
        400,
        'parameter_unknown',
        'amount',
      );
      expectError(
        await server.otherApi.post(`/v1/refunds/${refund.id}`, { metadata: { a: 'b' } }),
        404,
        'resource_missing',
      );
    });
  });

  describe('webhook endpoints', () => {
    it('keeps the api_version an endpoint is created for, and has no application', async () => {
      const endpoint = await ok(
        server.api.post('/v1/webhook_endpoints', {
          url: 'https://example.com/hooks',
          enabled_events: ['*'],
          api_version: '2025-03-31.basil',
        }),
      );
      expect(endpoint).to.include({ api_version: '2025-03-31.basil', application: null });
      expect(await ok(server.api.get(`/v1/webhook_endpoints/${endpoint.id}`))).to.include({
        api_version: '2025-03-31.basil',
      });
      const plain = await ok(
        server.api.post('/v1/webhook_endpoints', {
          url: 'https://example.com/other',
          enabled_events: ['*'],
        }),
      );
      expect(plain.api_version).to.equal(null);
      const bad = await server.api.post('/v1/webhook_endpoints', {
        url: 'https://example.com/x',
        enabled_events: ['*'],
        api_version: 'latest',
      });
      expectError(bad, 400, 'parameter_invalid', 'api_version');
    });
  });

  describe('over GraphQL', () => {
    it('takes and shows the fields a GraphQL client can use', async () => {
      const created = await graphql(
        server.url,
        server.apiKeys.first,
        `
          mutation {
            createCustomer(
              input: {
                name: "Jenny"
                taxExempt: EXEMPT
                preferredLocales: ["en"]
                address: { line1: "510 Townsend St", postalCode: "94103", country: "US" }
              }
            ) {
              taxExempt
              preferredLocales
              address {
                line1
                postalCode
                country
                city
              }
            }
            createPaymentIntent(
              input: {
                amount: 1099
                currency: "usd"
                automaticPaymentMethods: { enabled: true, allowRedirects: NEVER }
                confirmationMethod: MANUAL
                statementDescriptorSuffix: "ORDER 6735"
                shipping: {
                  name: "Jenny"
                  trackingNumber: "1Z"
                  address: { line1: "510 Townsend St" }
                }
              }
            ) {
              automaticPaymentMethods {
                enabled
                allowRedirects
              }
              confirmationMethod
              paymentMethodTypes
              statementDescriptorSuffix
              shipping {
                name
                trackingNumber
                address {
                  line1
                  postalCode
                }
              }
            }
          }
        `,
      );
      expect(created.body.errors).to.equal(undefined);
      expect(created.body.data).to.deep.equal({
        createCustomer: {
          taxExempt: 'EXEMPT',
          preferredLocales: ['en'],
          address: { line1: '510 Townsend St', postalCode: '94103', country: 'US', city: null },
        },
        createPaymentIntent: {
          automaticPaymentMethods: { enabled: true, allowRedirects: 'NEVER' },
          confirmationMethod: 'MANUAL',
          paymentMethodTypes: ['card'],
          statementDescriptorSuffix: 'ORDER 6735',
          shipping: {
            name: 'Jenny',
            trackingNumber: '1Z',
            address: { line1: '510 Townsend St', postalCode: null },
          },
        },
      });
    });
  });
});
