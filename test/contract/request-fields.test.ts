/**
 * No request field is silently dropped. Generated from the spec: every operation with a request
 * body (create, update, replace, actions) is called with every property its schema declares,
 * once as JSON and once form-encoded, with values built from the schema; each property must come
 * back in the response or be declared `writeOnly: true` in the spec. A new operation or property
 * is covered without touching this file; only prerequisites (an existing id the path or a property
 * must name) are listed here.
 */
import { expect } from 'chai';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { forEachDatabase } from '../helpers/databases.js';
import {
  bodyOperations,
  expandableFields,
  loadSpec,
  requestProperties,
  sampleValue,
  unreflectedProperties,
  type BodyOperation,
  type Observation,
  type Spec,
} from '../helpers/spec-walk.js';
import { ADMIN_AUTHORIZATION, useTestServer } from '../helpers/test-server.js';
import { aClientCertificate } from '../helpers/test-certificates.js';

const spec: Spec = loadSpec();

/** The id of a created object, or a failure showing the response. */
function idOf(response: ApiResponse): string {
  expect(response.status, JSON.stringify(response.body)).to.equal(200);
  return response.body.id as string;
}

/** A client of the same server without an API key, for the operator's requests. */
const asAdmin = (api: ApiClient) => new ApiClient(api.baseUrl);
const adminHeaders = () => ({ Authorization: ADMIN_AUTHORIZATION });

const newCustomer = async (api: ApiClient) => idOf(await api.post('/v1/customers', {}));
const newCharge = async (api: ApiClient) =>
  idOf(await api.post('/v1/charges', { amount: 50_000, currency: 'usd', source: 'tok_visa', customer: await newCustomer(api) }));
/** A charge paid with a saved card by a customer, so that a refund of it can expand both. */
const newCardCharge = async (api: ApiClient) => {
  const paid = await api.post('/v1/payment_intents', {
    amount: 50_000,
    currency: 'usd',
    customer: await newCustomer(api),
    payment_method: 'pm_card_visa',
    confirm: true,
  });
  expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
  return (paid.body as { latest_charge: string }).latest_charge;
};
const newChargeWithoutCustomer = async (api: ApiClient) =>
  idOf(await api.post('/v1/charges', { amount: 50_000, currency: 'usd', source: 'tok_visa' }));
/** An intent in requires_payment_method with a latest charge (a declined attempt), so every field can show. */
const newIntent = async (api: ApiClient) => {
  const declined = await api.post('/v1/payment_intents', {
    amount: 50_000,
    currency: 'usd',
    customer: await newCustomer(api),
    payment_method: 'pm_card_chargeDeclined',
    confirm: true,
  });
  expect(declined.status, JSON.stringify(declined.body)).to.equal(402);
  return (declined.body.error as { payment_intent: { id: string } }).payment_intent.id;
};
/** An intent (and its charge) that is authorised, for a capture of any amount the schema allows. */
const authorisedIntent = async (api: ApiClient) =>
  idOf(
    await api.post('/v1/payment_intents', {
      amount: 99_999_999,
      currency: 'usd',
      customer: await newCustomer(api),
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    }),
  );
/** A saved card, not attached to any customer. */
const newCard = async (api: ApiClient, token = 'tok_visa') =>
  idOf(await api.post('/v1/payment_methods', { type: 'card', card: { token } }));
/** A saved card attached to a new customer. */
const attachedCard = async (api: ApiClient) => {
  const card = await newCard(api);
  idOf(await api.post(`/v1/payment_methods/${card}/attach`, { customer: await newCustomer(api) }));
  return card;
};
/** Operations whose answer has no customer to expand: a new card is attached to none, a detached one no longer. */
const NO_CUSTOMER_YET = new Set(['createPaymentMethod', 'detachPaymentMethod']);
const newEndpoint = async (api: ApiClient) =>
  idOf(await api.post('/v1/webhook_endpoints', { url: 'https://example.com/fixture', enabled_events: ['*'] }));

