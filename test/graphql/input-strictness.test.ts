import { expect } from 'chai';
import { aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { graphql, type GraphQLResult } from '../helpers/graphql-client.js';
import { useTestServer } from '../helpers/test-server.js';

const CREATE_CUSTOMER = `mutation ($input: CustomerInput!) { createCustomer(input: $input) { id name description metadata } }`;
const CREATE_CHARGE = `mutation ($input: CreateChargeInput!) { createCharge(input: $input) { id } }`;

forEachDatabase('hostile input over GraphQL', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });

  const send = (document: string, variables?: Record<string, unknown>) =>
    graphql(server.url, server.api.apiKey, document, variables);

  async function count(listPath: string): Promise<number> {
    return (await server.api.get(`${listPath}?limit=100`)).body.data.length;
  }

  /** A request refused before execution: 400, no data, the REST code and param in `extensions`. */
  function expectNulRefusal(res: GraphQLResult, param: string): void {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.data).to.equal(undefined);
    expect(res.body.errors).to.have.length(1);
    const [error] = res.body.errors!;
    expect(error.extensions).to.include({ code: 'parameter_invalid', type: 'invalid_request_error', param });
    expect(error.extensions!.requestId).to.equal(res.headers.get('request-id'));
    expect(error.message).to.include('NUL');
  }

  describe('the NUL character in variables', () => {
    for (const [what, input, param] of [
      ['a value', { name: 'a\u0000b' }, 'variables[input][name]'],
      ['a metadata value', { metadata: { order: '67\u000035' } }, 'variables[input][metadata][order]'],
      ['a metadata key', { metadata: { 'or\u0000der': '6735' } }, 'variables[input][metadata][or\u0000der]'],
    ] as const) {
      it(`refuses it in ${what} of createCustomer, creating nothing`, async () => {
        const before = await count('/v1/customers');
        expectNulRefusal(await send(CREATE_CUSTOMER, { input }), param);
        expect(await count('/v1/customers')).to.equal(before);
      });
    }

    it('refuses it in createCharge, charging nothing', async () => {
      const before = await count('/v1/charges');
      const input = { amount: 100, currency: 'usd', source: 'tok_visa', description: '\u0000' };
      expectNulRefusal(await send(CREATE_CHARGE, { input }), 'variables[input][description]');
      expect(await count('/v1/charges')).to.equal(before);
    });

    it('refuses it in the id of a query', async () => {
      expectNulRefusal(await send('query ($id: ID!) { customer(id: $id) { id } }', { id: '\u0000abc' }), 'variables[id]');
    });

    it('refuses it in a GET request’s variables', async () => {
      const params = new URLSearchParams({
        query: 'query ($id: ID!) { charge(id: $id) { id } }',
        variables: JSON.stringify({ id: 'ch_\u0000' }),
      });
      const res = await fetch(`${server.url}/graphql?${params}`, {
        headers: { Authorization: `Bearer ${server.api.apiKey}`, Accept: 'application/json' },
      });
      expectNulRefusal(
        { status: res.status, headers: res.headers, body: (await res.json()) as GraphQLResult['body'] },
        'variables[id]',
      );
    });
  });

  describe('the NUL character in literals', () => {
    it('refuses it in a mutation literal (\\u0000), creating nothing', async () => {
      const before = await count('/v1/customers');
      expectNulRefusal(await send('mutation { createCustomer(input: {name: "a\\u0000b"}) { id } }'), 'input[name]');
      expectNulRefusal(
        await send('mutation { createCustomer(input: {metadata: {order: "\\u{0}"}}) { id } }'),
        'input[metadata][order]',
      );
      expect(await count('/v1/customers')).to.equal(before);
    });

    it('refuses it in a query literal and in a variable default', async () => {
      expectNulRefusal(await send('{ customer(id: "\\u0000abc") { id } }'), 'id');
      expectNulRefusal(
        await send('{ charges(first: 1, states: [SUCCEEDED], customer: "cus_\\u0000") { edges { cursor } } }'),
        'customer',
      );
      expectNulRefusal(await send('query ($id: ID! = "\\u0000") { customer(id: $id) { id } }'), 'id');
    });

    it('refuses a raw NUL in the document itself, naming query', async () => {
      expectNulRefusal(await send('{ customer(id: "x") { id } } # \u0000'), 'query');
    });
  });

  describe('what stays accepted', () => {
    it('takes other escapes, tabs and newlines as text', async () => {
      const res = await send(
        'mutation { createCustomer(input: {name: "\\u0041da", description: "a\\tb\\nc"}) { id name description } }',
      );
      expect(res.body.errors, JSON.stringify(res.body)).to.equal(undefined);
      expect(res.body.data!.createCustomer).to.include({ name: 'Ada', description: 'a\tb\nc' });
    });

    it('reads a customer by a valid id', async () => {
      const customer = await aCustomer(server.api);
      const res = await send('query ($id: ID!) { customer(id: $id) { id } }', { id: customer.id });
      expect(res.body).to.deep.equal({ data: { customer: { id: customer.id } } });
    });

    it('keeps GraphQL Int strict: a string or a float amount is refused before execution', async () => {
      const before = await count('/v1/charges');
      for (const amount of ['2000', 1.5, '0x10']) {
        const res = await send(CREATE_CHARGE, { input: { amount, currency: 'usd', source: 'tok_visa' } });
        expect(res.body.data ?? null, JSON.stringify(res.body)).to.equal(null);
        expect(res.body.errors![0].extensions!.code).to.equal('BAD_USER_INPUT');
      }
      expect(await count('/v1/charges')).to.equal(before);
    });
  });
});
