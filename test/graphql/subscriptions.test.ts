import { expect } from 'chai';
import type { Client, ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { graphql } from '../helpers/graphql-client.js';
import { useTestServer } from '../helpers/test-server.js';
import { bearer, nextValue, refusalOf, rejectionOf, subscriptionClient } from './live-events.js';

const EVENTS = `subscription Events($types: [String!]) {
  events(types: $types) { id created type apiVersion pendingWebhooks object }
}`;

type EventsResult = ExecutionResult<{ events: { id: string; type: string; object: { id: string } } }>;

forEachDatabase('GraphQL subscriptions over WebSocket', (engine) => {
  let clients: Client[];
  beforeEach(() => {
    clients = [];
  });
  // Before the server's own hook, so that the clients go before their server.
  afterEach(async () => {
    for (const client of clients) await client.dispose();
  });
  const server = useTestServer(engine);

  function client(connectionParams: Record<string, unknown>): Client {
    const created = subscriptionClient(server.wsUrl, connectionParams);
    clients.push(created);
    return created;
  }

  /** Subscribes to `events` and resolves once the server holds the subscription (so nothing later is missed). */
  async function subscribe(apiKey: string, types?: string[]): Promise<AsyncIterableIterator<EventsResult>> {
    const before = server.eventStream.subscriberCount;
    const results = client(bearer(apiKey)).iterate({ query: EVENTS, variables: { types } }) as AsyncIterableIterator<EventsResult>;
    await eventually(() => expect(server.eventStream.subscriberCount).to.equal(before + 1));
    return results;
  }

  async function nextEvent(results: AsyncIterableIterator<EventsResult>) {
    const result = await nextValue(results);
    expect(result.errors).to.equal(undefined);
    return result.data!.events;
  }

  it('streams charge.succeeded, as REST lists it, to a subscriber with the account API key', async () => {
    const results = await subscribe(server.apiKeys.first);
    const charge = (await server.api.post('/v1/charges', { amount: 1000, currency: 'usd', source: 'tok_visa' })).body;
    // A charge is a payment intent made and confirmed in one step: the intent's creation comes first.
    const created = await nextEvent(results);
    expect(created.type).to.equal('payment_intent.created');
    expect(created.object.id).to.equal(charge.payment_intent);
    const event = await nextEvent(results);
    const [listed] = (await server.api.get('/v1/events?type=charge.succeeded')).body.data;
    expect(event).to.deep.equal({
      id: listed.id,
      created: listed.created,
      type: 'charge.succeeded',
      apiVersion: listed.api_version,
      pendingWebhooks: listed.pending_webhooks,
      object: charge,
    });
    expect((await nextEvent(results)).type).to.equal('payment_intent.succeeded');
  });

  it('streams only the types asked for', async () => {
    const results = await subscribe(server.apiKeys.first, ['payment_intent.succeeded']);
    await aCustomer(server.api);
    await aCharge(server.api);
    const event = await nextEvent(results);
    expect(event.type).to.equal('payment_intent.succeeded');
  });

  it("never streams another account's events", async () => {
    const mine = await subscribe(server.apiKeys.first);
    const theirs = await subscribe(server.apiKeys.second);
    const foreign = await aCustomer(server.otherApi, { email: 'other@example.com' });
    const own = await aCustomer(server.api);
    // Each account's first event is its own, though the other's was committed first.
    expect((await nextEvent(mine)).object.id).to.equal(own.id);
    expect((await nextEvent(theirs)).object.id).to.equal(foreign.id);
  });

  it('streams nothing for a refused request, and charge.failed for a declined (committed) charge', async () => {
    const results = await subscribe(server.apiKeys.first);
    const refused = await server.api.post('/v1/charges', { amount: 1000, currency: 'usd', source: 'tok_unknown' });
    expect(refused.status).to.equal(400);
    const declined = await server.api.post('/v1/charges', { amount: 1000, currency: 'usd', source: 'tok_chargeDeclined' });
    expect(declined.status).to.equal(402);
    // The declined charge's intent was created first, and is kept.
    const failed = (await server.api.get(`/v1/charges/${declined.body.error.charge}`)).body;
    const created = await nextEvent(results);
    expect(created.type).to.equal('payment_intent.created');
    expect(created.object.id).to.equal(failed.payment_intent);
    const event = await nextEvent(results);
    expect(event.type).to.equal('charge.failed');
    expect(event.object.id).to.equal(declined.body.error.charge);
  });

  it('accepts the key under a lower-case authorization too', async () => {
    const results = client({ authorization: `Bearer ${server.apiKeys.first}` }).iterate({ query: EVENTS });
    await eventually(() => expect(server.eventStream.subscriberCount).to.equal(1));
    const customer = await aCustomer(server.api);
    expect(((await nextValue(results)) as EventsResult).data!.events.object.id).to.equal(customer.id);
  });

  it('refuses a connection without a valid API key with 4403 and the reason', async () => {
    const wrongKey = await refusalOf(client(bearer('sk_test_thisKeyDoesNotExist0000')));
    expect(wrongKey.code).to.equal(4403);
    expect(wrongKey.reason).to.match(/^Invalid API key provided: sk_test_\*+0000$/);

    const noKey = await refusalOf(client({}));
    expect(noKey).to.deep.equal({
      code: 4403,
      reason: 'Send your API key in the connection_init payload: {"Authorization": "Bearer sk_test_…"}.',
    });
    expect(server.eventStream.subscriberCount).to.equal(0);
  });

  it('refuses queries and mutations over the socket, pointing to HTTP, which still serves them on the same path', async () => {
    const connection = client(bearer(server.apiKeys.first));
    const query = connection.iterate({ query: '{ charges(first: 1) { edges { node { id } } } }' });
    const [queryError] = (await rejectionOf(query.next())) as unknown as Array<{ message: string; extensions: object }>;
    expect(queryError).to.deep.equal({
      message: 'Only subscriptions are served over WebSocket: send this query with HTTP POST /graphql.',
      extensions: { code: 'OPERATION_NOT_SUPPORTED' },
    });
    const mutation = connection.iterate({ query: 'mutation { createCustomer(input: {email: "a@b.c"}) { id } }' });
    const [mutationError] = (await rejectionOf(mutation.next())) as unknown as Array<{ message: string }>;
    expect(mutationError.message).to.include('send this mutation with HTTP POST /graphql');
    expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);

    const overHttp = await graphql(server.url, server.apiKeys.first, '{ charges(first: 1) { edges { node { id } } } }');
    expect(overHttp.status).to.equal(200);
    expect(overHttp.body.data).to.deep.equal({ charges: { edges: [] } });
  });

  it('refuses a NUL character in a variable or a literal, naming it, as over HTTP', async () => {
    const connection = client(bearer(server.apiKeys.first));
    const inVariable = connection.iterate({ query: EVENTS, variables: { types: ['charge.\u0000'] } });
    const [variableError] = (await rejectionOf(inVariable.next())) as unknown as Array<{ extensions: { code: string; param: string } }>;
    expect(variableError.extensions).to.include({ code: 'parameter_invalid', param: 'variables[types][0]' });
    const inLiteral = connection.iterate({ query: 'subscription { events(types: ["a\\u0000"]) { id } }' });
    const [literalError] = (await rejectionOf(inLiteral.next())) as unknown as Array<{ extensions: { code: string; param: string } }>;
    expect(literalError.extensions).to.include({ code: 'parameter_invalid', param: 'types[0]' });
    expect(server.eventStream.subscriberCount).to.equal(0);
  });

  it('closes a connection whose frame is over 1 MB with 1009, writes nothing to the console, and serves the next', async () => {
    const written: unknown[][] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => void written.push(args);
    try {
      const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const closed = new Promise<number>((resolve) => socket.once('close', resolve));
      socket.send('x'.repeat(1024 * 1024 + 1));
      expect(await closed).to.equal(1009);
    } finally {
      console.error = consoleError;
    }
    expect(written, 'console.error calls').to.deep.equal([]);
    const events = await subscribe(server.apiKeys.first);
    const customer = await aCustomer(server.api);
    expect((await nextEvent(events)).object.id).to.equal(customer.id);
  });

  it('upgrades only /graphql to a WebSocket', async () => {
    const elsewhere = new WebSocket(server.wsUrl.replace(/\/graphql$/, '/v1/events'), 'graphql-transport-ws');
    const status = await new Promise<number | undefined>((resolve) => {
      elsewhere.once('unexpected-response', (_request, response) => resolve(response.statusCode));
      elsewhere.once('open', () => resolve(undefined));
      elsewhere.once('error', () => resolve(undefined));
    });
    elsewhere.terminate();
    expect(status).to.equal(404);
  });

  it('answers an invalid subscription with validation errors, and holds it to the same limits as HTTP', async () => {
    const connection = client(bearer(server.apiKeys.first));
    const unknownField = connection.iterate({ query: 'subscription { events { nope } }' });
    const [invalid] = (await rejectionOf(unknownField.next())) as unknown as Array<{ message: string }>;
    expect(invalid.message).to.match(/^Cannot query field "nope" on type "Event"/);
    const tooMany = connection.iterate({
      query: `subscription { events { ${Array.from({ length: 40 }, (_, i) => `a${i}: id`).join(' ')} } }`,
    });
    const [limited] = (await rejectionOf(tooMany.next())) as unknown as Array<{ extensions: { code: string } }>;
    expect(limited.extensions.code).to.equal('TOO_MANY_ALIASES');
    expect(server.eventStream.subscriberCount).to.equal(0);
  });

  it('releases the subscription when the client completes it or goes away', async () => {
    const results = await subscribe(server.apiKeys.first);
    await results.return!();
    await eventually(() => expect(server.eventStream.subscriberCount).to.equal(0));

    await subscribe(server.apiKeys.first);
    await clients.at(-1)!.dispose();
    await eventually(() => expect(server.eventStream.subscriberCount).to.equal(0));
  });
});
