import { expect } from 'chai';
import type { Client, ExecutionResult } from 'graphql-ws';
import { ApiClient } from '../helpers/api-client.js';
import { startApiProcessesInTurn, type ApiProcess } from '../helpers/api-process.js';
import { aCharge } from '../helpers/builders.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { ARRIVAL_BOUND_MS, bearer, rejectionOf, subscriptionClient } from './live-events.js';

const API_KEY = 'sk_test_liveEventsAcrossProcesses01';

type EventsResult = ExecutionResult<{ events: { type: string; object: { id: string } } }>;

forEachDatabase('GraphQL subscriptions across server processes', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  let database: TestDatabase;
  let processes: ApiProcess[];
  let client: Client | undefined;

  beforeEach(async function () {
    this.timeout(90_000);
    database = await createDatabase(engine);
    processes = [];
    await startApiProcessesInTurn(database.target, { BOOTSTRAP_API_KEY: API_KEY }, 2, processes);
  });
  afterEach(async function () {
    this.timeout(30_000);
    await client?.dispose();
    for (const process of processes) await process.stop();
    await database.drop();
  });

  it('streams to a subscriber of process A the charge created through process B', async function () {
    this.timeout(60_000);
    const [a, b] = processes;
    client = subscriptionClient(`${a.url.replace(/^http/, 'ws')}/graphql`, bearer(API_KEY));
    const results = client.iterate({
      query: 'subscription { events(types: ["charge.succeeded"]) { type object } }',
    }) as AsyncIterableIterator<EventsResult>;
    const arrival = results.next();

    // Process A registers the subscription when its message arrives, which the test cannot see
    // from here: charge through B until one arrives, and check that it is one of B's.
    const throughB = new ApiClient(b.url, API_KEY);
    const created: string[] = [];
    const deadline = Date.now() + ARRIVAL_BOUND_MS;
    let received: IteratorResult<EventsResult> | undefined;
    while (!received) {
      if (Date.now() > deadline) throw new Error(`no event reached process A within ${ARRIVAL_BOUND_MS} ms`);
      created.push((await aCharge(throughB, { amount: 1000 })).id);
      received = await Promise.race([arrival, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 250))]);
    }
    expect(received.done).to.equal(false);
    expect(received.value.errors).to.equal(undefined);
    expect(received.value.data!.events.type).to.equal('charge.succeeded');
    expect(created).to.include(received.value.data!.events.object.id);

    // Shutting A down (SIGTERM) says goodbye to its subscribers rather than leaving them hanging.
    const ending = rejectionOf(results.next());
    await a.stop();
    const closed = (await ending) as unknown as { code: number; reason: string };
    expect(closed).to.deep.include({ code: 1001, reason: 'Going away' });
  });
});