/**
 * An existing object for each kind of path parameter, by the spec's parameter component; `made`
 * holds those already made for the same path (an order needs its user).
 */
const pathFixtures: Record<string, (api: ApiClient, made: Record<string, string>) => Promise<string>> = {
  AccountId: async (api) =>
    idOf(await asAdmin(api).post('/admin/accounts', { name: 'Fixture', email: 'fixture@example.com' }, { headers: adminHeaders() })),
  ApiKeyId: async (api, made) => idOf(await asAdmin(api).post(`/admin/accounts/${made.AccountId}/api_keys`, {}, { headers: adminHeaders() })),
  OwnApiKeyId: async (api) => idOf(await api.post('/v1/api_keys', { scopes: ['charges:read'] })),
  OAuthClientId: async (api, made) =>
    idOf(await asAdmin(api).post(`/admin/accounts/${made.AccountId}/oauth_clients`, {}, { headers: adminHeaders() })),
  SigningKeyId: async (api, made) =>
    idOf(await asAdmin(api).post(`/admin/accounts/${made.AccountId}/signing_keys`, {}, { headers: adminHeaders() })),
  CustomerId: newCustomer,
  ChargeId: newCharge,
  RefundId: async (api) => idOf(await api.post('/v1/refunds', { charge: await newCardCharge(api), amount: 100 })),
  PaymentIntentId: newIntent,
  PaymentMethodId: (api) => newCard(api),
  // With a customer and a payment method, so that both can be expanded.
  SetupIntentId: async (api) =>
    idOf(await api.post('/v1/setup_intents', { customer: await newCustomer(api), payment_method: await newCard(api) })),
  UserId: async (api) => idOf(await api.post('/v1/users', { email: 'fixture@example.com' })),
  OrderId: async (api, made) => idOf(await api.post(`/v1/users/${made.UserId}/orders`, { amount: 700, currency: 'usd' })),
  WebhookEndpointId: newEndpoint,
  WebhookDeliveryId: async (api) => {
    const endpoint = await newEndpoint(api);
    await newCustomer(api);
    const deliveries = await api.get(`/v1/webhook_deliveries?endpoint=${endpoint}`);
    expect(deliveries.body.data, JSON.stringify(deliveries.body)).to.have.length.above(0);
    return deliveries.body.data[0].id as string;
  },
};

/**
 * Operations whose object must be in a given state for the action to run, by operation and path
 * parameter component (they take precedence over `pathFixtures`).
 */
const actionFixtures: Record<string, Record<string, (api: ApiClient, made: Record<string, string>) => Promise<string>>> = {
  capturePaymentIntent: { PaymentIntentId: authorisedIntent },
  // An intent with both a latest charge and a payment method, so that both can be expanded.
  cancelPaymentIntent: { PaymentIntentId: authorisedIntent },
  // Attached, so that there is a customer to detach from, and one to expand on an update.
  detachPaymentMethod: { PaymentMethodId: (api) => attachedCard(api) },
  updatePaymentMethod: { PaymentMethodId: (api) => attachedCard(api) },
  updatePaymentMethodByPost: { PaymentMethodId: (api) => attachedCard(api) },
  // Without a customer: an update may set one only on a charge that has none.
  updateCharge: { ChargeId: newChargeWithoutCustomer },
  updateChargeByPost: { ChargeId: newChargeWithoutCustomer },
  captureCharge: {
    ChargeId: async (api) =>
      idOf(
        await api.post('/v1/charges', {
          amount: 99_999_999,
          currency: 'usd',
          source: 'tok_visa',
          capture: false,
          customer: await newCustomer(api),
        }),
      ),
  },
  authenticatePaymentIntent: {
    PaymentIntentId: async (api) =>
      idOf(
        await api.post('/v1/payment_intents', {
          amount: 50_000,
          currency: 'usd',
          customer: await newCustomer(api),
          payment_method: 'pm_card_authenticationRequired',
          confirm: true,
        }),
      ),
  },
};

/** What a reference answers for a property left out of this call (one of two that exclude each other). */
const OMIT = Symbol('omit');

