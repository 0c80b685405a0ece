import { expect } from 'chai';
import { pino } from 'pino';
import { adminCredentialsDigest } from '../../src/auth/authenticator.js';
import { createServices, startRoles, type CompositionConfig } from '../../src/composition.js';
import { loadConfig, type Role } from '../../src/config.js';
import { openDatabase } from '../../src/db/open-database.js';
import { newId } from '../../src/domain/ids.js';
import { purgeExpiredEvents, type EventPurgeLimits } from '../../src/resources/events/events.retention.js';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { createDatabase, forEachDatabase } from '../helpers/databases.js';
import { graphql } from '../helpers/graphql-client.js';
import { FakeClock, testConfig, useTestServer } from '../helpers/test-server.js';

const DAY_MS = 86_400_000;
const RETENTION_DAYS = 30;

forEachDatabase('event retention', (engine) => {
  const server = useTestServer(engine, { webhookAllowPrivateNetworks: true });

  /** An endpoint subscribed to every event: each event recorded from now on has one pending delivery (no worker runs here). */
  async function anEndpoint(): Promise<void> {
    const res = await server.api.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  /** The ids of the account's events, from the API's list. */
  async function listedEventIds(): Promise<string[]> {
    const res = await server.api.get('/v1/events?limit=100');
    expect(res.status).to.equal(200);
    return res.body.data.map((event: any) => event.id);
  }

  /** The deliveries of an event, from the API's list. */
  async function deliveriesOf(eventId: string): Promise<any[]> {
    return (await server.api.get(`/v1/webhook_deliveries?event=${eventId}`)).body.data;
  }

  /** Ends an event's deliveries now, with one attempt each, as the worker would write them. */
  async function endDeliveries(eventId: string, status: 'succeeded' | 'failed'): Promise<void> {
    const nowMs = server.clock.nowMs();
    for (const delivery of await deliveriesOf(eventId)) {
      await server.db.run(
        `INSERT INTO webhook_attempts (delivery_id, account_id, delivery_created, started_at, duration_ms, response_status, response_body, error, manual)
         VALUES (?, ?, ?, ?, 5, ?, NULL, NULL, ?)`,
        [delivery.id, server.accountIds.first, delivery.created, nowMs, status === 'succeeded' ? 200 : 500, false],
      );
      await server.db.run('UPDATE webhook_deliveries SET status = ?, completed_at = ?, attempts = attempts + 1 WHERE id = ?', [
        status,
        nowMs,
        delivery.id,
      ]);
    }
  }

  function purge(limits?: EventPurgeLimits) {
    return purgeExpiredEvents(server.db, server.clock.nowMs(), RETENTION_DAYS, limits);
  }

  async function count(sql: string, params: Array<string | number> = []): Promise<number> {
    return Number((await server.db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${sql}`, params))!.n);
  }

  it('removes an old event whose deliveries succeeded, with its deliveries and attempts, and keeps recent events and every object', async () => {
    const early = await aCustomer(server.api); // recorded before any endpoint: no delivery at all
    await anEndpoint();
    const charge = await aCharge(server.api);
    const old = await listedEventIds();
    expect(old).to.have.length.above(1);
    for (const id of old) await endDeliveries(id, 'succeeded');
    const oldDeliveries = (await Promise.all(old.map(deliveriesOf))).flat().map((d) => d.id);
    expect(oldDeliveries).to.have.length.above(0);

    server.clock.advance(RETENTION_DAYS * DAY_MS + 1000);
    const recentCustomer = await aCustomer(server.api, { email: 'recent@example.com' });
    const recent = (await listedEventIds()).filter((id) => !old.includes(id));
    expect(recent).to.have.length(1);
    await endDeliveries(recent[0], 'succeeded');

    const purged = await purge();
    expect(purged).to.deep.equal({ events: old.length, deliveries: oldDeliveries.length, attempts: oldDeliveries.length });
    expect(await listedEventIds()).to.deep.equal(recent);
    for (const id of old) {
      const error = expectError(await server.api.get(`/v1/events/${id}`), 404, 'resource_missing', 'id');
      expect(error.message).to.equal(`No such event: '${id}'; events are retrievable for 30 days.`);
    }
    for (const id of oldDeliveries) expect((await server.api.get(`/v1/webhook_deliveries/${id}`)).status).to.equal(404);
    expect(await count('webhook_attempts')).to.equal(1);
    expect((await server.api.get(`/v1/events/${recent[0]}`)).status).to.equal(200);
    expect(await deliveriesOf(recent[0])).to.have.length(1);
    for (const path of [`/v1/customers/${early.id}`, `/v1/customers/${recentCustomer.id}`, `/v1/charges/${charge.id}`]) {
      expect((await server.api.get(path)).status, path).to.equal(200);
    }
  });

  it('says how long events are kept in GraphQL too', async () => {
    const result = await graphql(server.url, server.apiKeys.first, 'query($id: ID!) { event(id: $id) { id } }', { id: 'evt_missing' });
    expect(result.body.errors?.[0].message).to.equal("No such event: 'evt_missing'; events are retrievable for 30 days.");
  });

  it('takes an event past retention out of the API at once, before any purge removes it, with its deliveries', async () => {
    await anEndpoint();
    await aCustomer(server.api);
    const [eventId] = await listedEventIds();
    const [delivery] = await deliveriesOf(eventId);
    await endDeliveries(eventId, 'succeeded');
    server.clock.advance(RETENTION_DAYS * DAY_MS + 1000);

    expect(await count('events')).to.equal(1);
    expect((await server.api.get(`/v1/events/${eventId}`)).status).to.equal(404);
    expect(await listedEventIds()).to.deep.equal([]);
    expect((await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).status).to.equal(404);
    expect((await server.api.get('/v1/webhook_deliveries')).body.data).to.deep.equal([]);
  });

  it('keeps an old event while a delivery of it is pending, and removes it once the delivery succeeded', async () => {
    await anEndpoint();
    await aCustomer(server.api);
    const [eventId] = await listedEventIds();
    server.clock.advance(3 * RETENTION_DAYS * DAY_MS);
    expect(await purge()).to.include({ events: 0 });
    expect((await server.api.get(`/v1/events/${eventId}`)).status).to.equal(200);

    await endDeliveries(eventId, 'succeeded');
    expect(await purge()).to.deep.equal({ events: 1, deliveries: 1, attempts: 1 });
    expect(await listedEventIds()).to.deep.equal([]);
  });

  it('keeps an old event whose delivery failed until the failure itself is older than the retention', async () => {
    await anEndpoint();
    await aCustomer(server.api);
    const [eventId] = await listedEventIds();
    server.clock.advance(2 * DAY_MS);
    await endDeliveries(eventId, 'failed');

    server.clock.advance((RETENTION_DAYS - 1) * DAY_MS);
    expect(await purge()).to.include({ events: 0 });
    expect((await server.api.get('/v1/events?delivery_success=false')).body.data.map((e: any) => e.id)).to.deep.equal([eventId]);

    server.clock.advance(DAY_MS + 1000);
    expect(await purge()).to.deep.equal({ events: 1, deliveries: 1, attempts: 1 });
    expect((await server.api.get(`/v1/events/${eventId}`)).status).to.equal(404);
  });

  it('no longer keeps an event for a failed delivery that a manual retry resolved', async () => {
    await anEndpoint();
    await aCustomer(server.api);
    const [eventId] = await listedEventIds();
    await endDeliveries(eventId, 'failed');
    server.clock.advance(10 * DAY_MS);
    const [delivery] = await deliveriesOf(eventId);
    const retried = await server.api.post(`/v1/webhook_deliveries/${delivery.id}/retry`);
    expect(retried.body.status).to.equal('pending');
    await endDeliveries(eventId, 'succeeded');

    // The event is past its 30 days; its delivery ended only 21 days ago, but it succeeded.
    server.clock.advance(RETENTION_DAYS * DAY_MS - 10 * DAY_MS + 1000);
    expect(await purge()).to.deep.equal({ events: 1, deliveries: 1, attempts: 2 });
  });

  it('deletes in batches of the given size, at most the given number per run, past events a delivery keeps', async () => {
    await anEndpoint();
    await aCustomer(server.api); // the oldest event, kept by its pending delivery
    const createdS = Math.floor(server.clock.nowMs() / 1000);
    for (let i = 0; i < 25; i++) {
      await server.db.run(
        `INSERT INTO events (id, account_id, type, api_version, request_id, idempotency_key, data, object_id, pending_webhooks, created)
         VALUES (?, ?, 'customer.created', '2026-11-01', NULL, NULL, '{}', NULL, 0, ?)`,
        [newId('event'), server.accountIds.first, createdS],
      );
    }
    server.clock.advance(RETENTION_DAYS * DAY_MS + 1000);
    await aCustomer(server.api, { email: 'recent@example.com' });

    expect(await purge({ batchSize: 10, maxBatches: 2 })).to.include({ events: 19 });
    expect(await count('events')).to.equal(1 + 25 - 19 + 1);
    expect(await purge({ batchSize: 10 })).to.include({ events: 6 });
    expect(await count('events')).to.equal(2);
  });
});

forEachDatabase('event retention at the start of a process', (engine) => {
  /**
   * Starts a process of `role` over a database holding one event 31 days old, closes it at once
   * (which waits for a retention run under way), and returns how many events are left.
   */
  async function eventsLeftAfterStarting(role: Role): Promise<number> {
    const database = await createDatabase(engine);
    const db = await openDatabase(database.target);
    try {
      const clock = new FakeClock();
      await db.run(
        `INSERT INTO events (id, account_id, type, api_version, request_id, idempotency_key, data, object_id, pending_webhooks, created)
         VALUES (?, 'acct_x', 'customer.created', '2026-11-01', NULL, NULL, '{}', NULL, 0, ?)`,
        [newId('event'), Math.floor((clock.nowMs() - 31 * DAY_MS) / 1000)],
      );
      const config: CompositionConfig = { ...testConfig(), role };
      const services = await createServices(config, {
        target: database.target,
        db,
        clock,
        logger: pino({ level: 'silent' }),
        adminDigest: adminCredentialsDigest('admin:password'),
        metrics: false,
      });
      const roles = await startRoles(services, { cutConnectionsOnClose: true });
      await roles.close();
      return Number((await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM events'))!.n);
    } finally {
      await db.close();
      await database.drop();
    }
  }

  it('purges once as a worker starts', async () => {
    expect(await eventsLeftAfterStarting('worker')).to.equal(0);
  });

  it('never purges in ROLE=api', async () => {
    expect(await eventsLeftAfterStarting('api')).to.equal(1);
  });
});

describe('EVENT_RETENTION_DAYS', () => {
  it('is 30 days unless set, and a whole number of at least 1', () => {
    expect(loadConfig({}).eventRetentionDays).to.equal(30);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '7' }).eventRetentionDays).to.equal(7);
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '0' })).to.throw('EVENT_RETENTION_DAYS must be at least 1');
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '1.5' })).to.throw('EVENT_RETENTION_DAYS must be a whole number');
  });
});
