import { expect } from 'chai';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open-database.js';
import { createEventStream } from '../../src/live-events/create-event-stream.js';
import type { LocalEventStream } from '../../src/live-events/event-stream.js';
import {
  EventStreamInterruptedError,
  EventStreamUnavailableError,
  SubscriberTooSlowError,
} from '../../src/live-events/event-subscription.js';
import type { Event } from '../../src/resources/events/events.mapper.js';
import { recordEvent } from '../../src/resources/events/events.service.js';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { useTestServer } from '../helpers/test-server.js';
import { accountOf, nextValue, rejectionOf } from './live-events.js';

const silent = pino({ level: 'silent' });

forEachDatabase('live event stream', (engine) => {
  let accountId: string;
  /** Streams and connections a test opens besides the server's, closed after it. */
  let extras: Array<{ close(): Promise<void> }>;

  // Before the server's own hook, so that the extras close before the server's database.
  afterEach(async () => {
    for (const extra of extras.reverse()) await extra.close();
  });
  const server = useTestServer(engine);
  beforeEach(async () => {
    accountId = await accountOf(server.db, server.apiKeys.first);
    extras = [];
  });

  /** Another process's view of the same database: its own connection(s) and its own stream. */
  async function secondProcess(options: { bufferLimit?: number } = {}): Promise<{ db: Database; stream: LocalEventStream }> {
    const db = await openDatabase(server.target);
    extras.push(db);
    const stream = createEventStream(db, server.target, silent, options);
    extras.push(stream);
    await stream.ready();
    return { db, stream };
  }

  it("yields a committed charge's events to its account's subscriber, in the order they were recorded", async () => {
    const events = server.eventStream.subscribe(accountId, null);
    const charge = await aCharge(server.api, { amount: 1000 });
    const received = [await nextValue(events), await nextValue(events), await nextValue(events)];
    // A charge is a payment intent made and confirmed in one step.
    expect(received.map((event) => event.type)).to.deep.equal([
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.succeeded',
    ]);
    expect(received[1].data.object).to.deep.equal(charge);
    expect((received[2].data.object as { id: string }).id).to.equal(charge.payment_intent);
    // The very events the REST API lists (newest first there).
    const listed = (await server.api.get('/v1/events?limit=3')).body.data;
    expect([...received].reverse()).to.deep.equal(listed);
    await events.return?.();
  });

  it('yields only the types asked for', async () => {
    const events = server.eventStream.subscribe(accountId, ['charge.failed']);
    await aCharge(server.api);
    const declined = await server.api.post('/v1/charges', { amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    expect(declined.status).to.equal(402);
    const event = await nextValue(events);
    expect(event.type).to.equal('charge.failed');
    expect((event.data.object as { id: string }).id).to.equal(declined.body.error.charge);
    await events.return?.();
  });

  it("never yields another account's events", async () => {
    const events = server.eventStream.subscribe(accountId, null);
    await aCustomer(server.otherApi, { email: 'other@example.com' });
    const mine = await aCustomer(server.api);
    // The other account's event was committed first: had it leaked, it would be the first to arrive.
    const event = await nextValue(events);
    expect(event.type).to.equal('customer.created');
    expect((event.data.object as { id: string }).id).to.equal(mine.id);
    await events.return?.();
  });

  it('yields nothing for a change that was rolled back', async () => {
    const events = server.eventStream.subscribe(accountId, null);
    const rolledBack = server.db.transaction(async (tx) => {
      const ctx = {
        accountId,
        grant: 'all' as const,
        requestId: 'req_rolled_back',
        idempotencyKey: null,
        db: tx,
        clock: server.clock,
        settings: { webhookAllowPrivateNetworks: false },
      };
      await recordEvent(ctx, 'customer.created', {
        id: 'cus_rolled_back',
        object: 'customer',
        created: 0,
        livemode: false,
        email: null,
        name: null,
        description: null,
        phone: null,
        metadata: {},
        invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
        address: null,
        balance: 0,
        currency: null,
        default_source: null,
        delinquent: false,
        discount: null,
        invoice_prefix: '0A1B2C3D',
        next_invoice_sequence: 1,
        preferred_locales: [],
        shipping: null,
        tax_exempt: 'none',
        test_clock: null,
      });
      throw new Error('the change fails after its event was recorded');
    });
    expect((await rejectionOf(rolledBack)).message).to.equal('the change fails after its event was recorded');
    const committed = await aCustomer(server.api);
    const event = await nextValue(events);
    expect((event.data.object as { id: string }).id).to.equal(committed.id);
    await events.return?.();
  });

  it('yields events committed through another connection, as another process on the same database would', async () => {
    const other = await secondProcess();
    const events = other.stream.subscribe(accountId, ['customer.created']);
    const customer = await aCustomer(server.api);
    const event = await nextValue(events);
    expect((event.data.object as { id: string }).id).to.equal(customer.id);
    await events.return?.();
  });

  it('releases a subscription on return(), and ends the open ones on close()', async () => {
    const other = await secondProcess();
    const released = other.stream.subscribe(accountId, null);
    const open = other.stream.subscribe(accountId, null);
    expect(other.stream.subscriberCount).to.equal(2);
    expect(await released.return!()).to.deep.equal({ value: undefined, done: true });
    expect(other.stream.subscriberCount).to.equal(1);
    const pending = open.next();
    await other.stream.close();
    expect(await pending).to.deep.equal({ value: undefined, done: true });
    expect(other.stream.subscriberCount).to.equal(0);
  });

  it('drops a subscriber that falls behind its buffer, with an error, and keeps serving the others', async () => {
    const other = await secondProcess({ bufferLimit: 3 });
    const slow = other.stream.subscribe(accountId, null);
    const reader = other.stream.subscribe(accountId, null);
    // The reader takes each charge's three events before the next charge, so it never holds more
    // than its limit however the notifications are batched; the slow one holds the first three.
    const received: Event[] = [];
    for (let charge = 0; charge < 2; charge++) {
      await aCharge(server.api);
      received.push(await nextValue(reader), await nextValue(reader), await nextValue(reader));
    }
    const chargeEvents = ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded'];
    expect(received.map((event) => event.type)).to.deep.equal([...chargeEvents, ...chargeEvents]);
    // The slow one was handed the same six events without reading any: dropped at the fourth.
    expect(await rejectionOf(slow.next())).to.be.instanceOf(SubscriberTooSlowError);
    expect(await slow.next()).to.deep.equal({ value: undefined, done: true });
    expect(other.stream.subscriberCount).to.equal(1);
    await reader.return?.();
  });

  if (engine === 'postgres') {
    it('ends its subscriptions when the LISTEN connection drops, refuses new ones until it is back, then serves again', async () => {
      // A stream of its own that waits a second before reconnecting, so the gap can be observed.
      const db = await openDatabase(server.target);
      extras.push(db);
      const stream = createEventStream(db, server.target, silent, { reconnectDelayMs: { initial: 1000, max: 1000 } });
      extras.push(stream);
      await stream.ready();
      const events = stream.subscribe(accountId, null);
      const listeners = () =>
        server.db.all<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
        );
      const before = await listeners();
      expect(before, 'the two streams LISTEN on their own connections').to.have.length(2);
      await server.db.one('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY(?)', [
        `{${before.map((row) => row.pid).join(',')}}`,
      ]);

      // Events committed while it is down would be missed: the subscriber is told, not left waiting.
      const interrupted = await rejectionOf(nextValue(events));
      expect(interrupted).to.be.instanceOf(EventStreamInterruptedError);
      expect(await rejectionOf(nextValue(stream.subscribe(accountId, null)))).to.be.instanceOf(EventStreamUnavailableError);

      await eventually(async () => {
        const now = await listeners();
        expect(now.map((row) => row.pid)).to.have.length(2).and.not.include.members(before.map((row) => row.pid));
      }, 10_000);
      // pg_stat_activity shows a LISTEN while it runs; the stream serves once it has returned, so a
      // subscription a moment before that is still refused as unavailable, and is made again.
      await eventually(async () => {
        const again = stream.subscribe(accountId, null);
        try {
          const customer = await aCustomer(server.api);
          const event = await nextValue(again);
          expect((event.data.object as { id: string }).id).to.equal(customer.id);
        } finally {
          await again.return?.();
        }
      }, 10_000);
    });
  }
});
