import type { CommitNotifications, NotificationListener } from '../db/commit-notifications.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../logging/logger.js';
import type { Event } from '../resources/events/events.mapper.js';
import type { LocalEventStream } from './event-stream.js';
import { decodeEventNotice, type EventNotice } from '../resources/events/event-notification.js';
import { eventsByIds } from '../resources/events/live-events.repo.js';
import { SubscriberRegistry } from './subscriber-registry.js';
import { EventStreamInterruptedError, EventStreamUnavailableError } from './event-subscription.js';

/** At most this many events are fetched by one query. */
const FETCH_BATCH = 200;

/**
 * The live feed where the database announces commits (Postgres: LISTEN/NOTIFY): every process
 * listens, and `recordEvent` announces the events in the transaction of each change (see
 * event-notification.ts), which the database delivers on commit, in commit order, to every
 * listening process.
 *
 * A notification names the event's account, id and type. Only those that someone here wants are
 * fetched (several per query, collected while the previous fetch runs) and fanned out in the
 * order they were notified, so a process without subscribers pays nothing but the parse of a
 * short payload. A subscription receives what is notified after it was made, without a gap: if
 * the LISTEN connection drops, every subscription ends with `EVENT_STREAM_INTERRUPTED`, and new
 * ones are refused with `EVENT_STREAM_UNAVAILABLE` until it is back.
 */
export class NotifiedEventStream implements LocalEventStream {
  private readonly registry: SubscriberRegistry;
  private readonly listener: NotificationListener;
  private pending: Array<{ notice: EventNotice; position: number }> = [];
  /** How many notifications this process has received: a subscription receives those after its start. */
  private received = 0;
  /** The running fetch loop, if any (close() waits for it, so that no query outlives the stream). */
  private fetching: Promise<void> | undefined;
  private closed = false;
  /** Whether the LISTEN was ever lost (subscriptions are refused while it is down again). */
  private hasBeenInterrupted = false;

  constructor(
    private readonly db: Database,
    notifications: CommitNotifications,
    private readonly logger: Logger,
    options: { bufferLimit: number; reconnectDelayMs: { initial: number; max: number } },
  ) {
    this.registry = new SubscriberRegistry(options.bufferLimit);
    this.listener = notifications.listen({
      logger,
      reconnectDelayMs: options.reconnectDelayMs,
      onNotification: (payload) => this.noticed(payload),
      onDropped: () => this.interrupted(),
    });
  }

  get subscriberCount(): number {
    return this.registry.size;
  }

  ready(): Promise<void> {
    return this.listener.ready;
  }

  subscribe(accountId: string, types: readonly string[] | null): AsyncIterableIterator<Event> {
    const subscription = this.registry.add(accountId, types);
    subscription.startAfter = this.received;
    if (this.closed) subscription.end();
    // Reconnecting: it would silently miss what is committed until then. (Before the first
    // LISTEN, at start-up, nothing can have been missed yet.)
    else if (this.hasBeenInterrupted && !this.listener.listening) subscription.fail(new EventStreamUnavailableError());
    return subscription;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pending = [];
    this.registry.endAll();
    await this.listener.close();
    await this.fetching;
  }

  /**
   * The LISTEN connection dropped: what is committed until it is back will not be seen, so every
   * subscription ends now with an error that says so, and the pending notices are still fetched.
   */
  private interrupted(): void {
    this.hasBeenInterrupted = true;
    for (const subscription of this.registry.all()) subscription.fail(new EventStreamInterruptedError());
  }

  private noticed(payload: string | undefined): void {
    const position = ++this.received;
    const notice = decodeEventNotice(payload);
    if (!notice) return void this.logger.warn({ payload }, 'live events: ignoring a notification this version cannot read');
    if (this.closed || !this.registry.wants(notice.accountId, notice.type)) return;
    this.pending.push({ notice, position });
    // Deferred, so that the notifications of one network read (one commit, or several) share a query.
    this.fetching ??= new Promise((resolve) => setImmediate(resolve)).then(() => this.fetchPending());
  }

  /** Fetches and fans out the pending notices, one query at a time so that their order holds. */
  private async fetchPending(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.closed) {
        const batch = this.pending.splice(0, FETCH_BATCH);
        try {
          const ids = batch.map(({ notice }) => notice.eventId);
          const byId = new Map((await eventsByIds(this.db, ids)).map((row) => [row.id, row]));
          const entries = batch.flatMap(({ notice, position }) => {
            const row = byId.get(notice.eventId);
            return row ? [{ row, position }] : [];
          });
          if (!this.closed) this.registry.deliver(entries);
        } catch (error) {
          this.logger.error({ err: error, events: batch.map(({ notice }) => notice.eventId) }, 'live events: fetch failed; these events were not streamed');
        }
      }
    } finally {
      this.fetching = undefined;
    }
  }
}
