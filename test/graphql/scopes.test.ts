import { expect } from 'chai';
import {
  getNamedType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLResolveInfo,
} from 'graphql';
import type { Client, ExecutionResult } from 'graphql-ws';
import { FIELD_SCOPES } from '../../src/graphql/field-scopes.js';
import { graphQLSchema } from '../../src/graphql/schema.js';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { graphql, type GraphQLResult } from '../helpers/graphql-client.js';
import { ADMIN_AUTHORIZATION, useTestServer } from '../helpers/test-server.js';
import { accountOf, bearer, nextValue, subscriptionClient } from './live-events.js';

/** A type a field reads when it returns it: a resource (a `Node`) or a page of them. */
function isResourceOrConnection(type: GraphQLNamedType): boolean {
  return isObjectType(type) && (type.getInterfaces().some((i) => i.name === 'Node') || type.name.endsWith('Connection'));
}

/** Every field of the schema's object types, by coordinate, but mutations (their REST operations hold their scopes). */
function fieldsByCoordinate(): Map<string, GraphQLField<unknown, unknown>> {
  const fields = new Map<string, GraphQLField<unknown, unknown>>();
  for (const type of Object.values(graphQLSchema().getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || type.name === 'Mutation') continue;
    for (const field of Object.values(type.getFields())) fields.set(`${type.name}.${field.name}`, field);
  }
  return fields;
}

