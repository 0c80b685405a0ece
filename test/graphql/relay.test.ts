import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { graphql } from '../helpers/graphql-client.js';
import { ADMIN_AUTHORIZATION, useTestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/**
 * A Relay app's fragments, one module each (Relay names a fragment `<Module>_<prop>`): a refetchable
 * customer with a paginated connection (refetched through `Query.node`), and two root connections,
 * one paged forward, one backward from the last page.
 */
const MODULES: Record<string, string> = {
  RelayCustomer: `
    fragment RelayCustomer_customer on Customer
    @refetchable(queryName: "RelayCustomerRefetchQuery")
    @argumentDefinitions(count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" }) {
      name
      email
      charges(first: $count, after: $cursor) @connection(key: "RelayCustomer_charges") {
        edges { node { id amount } }
      }
    }`,
  RelayPaymentIntents: `
    fragment RelayPaymentIntents_query on Query
    @refetchable(queryName: "RelayPaymentIntentsPaginationQuery")
    @argumentDefinitions(count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" }) {
      paymentIntents(first: $count, after: $cursor) @connection(key: "RelayPaymentIntents_paymentIntents") {
        edges { node { id amount } }
      }
    }`,
  RelayCharges: `
    fragment RelayCharges_query on Query
    @refetchable(queryName: "RelayChargesPaginationQuery")
    @argumentDefinitions(count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" }) {
      charges(last: $count, before: $cursor) @connection(key: "RelayCharges_charges") {
        edges { node { id amount } }
      }
    }`,
};

/** The text of a query the Relay compiler generated, as a Relay app sends it. */
type GeneratedQueries = Record<'RelayCustomerRefetchQuery' | 'RelayPaymentIntentsPaginationQuery' | 'RelayChargesPaginationQuery', string>;

/** Runs the Relay compiler on `MODULES` against graphql/schema.graphql, in a temporary project. */
async function compileWithRelay(dir: string): Promise<GeneratedQueries> {
  fs.mkdirSync(path.join(dir, 'src'));
  fs.copyFileSync(path.join(root, 'graphql/schema.graphql'), path.join(dir, 'schema.graphql'));
  // CommonJS artifacts, so that the test can require them.
  const config = { src: './src', schema: './schema.graphql', language: 'javascript', eagerEsModules: false };
  fs.writeFileSync(path.join(dir, 'relay.config.json'), JSON.stringify(config));
  for (const [module, fragment] of Object.entries(MODULES)) {
    fs.writeFileSync(path.join(dir, 'src', `${module}.js`), `graphql\`${fragment}\`;\n`);
  }
  await run(path.join(root, 'node_modules/.bin/relay-compiler'), [], { cwd: dir });
  const load = createRequire(path.join(dir, 'src', '__generated__', 'index.js'));
  const text = (name: string): string => load(`./${name}.graphql.js`).params.text;
  return {
    RelayCustomerRefetchQuery: text('RelayCustomerRefetchQuery'),
    RelayPaymentIntentsPaginationQuery: text('RelayPaymentIntentsPaginationQuery'),
    RelayChargesPaginationQuery: text('RelayChargesPaginationQuery'),
  };
}

describe('GraphQL for Relay', function () {
  // The compiler is a native binary that takes well under a second; the rest is the servers.
  this.timeout(60_000);

  let dir: string | undefined;
  let queries: GeneratedQueries;
  before(async function () {
    requireProcesses(this);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-'));
    queries = await compileWithRelay(dir);
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has the Relay compiler generate a refetch query through Query.node and pagination queries', () => {
    expect(queries.RelayCustomerRefetchQuery).to.match(/node\(id: \$id\)/);
    expect(queries.RelayPaymentIntentsPaginationQuery).to.match(/paymentIntents\(first: \$count, after: \$cursor\)/);
    expect(queries.RelayChargesPaginationQuery).to.match(/charges\(last: \$count, before: \$cursor\)/);
  });

  forEachDatabase('Relay queries', (engine) => {
    const server = useTestServer(engine, {}, { per: 'suite' });

    async function data(document: string, variables: Record<string, unknown>, apiKey = server.api.apiKey) {
      const res = await graphql(server.url, apiKey, document, variables);
      expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
      return res.body.data!;
    }
    const ids = (connection: { edges: Array<{ node: { id: string } }> }) => connection.edges.map((edge) => edge.node.id);

    it('refetches a customer by its id and pages its charges with the generated query', async () => {
      const customer = await aCustomer(server.api, { name: 'Relay Rosen' });
      const charges = [];
      for (let i = 0; i < 3; i++) charges.push((await aCharge(server.api, { customer: customer.id, amount: 100 + i })).id);
      const first = (await data(queries.RelayCustomerRefetchQuery, { id: customer.id })).node;
      expect(first).to.include({ __typename: 'Customer', id: customer.id, name: 'Relay Rosen' });
      expect(ids(first.charges)).to.deep.equal([charges[2], charges[1]]);
      expect(first.charges.pageInfo).to.include({ hasNextPage: true, endCursor: charges[1] });

      const next = (await data(queries.RelayCustomerRefetchQuery, { id: customer.id, cursor: first.charges.pageInfo.endCursor })).node;
      expect(ids(next.charges)).to.deep.equal([charges[0]]);
      expect(next.charges.pageInfo.hasNextPage).to.equal(false);
    });

    it("answers null for another account's id, and for an id of nothing", async () => {
      const theirs = await aCustomer(server.otherApi);
      expect((await data(queries.RelayCustomerRefetchQuery, { id: theirs.id })).node).to.equal(null);
      expect((await data(queries.RelayCustomerRefetchQuery, { id: 'cus_doesNotExist' })).node).to.equal(null);
      expect((await data(queries.RelayCustomerRefetchQuery, { id: 'not-an-id' })).node).to.equal(null);
    });

    it('pages payment intents forward with the generated query', async () => {
      const created = [];
      for (let i = 0; i < 3; i++) created.push((await server.api.post('/v1/payment_intents', { amount: 500 + i, currency: 'usd' })).body.id);
      const first = (await data(queries.RelayPaymentIntentsPaginationQuery, { count: 2 })).paymentIntents;
      expect(ids(first)).to.deep.equal([created[2], created[1]]);
      expect(first.pageInfo.hasNextPage).to.equal(true);
      const next = (await data(queries.RelayPaymentIntentsPaginationQuery, { count: 2, cursor: first.pageInfo.endCursor })).paymentIntents;
      expect(ids(next)[0]).to.equal(created[0]);
    });

    it('answers `last` without `before` with the last page (the oldest charges), and pages back from it', async () => {
      const all = ids((await data('{ charges(first: 100) { edges { node { id } } } }', {})).charges);
      expect(all.length, 'charges of the earlier tests').to.be.at.least(3);
      const last = (await data(queries.RelayChargesPaginationQuery, { count: 2 })).charges;
      expect(ids(last)).to.deep.equal(all.slice(-2));
      expect(last.pageInfo).to.include({ hasPreviousPage: true, startCursor: all.at(-2) });
      const previous = (await data(queries.RelayChargesPaginationQuery, { count: 2, cursor: last.pageInfo.startCursor })).charges;
      expect(ids(previous)).to.deep.equal(all.slice(-4, -2));
    });

    it('reads every type by its id, with `nodes` in the order asked', async () => {
      const customer = await aCustomer(server.api);
      const charge = await aCharge(server.api, { customer: customer.id });
      const refund = (await server.api.post('/v1/refunds', { charge: charge.id, amount: 100 })).body;
      const intent = (await server.api.post('/v1/payment_intents', { amount: 700, currency: 'usd' })).body;
      const event = (await server.api.get('/v1/events?limit=1')).body.data[0];
      const endpoint = (await server.api.post('/v1/webhook_endpoints', { url: 'https://example.com/hook', enabled_events: ['*'] })).body;
      const wanted = [customer, charge, refund, intent, event, endpoint];
      expect(wanted.every((object) => typeof object.id === 'string'), JSON.stringify(wanted)).to.equal(true);

      const result = await data('query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }', {
        ids: [...wanted.map((object) => object.id), 'ord_unknown', charge.id],
      });
      expect(result.nodes).to.deep.equal([
        { __typename: 'Customer', id: customer.id },
        { __typename: 'Charge', id: charge.id },
        { __typename: 'Refund', id: refund.id },
        { __typename: 'PaymentIntent', id: intent.id },
        { __typename: 'Event', id: event.id },
        { __typename: 'WebhookEndpoint', id: endpoint.id },
        null,
        { __typename: 'Charge', id: charge.id },
      ]);
    });

    it('reads the customers of `nodes` in one batch: three cost the statements of one', async () => {
      const customers = [await aCustomer(server.api), await aCustomer(server.api), await aCustomer(server.api)];
      const statementsOf = async (ids: string[]) => {
        const before = server.statementCount();
        await data('query ($ids: [ID!]!) { nodes(ids: $ids) { id ... on Customer { email } } }', { ids });
        return server.statementCount() - before;
      };
      const one = await statementsOf([customers[0].id]);
      expect(await statementsOf(customers.map((customer) => customer.id))).to.equal(one);
    });

    it('holds each object to the scope its type needs: a refused one is null with its error, the others resolve', async () => {
      const customer = await aCustomer(server.api);
      const charge = await aCharge(server.api);
      const res = await server.anonymous.post(`/admin/accounts/${server.accountIds.first}/api_keys`, { scopes: ['customers:read'] }, {
        headers: { Authorization: ADMIN_AUTHORIZATION },
      });
      const key = res.body.secret;
      const answer = await graphql(server.url, key, 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [customer.id, charge.id] });
      expect(answer.body.data).to.deep.equal({ nodes: [{ id: customer.id }, null] });
      expect(answer.body.errors).to.have.length(1);
      expect(answer.body.errors![0].path).to.deep.equal(['nodes', 1]);
      expect(answer.body.errors![0].extensions).to.include({ code: 'insufficient_scope' });
      expect(answer.body.errors![0].message).to.include('charges:read');
    });

    it('refuses more than 100 ids, naming the argument', async () => {
      const ids = Array.from({ length: 101 }, (_, i) => `cus_${i}`);
      const res = await graphql(server.url, server.api.apiKey, 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
      expect(res.body.errors?.[0].extensions).to.include({ code: 'parameter_invalid', param: 'ids' });
    });
  });
});