/** Whether the operation takes both `payment_method_types` and `automatic_payment_methods` (one per call). */
function takesBothKinds(operation: BodyOperation): boolean {
  const names = requestProperties(spec, operation.requestSchema).map(({ name }) => name);
  return names.includes('payment_method_types') && names.includes('automatic_payment_methods');
}

/**
 * Properties whose valid values must name something real, or that exclude another property; every
 * other value comes from the schema.
 */
const references: Record<
  string,
  (api: ApiClient, seed: number, operation: BodyOperation, body: Record<string, unknown>, url: string) => unknown
> = {
  customer: (api) => newCustomer(api),
  // A refund's charge: paid with a card by a customer, so that `expand` can show both.
  charge: (api) => newCardCharge(api),
  // A refund may name its charge's intent too: the one of the charge already in the body.
  payment_intent: async (api, _seed, _operation, body) =>
    (await api.get(`/v1/charges/${body.charge as string}`)).body.payment_intent as string,
  // A saved card: a test name (`pm_card_visa`) is answered as a new payment method made from it.
  payment_method: (api, seed) => newCard(api, seed % 2 === 0 ? 'tok_visa' : 'tok_mastercard'),
  // A test card number (never shown back), or, on an update, a new expiry.
  card: (_api, seed, operation) =>
    operation.operationId === 'createPaymentMethod'
      ? { number: seed % 2 === 0 ? '4242424242424242' : '5555555555554444', exp_month: 1 + (seed % 12), exp_year: 2030 + (seed % 9), cvc: '123' }
      : { exp_month: 1 + (seed % 12), exp_year: 2030 + (seed % 9) },
  // Either a payment method or the data of a new one: the data in one call of two, the payment method in the other.
  payment_method_data: (_api, seed, _operation, body) => {
    if (seed % 2 === 0) return OMIT;
    delete body.payment_method;
    return { type: 'card', card: { token: 'tok_visa' } };
  },
  // Either automatic payment methods or a list of types (a payment or setup intent takes one of
  // the two at a time): the list in one call of two, the automatic ones in the other, whichever
  // the schema lists first.
  payment_method_types: (_api, seed, operation) => (seed % 2 === 0 && takesBothKinds(operation) ? OMIT : ['card']),
  automatic_payment_methods: (_api, seed, operation) =>
    seed % 2 === 1 && takesBothKinds(operation) ? OMIT : { enabled: true, allow_redirects: 'never' },
  // A default payment method must be attached to the customer first (test/api/payment-methods.test.ts).
  invoice_settings: () => ({ default_payment_method: null }),
  // Confirmed at once, so that the latest charge exists and `expand[]=latest_charge` can show.
  confirm: () => true,
  // A failed authentication leaves no charge to show: the customer completes it.
  outcome: () => 'succeeded',
  source: (_api, seed) => (seed % 2 === 0 ? 'tok_visa' : 'tok_mastercard'),
  // A certificate is registered to one account at a time: every call sends a new one.
  certificate: (_api, seed) => aClientCertificate(`request fields ${seed}`),
  expand: (_api, _seed, operation) =>
    NO_CUSTOMER_YET.has(operation.operationId) ? [] : expandableFields(spec, operation.responseSchema),
  // The client secret of the intent the path names (confirm's URL, less its action).
  client_secret: async (api, _seed, _operation, _body, url) => (await api.get(url.replace(/\/confirm$/, ''))).body.client_secret,
};

async function pathOf(api: ApiClient, operation: BodyOperation): Promise<string> {
  const made: Record<string, string> = {};
  let url = operation.path;
  for (const { name, component } of operation.pathParams) {
    const fixture = component && (actionFixtures[operation.operationId]?.[component] ?? pathFixtures[component]);
    if (!fixture) {
      throw new Error(`${operation.operationId}: no fixture for path parameter ${component ?? name}; add one to pathFixtures`);
    }
    made[component] = await fixture(api, made);
    url = url.replace(`{${name}}`, made[component]);
  }
  return url;
}

