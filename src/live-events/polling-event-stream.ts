import type { Database } from '../db/database.js';
import type { Logger } from '../logging/logger.js';
import type { Event } from '../resources/events/events.mapper.js';
import type { LocalEventStream } from './event-stream.js';
import { EventStreamUnavailableError } from './event-subscription.js';
import { eventsInSeqRange, newestEventSeq } from '../resources/events/live-events.repo.js';
import { SubscriberRegistry } from './subscriber-registry.js';

/** At most this many `seq` values are read per poll, so that a burst is fanned out in slices. */
const SEQ_WINDOW = 500;

/**
 * The live feed on SQLite: a poller that reads `events` with `seq` above the last one it saw.
 *
 * Guarantees: SQLite has one writer at a time (`BEGIN IMMEDIATE`), and an `AUTOINCREMENT` `seq`
 * is assigned inside that writer's transaction, so events become visible in `seq` order; a reader
 * that has seen `seq` n has seen every committed event up to n, whichever process wrote it. The
 * poller therefore serves this process and any other on the same file. It runs only while someone
 * subscribes, and each subscription starts at the newest `seq` when it was made.
 *
 * Queries run on the process's one connection, in the order they are issued: a subscription's
 * "newest `seq`" is read before any poll issued after it, which is what lets a poll skip the
 * subscriptions whose start it does not know yet (they cannot want anything it read).
 */
export class PollingEventStream implements LocalEventStream {
  private readonly registry: SubscriberRegistry;
  private lastSeq: number | null = null;
  /** The running poll loop, if any (close() waits for it, so that no query outlives the stream). */
  private polling: Promise<void> | undefined;
  private closed = false;
  private sleeper: { timer: NodeJS.Timeout; wake(): void } | undefined;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly options: { bufferLimit: number; pollIntervalMs: number },
  ) {
    this.registry = new SubscriberRegistry(options.bufferLimit);
  }

  get subscriberCount(): number {
    return this.registry.size;
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  subscribe(accountId: string, types: readonly string[] | null): AsyncIterableIterator<Event> {
    const subscription = this.registry.add(accountId, types);
    if (this.closed) {
      subscription.end();
      return subscription;
    }
    subscription.startAfter = Number.POSITIVE_INFINITY;
    const start = newestEventSeq(this.db);
    start.then(
      (seq) => (subscription.startAfter = seq),
      (error: unknown) => subscription.fail(this.unavailable(error)),
    );
    this.polling ??= this.poll(start);
    return subscription;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.registry.endAll();
    this.sleeper?.wake();
    await this.polling;
  }

  /**
   * Reads new events until nobody subscribes any more, pausing between reads when caught up. It
   * starts where the subscription that started it starts, so that subscription misses nothing.
   */
  private async poll(start: Promise<number>): Promise<void> {
    try {
      this.lastSeq = await start.catch(() => null);
      while (!this.closed && this.registry.size > 0) {
        let caughtUp = true;
        try {
          caughtUp = await this.readNewEvents();
        } catch (error) {
          this.logger.error({ err: error }, 'live event poll failed; retrying');
        }
        if (caughtUp) await this.sleep(this.options.pollIntervalMs);
      }
    } finally {
      // Checked and cleared in the same turn as the loop's condition: a subscriber arriving later starts a new poller.
      this.polling = undefined;
      this.lastSeq = null;
    }
  }

  /** One poll: fans out what committed since the last one. Returns whether it read everything there was. */
  private async readNewEvents(): Promise<boolean> {
    const newest = await newestEventSeq(this.db);
    if (this.lastSeq === null || newest < this.lastSeq) {
      // The start could not be read, or the file was replaced: nothing older than now is owed.
      this.lastSeq = newest;
      return true;
    }
    if (newest === this.lastSeq) return true;
    const upTo = Math.min(newest, this.lastSeq + SEQ_WINDOW);
    const rows = await eventsInSeqRange(this.db, { after: this.lastSeq, upTo }, this.registry.accountIds());
    this.lastSeq = upTo;
    this.registry.deliver(rows.map((row) => ({ row, position: Number(row.seq) })));
    return upTo === newest;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleeper = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleeper = { timer, wake };
    });
  }

  private unavailable(error: unknown): Error {
    this.logger.error({ err: error }, 'live events: cannot read the newest event');
    return new EventStreamUnavailableError();
  }
}