/** What a field's resolver (a subscription's `subscribe`) does for a key holding no scope at all. */
async function refusalOfNoScope(field: GraphQLField<unknown, unknown>): Promise<unknown> {
  const resolve = field.subscribe ?? field.resolve!;
  const ctx = { request: { grant: new Set() } };
  try {
    await resolve({}, {}, ctx, {} as GraphQLResolveInfo);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('GraphQL field scopes (contract)', () => {
  it('gives every field that returns a resource or a connection an entry in FIELD_SCOPES', () => {
    const missing = [...fieldsByCoordinate()]
      .filter(([coordinate, field]) => isResourceOrConnection(getNamedType(field.type)) && !(coordinate in FIELD_SCOPES))
      .map(([coordinate]) => coordinate);
    expect(missing).to.deep.equal([]);
  });

  it('names only fields of the schema', () => {
    const fields = fieldsByCoordinate();
    expect(Object.keys(FIELD_SCOPES).filter((coordinate) => !fields.has(coordinate))).to.deep.equal([]);
  });

  it('has every scoped field refuse a key without its scope, naming the scope', async () => {
    const fields = fieldsByCoordinate();
    for (const [coordinate, scope] of Object.entries(FIELD_SCOPES)) {
      if (scope === null) continue;
      const error = (await refusalOfNoScope(fields.get(coordinate)!)) as { code?: string; message?: string } | undefined;
      expect(error?.code, coordinate).to.equal('insufficient_scope');
      expect(error?.message, coordinate).to.include(scope);
    }
  });
});

const EVENTS = 'subscription { events { id type object } }';
type EventsResult = ExecutionResult<{ events: { id: string; type: string; object: { id: string } } }>;

forEachDatabase('GraphQL scopes of restricted keys', (engine) => {
  let clients: Client[];
  beforeEach(() => {
    clients = [];
  });
  // Before the server's own hook, so that the clients go before their server.
  afterEach(async () => {
    for (const client of clients) await client.dispose();
  });
  const server = useTestServer(engine);

  /** A restricted key of the first test account, holding `scopes`, issued by the admin endpoint. */
  async function restrictedKey(scopes: string[]): Promise<string> {
    const admin = { Authorization: ADMIN_AUTHORIZATION };
    const accountId = await accountOf(server.db, server.apiKeys.first);
    const res = await server.anonymous.post(`/admin/accounts/${accountId}/api_keys`, { scopes }, { headers: admin });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.secret;
  }

  function expectRefused(res: GraphQLResult, path: string[], scope: string): void {
    const error = res.body.errors?.find((e) => JSON.stringify(e.path) === JSON.stringify(path));
    expect(error, JSON.stringify(res.body.errors)).to.not.equal(undefined);
    expect(error!.extensions).to.include({ code: 'insufficient_scope', type: 'permission_error' });
    expect(error!.message).to.include(scope);
  }

  async function subscribe(apiKey: string): Promise<AsyncIterableIterator<EventsResult>> {
    const client = subscriptionClient(server.wsUrl, bearer(apiKey));
    clients.push(client);
    return client.iterate({ query: EVENTS }) as AsyncIterableIterator<EventsResult>;
  }

  it('reads charges with charges:read, and answers a nested customer without customers:read as null with an error', async () => {
    const customer = await aCustomer(server.api);
    const charge = await aCharge(server.api, { customer: customer.id });
    const key = await restrictedKey(['charges:read']);

    const res = await graphql(server.url, key, `query ($id: ID!) {
      charges(first: 10) { edges { node { id } } }
      charge(id: $id) { id amount customer { id } }
    }`, { id: charge.id });
    expect(res.status).to.equal(200);
    // Partial data: the fields the key may read resolve; the one it may not is null, with its error.
    expect(res.body.data).to.deep.equal({
      charges: { edges: [{ node: { id: charge.id } }] },
      charge: { id: charge.id, amount: 2000, customer: null },
    });
    expect(res.body.errors).to.have.length(1);
    expectRefused(res, ['charge', 'customer'], 'customers:read');
  });

  it("answers a refund's customer without customers:read as null with an error, its payment method's id with refunds:read", async () => {
    const customer = await aCustomer(server.api);
    const charge = await aCharge(server.api, { customer: customer.id });
    const refund = (await server.api.post('/v1/refunds', { charge: charge.id, amount: 100 })).body;
    const key = await restrictedKey(['refunds:read']);

    const res = await graphql(server.url, key, `query ($id: ID!) { refund(id: $id) { id paymentMethod customer { id } } }`, {
      id: refund.id,
    });
    expect(res.body.data).to.deep.equal({ refund: { id: refund.id, paymentMethod: null, customer: null } });
    expect(res.body.errors).to.have.length(1);
    expectRefused(res, ['refund', 'customer'], 'customers:read');
  });

  it('refuses a root field without its scope while the others of the document resolve', async () => {
    const customer = await aCustomer(server.api);
    const key = await restrictedKey(['charges:read']);
    const res = await graphql(server.url, key, `query ($id: ID!) { customer(id: $id) { id } charges { edges { node { id } } } }`, {
      id: customer.id,
    });
    expect(res.body.data).to.deep.equal({ customer: null, charges: { edges: [] } });
    expectRefused(res, ['customer'], 'customers:read');
  });

  it('nulls the parent of a non-null field refused, as GraphQL does', async () => {
    const charge = await aCharge(server.api);
    await server.api.post('/v1/refunds', { charge: charge.id, amount: 500 });
    const key = await restrictedKey(['charges:read']);
    const res = await graphql(server.url, key, `query ($id: ID!) { charge(id: $id) { id refunds { id } } }`, { id: charge.id });
    expect(res.body.data).to.deep.equal({ charge: null });
    expectRefused(res, ['charge', 'refunds'], 'refunds:read');
  });

  it('answers a key holding every scope a document reads as it answers the secret key', async () => {
    const customer = await aCustomer(server.api);
    const charge = await aCharge(server.api, { customer: customer.id });
    const refund = (await server.api.post('/v1/refunds', { charge: charge.id, amount: 500 })).body;
    const document = `query ($customer: ID!, $refund: ID!) {
      customer(id: $customer) { id charges(first: 5) { edges { node { id refunds { id } } } } }
      refund(id: $refund) { id charge { id customer { email } } }
    }`;
    const variables = { customer: customer.id, refund: refund.id };
    const key = await restrictedKey(['customers:read', 'charges:read', 'refunds:read']);
    const restricted = await graphql(server.url, key, document, variables);
    expect(restricted.body.errors).to.equal(undefined);
    expect(restricted.body).to.deep.equal((await graphql(server.url, server.apiKeys.first, document, variables)).body);
  });

  it('refuses createCharge without charges:write, creating nothing', async () => {
    const key = await restrictedKey(['charges:read', 'customers:write']);
    const res = await graphql(
      server.url,
      key,
      'mutation { createCharge(input: { amount: 2000, currency: "usd", source: "tok_visa" }) { id } }',
    );
    expect(res.body.data).to.deep.equal({ createCharge: null });
    expectRefused(res, ['createCharge'], 'charges:write');
    expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
  });

  it('refuses a subscription to events without events:read, at subscribe time', async () => {
    const key = await restrictedKey(['charges:read']);
    const before = server.eventStream.subscriberCount;
    const results = await subscribe(key);
    const result = await nextValue(results);
    expect(result.data ?? null).to.equal(null);
    expect(result.errors).to.have.length(1);
    expect(result.errors![0].extensions).to.include({ code: 'insufficient_scope' });
    expect(result.errors![0].message).to.include('events:read');
    expect((await results.next()).done).to.equal(true);
    expect(server.eventStream.subscriberCount).to.equal(before);
  });

  it('streams events to a key holding events:read', async () => {
    const key = await restrictedKey(['events:read']);
    const before = server.eventStream.subscriberCount;
    const results = await subscribe(key);
    await eventually(() => expect(server.eventStream.subscriberCount).to.equal(before + 1));
    const customer = await aCustomer(server.api);
    const result = await nextValue(results);
    expect(result.errors).to.equal(undefined);
    expect(result.data!.events).to.include({ type: 'customer.created' });
    expect(result.data!.events.object.id).to.equal(customer.id);
  });
});