async function bodyOf(api: ApiClient, operation: BodyOperation, seed: number, url: string): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  for (const { name, schema } of requestProperties(spec, operation.requestSchema)) {
    const reference = Object.hasOwn(references, name) ? references[name] : undefined;
    const value = reference ? await reference(api, seed, operation, body, url) : sampleValue(spec, schema, seed, name);
    // A reference may leave a property out of this call (one of two that exclude each other).
    if (value !== OMIT) body[name] = value;
  }
  return body;
}

// The token endpoint takes a grant request, not the fields of an object it stores: there is
// nothing to show back (test/api/oauth.test.ts covers what it answers).
const objectOperations = bodyOperations(spec).filter((op) => op.operationId !== 'createAccessToken');

forEachDatabase('request fields are stored or declared writeOnly', (engine) => {
  // Webhook URLs are built by the spec walk; registration checks them apart from this test.
  const server = useTestServer(engine, { webhookAllowPrivateNetworks: true }, { per: 'suite' });
  const observations: Observation[] = [];
  let seed = 0;

  for (const operation of objectOperations) {
    it(`${operation.operationId} (${operation.method.toUpperCase()} ${operation.path}) shows back what it accepts`, async () => {
      const client = operation.security.includes('apiKey') || operation.security.length === 0 ? server.api : server.anonymous;
      const headers: Record<string, string> = client === server.anonymous ? adminHeaders() : {};
      // Consecutive seeds give every property two different values: a server default equals one at most.
      for (const form of [false, true]) {
        seed += 1;
        const url = await pathOf(server.api, operation);
        const sent = await bodyOf(server.api, operation, seed, url);
        const method = operation.method.toUpperCase();
        const response = await client.request<Record<string, unknown>>(method, url, sent, { form, headers });
        const exchange = `${form ? 'form' : 'JSON'} ${JSON.stringify(sent)} → ${JSON.stringify(response.body)}`;
        expect(response.status, exchange).to.equal(200);
        observations.push({ operationId: operation.operationId, sent, received: response.body });
      }
      expect(unreflectedProperties(spec, observations, [operation.operationId])).to.deep.equal([]);
    });
  }

  it('walked every operation with a request body', () => {
    expect(unreflectedProperties(spec, observations, objectOperations.map((op) => op.operationId))).to.deep.equal([]);
  });
});

