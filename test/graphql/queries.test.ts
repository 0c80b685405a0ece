import { expect } from 'chai';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { firstErrorCode, graphql } from '../helpers/graphql-client.js';
import { startTestServer, useTestServer } from '../helpers/test-server.js';

const CHARGE_FIELDS = `id created amount amountRefunded currency description metadata paid refunded state
  failureCode failureMessage card { brand expMonth expYear last4 } billingDetails { address { city } email name phone taxId } disputed
  customer { id email } refunds { id amount }`;

forEachDatabase('GraphQL queries', (engine) => {
  const server = useTestServer(engine);
  const query = (document: string, variables?: Record<string, unknown>) =>
    graphql(server.url, server.api.apiKey, document, variables);

  it('answers charge(id) with the object REST returns, field by field', async () => {
    const customer = await aCustomer(server.api);
    const charge = await aCharge(server.api, { customer: customer.id, description: 'Order 6735', metadata: { order: '6735' } });
    await server.api.post('/v1/refunds', { charge: charge.id, amount: 500 });
    const rest = (await server.api.get(`/v1/charges/${charge.id}`)).body;

    const res = await query(`query ($id: ID!) { charge(id: $id) { ${CHARGE_FIELDS} } }`, { id: charge.id });
    expect(res.status).to.equal(200);
    expect(res.body.errors).to.equal(undefined);
    expect(res.body.data!.charge).to.deep.equal({
      id: rest.id,
      created: rest.created,
      amount: rest.amount,
      amountRefunded: 500,
      currency: rest.currency,
      description: rest.description,
      metadata: rest.metadata,
      paid: true,
      refunded: false,
      state: 'SUCCEEDED',
      failureCode: null,
      failureMessage: null,
      card: {
        brand: rest.payment_method_details.card.brand,
        expMonth: rest.payment_method_details.card.exp_month,
        expYear: rest.payment_method_details.card.exp_year,
        last4: rest.payment_method_details.card.last4,
      },
      billingDetails: { address: null, email: null, name: null, phone: null, taxId: null },
      disputed: false,
      customer: { id: customer.id, email: customer.email },
      refunds: [{ id: res.body.data!.charge.refunds[0].id, amount: 500 }],
    });
  });

  it("answers refund(id) with the refunded charge's customer and payment method", async () => {
    const customer = await aCustomer(server.api);
    const pm = await server.api.post('/v1/payment_methods', {
      type: 'card',
      card: { token: 'tok_visa' },
      billing_details: { tax_id: '000.000.000-00' },
    });
    const intent = await server.api.post('/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.body.id,
      confirm: true,
    });
    expect(intent.status, JSON.stringify(intent.body)).to.equal(200);
    const refund = (await server.api.post('/v1/refunds', { payment_intent: intent.body.id, amount: 500 })).body;
    const token = (await server.api.post('/v1/refunds', { charge: (await aCharge(server.api)).id })).body;

    const fields = 'id customer { id email } paymentMethod charge { billingDetails { taxId } }';
    const res = await query(`{ a: refund(id: "${refund.id}") { ${fields} } b: refund(id: "${token.id}") { ${fields} } }`);
    expect(res.body.errors).to.equal(undefined);
    expect(res.body.data).to.deep.equal({
      a: {
        id: refund.id,
        customer: { id: customer.id, email: customer.email },
        paymentMethod: pm.body.id,
        charge: { billingDetails: { taxId: '000.000.000-00' } },
      },
      b: { id: token.id, customer: null, paymentMethod: null, charge: { billingDetails: { taxId: null } } },
    });
  });

  it('answers a missing or foreign id with resource_missing and null data', async () => {
    const foreign = await aCharge(server.otherApi);
    const res = await query(`{ charge(id: "${foreign.id}") { id } }`);
    expect(res.body.data).to.deep.equal({ charge: null });
    expect(res.body.errors![0].extensions).to.include({ code: 'resource_missing', param: 'id' });
    expect(res.body.errors![0].path).to.deep.equal(['charge']);
  });

  it('pages charges as a Relay connection whose cursors REST accepts too', async () => {
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await aCharge(server.api, { amount: 1000 + i }));
    const newestFirst = created.reverse().map((c) => c.id);

    const first = await query('{ charges(first: 2) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }');
    const page1 = first.body.data!.charges;
    expect(page1.edges.map((e: any) => e.node.id)).to.deep.equal(newestFirst.slice(0, 2));
    expect(page1.pageInfo).to.deep.equal({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: newestFirst[0],
      endCursor: newestFirst[1],
    });

    const second = await query('query ($after: String) { charges(first: 10, after: $after) { edges { node { id } } pageInfo { hasNextPage hasPreviousPage } } }', {
      after: page1.pageInfo.endCursor,
    });
    expect(second.body.data!.charges.edges.map((e: any) => e.node.id)).to.deep.equal(newestFirst.slice(2));
    expect(second.body.data!.charges.pageInfo).to.deep.equal({ hasNextPage: false, hasPreviousPage: true });

    const rest = await server.api.get(`/v1/charges?limit=10&starting_after=${page1.pageInfo.endCursor}`);
    expect(rest.body.data.map((c: any) => c.id)).to.deep.equal(newestFirst.slice(2));

    const back = await query(`{ charges(last: 1, before: "${newestFirst[2]}") { edges { node { id } } pageInfo { hasNextPage hasPreviousPage } } }`);
    expect(back.body.data!.charges.edges.map((e: any) => e.node.id)).to.deep.equal([newestFirst[1]]);
    expect(back.body.data!.charges.pageInfo).to.deep.equal({ hasNextPage: true, hasPreviousPage: true });
  });

  it('filters charges by state (a single enum value is a list of one) and by customer', async () => {
    const customer = await aCustomer(server.api);
    const ok = await aCharge(server.api, { customer: customer.id });
    await aCharge(server.api);
    const declined = await server.api.post('/v1/charges', { amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    expect(declined.status).to.equal(402);

    const failed = await query('{ charges(first: 10, states: FAILED) { edges { node { id state failureCode } } } }');
    expect(failed.body.data!.charges.edges).to.deep.equal([
      { node: { id: declined.body.error.charge, state: 'FAILED', failureCode: 'card_declined' } },
    ]);
    const both = await query('{ charges(first: 10, states: [SUCCEEDED, FAILED]) { edges { node { id } } } }');
    expect(both.body.data!.charges.edges).to.have.length(3);
    const mine = await query(`{ charges(customer: "${customer.id}") { edges { node { id } } } }`);
    expect(mine.body.data!.charges.edges.map((e: any) => e.node.id)).to.deep.equal([ok.id]);
  });

  it('bounds first at 100 with an error naming the argument', async () => {
    const res = await query('{ charges(first: 101) { edges { node { id } } } }');
    expect(res.body.data).to.equal(null);
    expect(res.body.errors![0].extensions).to.include({ code: 'parameter_invalid', param: 'first' });
  });

  it('nests a customer\'s charges', async () => {
    const customer = await aCustomer(server.api);
    const charges = [await aCharge(server.api, { customer: customer.id }), await aCharge(server.api, { customer: customer.id })];
    await aCharge(server.api);
    const res = await query(`{ customer(id: "${customer.id}") { email charges(first: 1) { edges { node { id } } pageInfo { hasNextPage endCursor } } } }`);
    const connection = res.body.data!.customer.charges;
    expect(connection.edges.map((e: any) => e.node.id)).to.deep.equal([charges[1].id]);
    expect(connection.pageInfo.hasNextPage).to.equal(true);
    const rest = await query(`{ customer(id: "${customer.id}") { charges(first: 5, after: "${connection.pageInfo.endCursor}") { edges { node { id } } pageInfo { hasNextPage } } } }`);
    expect(rest.body.data!.customer.charges.edges.map((e: any) => e.node.id)).to.deep.equal([charges[0].id]);
    expect(rest.body.data!.customer.charges.pageInfo.hasNextPage).to.equal(false);
  });

  it('loads a page of 100 charges with customers, refunds and their charges in a constant number of statements', async () => {
    const statementsFor = async (count: number) => {
      const fresh = await startTestServer(engine);
      try {
        for (let i = 0; i < count; i += 1) {
          const customer = await aCustomer(fresh.api, { email: `c${i}@example.com` });
          const charge = await aCharge(fresh.api, { customer: customer.id });
          await fresh.api.post('/v1/refunds', { charge: charge.id, amount: 100 });
        }
        const before = fresh.statementCount();
        const res = await graphql(
          fresh.url,
          fresh.api.apiKey,
          '{ charges(first: 100) { edges { node { id customer { id email charges(first: 1) { edges { node { id } } } } refunds { id charge { id } } } } } }',
        );
        expect(res.body.errors).to.equal(undefined);
        expect(res.body.data!.charges.edges).to.have.length(count);
        for (const { node } of res.body.data!.charges.edges) {
          expect(node.customer.charges.edges[0].node.id).to.equal(node.id);
          expect(node.refunds[0].charge.id).to.equal(node.id);
        }
        return fresh.statementCount() - before;
      } finally {
        await fresh.close();
      }
    };
    const few = await statementsFor(3);
    const many = await statementsFor(40);
    expect(many).to.equal(few);
    expect(many).to.be.at.most(8);
  });

  it('answers GET for queries, and refuses mutations over GET with 405', async () => {
    const charge = await aCharge(server.api);
    const get = await fetch(`${server.url}/graphql?query=${encodeURIComponent(`{ charge(id: "${charge.id}") { id } }`)}`, {
      headers: { Authorization: `Bearer ${server.api.apiKey}`, Accept: 'application/json' },
    });
    expect(get.status).to.equal(200);
    expect(((await get.json()) as any).data.charge.id).to.equal(charge.id);
    const mutation = encodeURIComponent('mutation { deleteCustomer(id: "cus_x") { id } }');
    const refused = await fetch(`${server.url}/graphql?query=${mutation}`, {
      headers: { Authorization: `Bearer ${server.api.apiKey}`, Accept: 'application/json' },
    });
    expect(refused.status).to.equal(405);
  });

  it('refuses requests without a valid API key with 401 UNAUTHENTICATED', async () => {
    const missing = await graphql(server.url, undefined, '{ charges { edges { cursor } } }');
    expect(missing.status).to.equal(401);
    expect(missing.body.errors![0].extensions).to.deep.equal({ code: 'UNAUTHENTICATED', reason: 'api_key_missing' });
    const wrong = await graphql(server.url, 'sk_test_wrongwrongwrong', '{ charges { edges { cursor } } }');
    expect(wrong.status).to.equal(401);
    expect(firstErrorCode(wrong)).to.equal('UNAUTHENTICATED');
  });

  it('masks an unexpected failure as "Internal server error" with the request id, never the driver message', async () => {
    const charge = await aCharge(server.api);
    await server.db.run('DROP TABLE refunds');
    const res = await query(`{ charge(id: "${charge.id}") { id refunds { id } } }`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ charge: null });
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors![0].message).to.equal('Internal server error');
    expect(res.body.errors![0].extensions!.code).to.equal('INTERNAL_SERVER_ERROR');
    expect(res.body.errors![0].extensions!.requestId).to.equal(res.headers.get('request-id'));
    expect(JSON.stringify(res.body.errors![0].extensions)).not.to.match(/SQL|relation|no such table|stack/i);
  });

  it('reports variables of the wrong type as BAD_USER_INPUT', async () => {
    const res = await query('query ($id: ID!) { charge(id: $id) { id } }', { id: { nested: true } });
    expect(res.body.data).to.equal(undefined);
    expect(firstErrorCode(res)).to.equal('BAD_USER_INPUT');
  });
});
