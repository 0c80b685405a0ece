import { expect } from 'chai';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { firstErrorCode, graphql } from '../helpers/graphql-client.js';
import { useTestServer } from '../helpers/test-server.js';

const CREATE_CHARGE = `mutation ($input: CreateChargeInput!, $key: String) {
  createCharge(input: $input, idempotencyKey: $key) { id amount state customer { id } }
}`;

forEachDatabase('GraphQL mutations', (engine) => {
  const server = useTestServer(engine);
  const send = (document: string, variables?: Record<string, unknown>, headers?: Record<string, string>) =>
    graphql(server.url, server.api.apiKey, document, variables, { headers });

  it('creates a charge through the same service as REST: same object, same events', async () => {
    const customer = await aCustomer(server.api);
    const res = await send(CREATE_CHARGE, { input: { amount: 2500, currency: 'USD', source: 'tok_visa', customer: customer.id } });
    expect(res.body.errors).to.equal(undefined);
    const charge = res.body.data!.createCharge;
    expect(charge).to.include({ amount: 2500, state: 'SUCCEEDED' });
    expect(charge.customer).to.deep.equal({ id: customer.id });
    const rest = await server.api.get(`/v1/charges/${charge.id}`);
    expect(rest.body).to.include({ amount: 2500, currency: 'usd', customer: customer.id, status: 'succeeded' });
    const events = await server.api.get('/v1/events?type=charge.succeeded');
    expect(events.body.data.map((e: any) => e.data.object.id)).to.deep.equal([charge.id]);
    expect(events.body.data[0].request.id).to.equal(res.headers.get('request-id'));
  });

  it('reports a decline as card_declined with the failed charge, which is recorded', async () => {
    const res = await send(CREATE_CHARGE, { input: { amount: 500, currency: 'usd', source: 'tok_chargeDeclined' } });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ createCharge: null });
    const error = res.body.errors![0];
    expect(error.path).to.deep.equal(['createCharge']);
    expect(error.extensions).to.include({ code: 'card_declined', type: 'card_error', declineCode: 'generic_decline' });
    const failed = await server.api.get(`/v1/charges/${error.extensions!.charge}`);
    expect(failed.body).to.include({ status: 'failed', failure_code: 'card_declined' });
  });

  it("sets a charge's customer while it has none, and refuses another one with the parameter named", async () => {
    const UPDATE = `mutation ($id: ID!, $input: UpdateChargeInput!) { updateCharge(id: $id, input: $input) { id customer { id } } }`;
    const charge = await aCharge(server.api);
    const [first, second] = [await aCustomer(server.api), await aCustomer(server.api)];
    const set = await send(UPDATE, { id: charge.id, input: { customer: first.id } });
    expect(set.body.errors).to.equal(undefined);
    expect(set.body.data!.updateCharge).to.deep.equal({ id: charge.id, customer: { id: first.id } });
    const refused = await send(UPDATE, { id: charge.id, input: { customer: second.id } });
    expect(refused.body.errors![0].extensions).to.include({ code: 'parameter_invalid', param: 'customer' });
    expect((await server.api.get(`/v1/charges/${charge.id}`)).body.customer).to.equal(first.id);
  });

  it('validates input with the rules of the spec, naming the parameter', async () => {
    const negative = await send(CREATE_CHARGE, { input: { amount: -5, currency: 'usd', source: 'tok_visa' } });
    expect(negative.body.errors![0].extensions).to.include({ code: 'parameter_invalid', param: 'amount' });
    const badCurrency = await send(CREATE_CHARGE, { input: { amount: 100, currency: 'dollars', source: 'tok_visa' } });
    expect(badCurrency.body.errors![0].extensions).to.include({ code: 'parameter_invalid', param: 'currency' });
    const badMetadata = await send(CREATE_CHARGE, {
      input: { amount: 100, currency: 'usd', source: 'tok_visa', metadata: { ['k'.repeat(41)]: 'v' } },
    });
    expect(badMetadata.body.errors![0].extensions).to.include({ code: 'parameter_invalid' });
    const wrongType = await send(CREATE_CHARGE, { input: { amount: '100', currency: 'usd', source: 'tok_visa' } });
    expect(firstErrorCode(wrongType)).to.equal('BAD_USER_INPUT');
    const charges = await server.api.get('/v1/charges');
    expect(charges.body.data).to.have.length(0);
  });

  it('runs mutations in order: a refund that no longer fits fails while the earlier ones keep their results', async () => {
    const charge = await aCharge(server.api, { amount: 1000 });
    const res = await send(`mutation {
      first: createRefund(input: { charge: "${charge.id}", amount: 600 }) { id amount }
      second: createRefund(input: { charge: "${charge.id}", amount: 600 }) { id amount }
      third: createRefund(input: { charge: "${charge.id}", amount: 400 }) { id amount charge { amountRefunded refunded } }
    }`);
    expect(res.body.data!.first.amount).to.equal(600);
    expect(res.body.data!.second).to.equal(null);
    expect(res.body.data!.third.charge).to.deep.equal({ amountRefunded: 1000, refunded: true });
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors![0].path).to.deep.equal(['second']);
    expect(res.body.errors![0].extensions!.code).to.equal('amount_too_large');
  });

  it('makes createCharge idempotent by argument: the same key returns the same charge, once', async () => {
    const variables = { input: { amount: 700, currency: 'usd', source: 'tok_visa' }, key: 'order-6735' };
    const [a, b] = await Promise.all([send(CREATE_CHARGE, variables), send(CREATE_CHARGE, variables)]);
    const c = await send(CREATE_CHARGE, variables);
    const ids = [a, b, c].map((r) => r.body.data?.createCharge?.id).filter(Boolean);
    expect(new Set(ids).size).to.equal(1);
    const list = await server.api.get('/v1/charges');
    expect(list.body.data).to.have.length(1);
    const other = await send(CREATE_CHARGE, { ...variables, input: { ...variables.input, amount: 701 } });
    expect(firstErrorCode(other)).to.equal('idempotency_key_reused');
  });

  it('shares idempotency keys with REST: the header and the argument name the same stored request', async () => {
    const body = { amount: 900, currency: 'usd', source: 'tok_visa' };
    const rest = await server.api.post('/v1/charges', body, { headers: { 'Idempotency-Key': 'shared-key' } });
    expect(rest.status).to.equal(200);
    const viaHeader = await send(CREATE_CHARGE, { input: body }, { 'Idempotency-Key': 'shared-key' });
    expect(viaHeader.body.data!.createCharge.id).to.equal(rest.body.id);
    const viaArgument = await send(CREATE_CHARGE, { input: body, key: 'shared-key' });
    expect(viaArgument.body.data!.createCharge.id).to.equal(rest.body.id);
    expect((await server.api.get('/v1/charges')).body.data).to.have.length(1);
  });

  it('refuses the Idempotency-Key header on a document with several mutations', async () => {
    const res = await send(
      `mutation { a: createCustomer(input: { name: "A" }) { id } b: createCustomer(input: { name: "B" }) { id } }`,
      undefined,
      { 'Idempotency-Key': 'one-key' },
    );
    expect(res.body.errors!.map((e) => e.extensions!.param)).to.deep.equal(['Idempotency-Key', 'Idempotency-Key']);
    expect((await server.api.get('/v1/customers')).body.data).to.have.length(0);
  });

  it('creates, updates and deletes customers and webhook endpoints', async () => {
    const created = await send('mutation { createCustomer(input: { email: "jenny@example.com", metadata: { tier: "gold" } }) { id email metadata } }');
    const id = created.body.data!.createCustomer.id;
    expect(created.body.data!.createCustomer.metadata).to.deep.equal({ tier: 'gold' });
    const updated = await send(`mutation { updateCustomer(id: "${id}", input: { name: "Jenny", metadata: { tier: "" } }) { name metadata } }`);
    expect(updated.body.data!.updateCustomer).to.deep.equal({ name: 'Jenny', metadata: {} });
    const deleted = await send(`mutation { deleteCustomer(id: "${id}") { id deleted } }`);
    expect(deleted.body.data!.deleteCustomer).to.deep.equal({ id, deleted: true });
    const again = await send(`mutation { deleteCustomer(id: "${id}") { id } }`);
    expect(firstErrorCode(again)).to.equal('resource_missing');

    const endpoint = await send(`mutation { createWebhookEndpoint(input: { url: "https://example.com/hooks", enabledEvents: ["charge.succeeded"] }) {
      secret endpoint { id url enabledEvents disabled } } }`);
    const made = endpoint.body.data!.createWebhookEndpoint;
    expect(made.secret).to.match(/^whsec_/);
    expect(made.endpoint).to.include({ url: 'https://example.com/hooks', disabled: false });
    const disabled = await send(`mutation { updateWebhookEndpoint(id: "${made.endpoint.id}", input: { disabled: true, enabledEvents: ["*"] }) { disabled enabledEvents } }`);
    expect(disabled.body.data!.updateWebhookEndpoint).to.deep.equal({ disabled: true, enabledEvents: ['*'] });
    const refused = await send('mutation { createWebhookEndpoint(input: { url: "http://169.254.169.254/latest", enabledEvents: ["*"] }) { secret } }');
    expect(refused.body.errors![0].extensions).to.include({ param: 'url' });
  });
});