describe('the request-fields checker', () => {
  /** A spec with one operation, `createWidget`, whose response is a Widget. */
  function widgetSpec(): Spec {
    const owner = { type: 'string', 'x-expansionResources': { oneOf: [{ $ref: '#/components/schemas/Owner' }] } };
    return {
      paths: {
        '/v1/widgets': {
          post: {
            operationId: 'createWidget',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/WidgetParams' } } } },
            responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Widget' } } } } },
          },
        },
      },
      components: {
        schemas: {
          Owner: { type: 'object', properties: { id: { type: 'string' } } },
          Widget: { type: 'object', properties: { name: { type: 'string' }, owner, metadata: { type: 'object' } } },
          WidgetParams: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              color: { type: 'string', enum: ['red', 'blue'] },
              secret: { type: 'string', writeOnly: true },
              owner: { type: 'string' },
              metadata: { type: 'object', additionalProperties: { type: 'string' } },
              expand: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    };
  }
  const sent = { name: 'W', color: 'red', secret: 's3cret', owner: 'own_1', metadata: { a: '1' }, expand: ['owner'] };
  const received = { name: 'W', color: 'red', owner: { id: 'own_1' }, metadata: { a: '1', kept: 'from before' } };

  it('accepts a response showing every property (ids expanded, metadata merged) and not the writeOnly ones', () => {
    expect(unreflectedProperties(widgetSpec(), [{ operationId: 'createWidget', sent, received }])).to.deep.equal([]);
  });

  it('names the operation and the property the server dropped or changed', () => {
    const { color: _dropped, ...withoutColor } = received;
    expect(unreflectedProperties(widgetSpec(), [{ operationId: 'createWidget', sent, received: withoutColor }])).to.deep.equal([
      'createWidget: color (sent "red", the response has no field color; mark it writeOnly in the spec if it is never shown)',
    ]);
    const problems = unreflectedProperties(widgetSpec(), [
      { operationId: 'createWidget', sent, received: { ...received, color: 'blue', metadata: {} } },
    ]);
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/^createWidget: color \(sent "red", got "blue"/);
    expect(problems[1]).to.match(/^createWidget: metadata \(sent \{"a":"1"\}, got \{\}/);
  });

  it('requires each expanded path to hold an object', () => {
    const unexpanded = { ...received, owner: 'own_1' };
    const problems = unreflectedProperties(widgetSpec(), [{ operationId: 'createWidget', sent, received: unexpanded }]);
    expect(problems).to.deep.equal([
      'createWidget: expand (sent ["owner"], not expanded: owner; mark it writeOnly in the spec if it is never shown)',
    ]);
  });

  it('names a property never sent and an operation never called, so nothing is skipped unseen', () => {
    const { secret: _unsent, ...withoutSecret } = sent;
    expect(unreflectedProperties(widgetSpec(), [{ operationId: 'createWidget', sent: withoutSecret, received }])).to.deep.equal([
      'createWidget: secret (never sent)',
    ]);
    expect(unreflectedProperties(widgetSpec(), [])).to.deep.equal(['createWidget: never called']);
  });

  it('fails on the real spec when an optional property is added to a create schema and the server ignores it', () => {
    const copy = loadSpec();
    copy.components.schemas.CustomerCreateParams.properties.nickname = { type: 'string', maxLength: 64 };
    const operation = bodyOperations(copy).find((candidate) => candidate.operationId === 'createCustomer')!;
    // `expand` names what the answer holds expanded (an empty list here: the answer below expands nothing).
    const body = Object.fromEntries(
      requestProperties(copy, operation.requestSchema).map(({ name, schema }) => [
        name,
        name === 'expand' ? [] : sampleValue(copy, schema, 1, name),
      ]),
    );
    expect(body).to.have.property('nickname', 'nickname 1');
    // What the server answers today: every field of the customer, and no nickname.
    const { nickname: _ignored, ...customer } = body;
    const answer = { id: 'cus_1', object: 'customer', created: 1, livemode: false, ...customer };
    const observation = { operationId: 'createCustomer', sent: body, received: answer };
    expect(unreflectedProperties(copy, [observation], ['createCustomer'])).to.deep.equal([
      'createCustomer: nickname (sent "nickname 1", the response has no field nickname; ' +
        'mark it writeOnly in the spec if it is never shown)',
    ]);
  });

  it('builds values that differ between consecutive seeds, and refuses a pattern it cannot meet', () => {
    const real = loadSpec();
    for (const schema of [
      { $ref: '#/components/schemas/OrderStatus' },
      { $ref: '#/components/schemas/Currency' },
      { $ref: '#/components/schemas/Amount' },
      { type: 'boolean' },
      { type: ['string', 'null'], maxLength: 500 },
      { $ref: '#/components/schemas/Metadata' },
    ]) {
      const [one, two] = [sampleValue(real, schema, 1, 'field'), sampleValue(real, schema, 2, 'field')];
      expect(one, JSON.stringify(schema)).to.not.deep.equal(two);
    }
    expect(() => sampleValue(real, { type: 'string', pattern: '^[0-9]+$' }, 1, 'code')).to.throw(/code matching/);
  });

  it('walks the operations under paths that take a body, not the webhooks the spec describes', () => {
    const ids = bodyOperations(loadSpec()).map((operation) => operation.operationId);
    const some = ['createCustomer', 'replaceCustomer', 'updateChargeByPost', 'retryWebhookDelivery', 'createAccount'];
    expect(ids).to.include.members(some);
    expect(ids).to.not.include.members(['listCharges', 'deleteCustomer']);
    expect(ids.every((id) => typeof id === 'string')).to.equal(true);
  });
});
