import type { Event } from '../resources/events/events.mapper.js';

/** How many undelivered events a subscriber may have before it is dropped, unless told otherwise. */
export const DEFAULT_SUBSCRIBER_BUFFER = 1000;

/**
 * Why the stream ended a subscription early. The message is written for the client, which receives
 * it, with `code`, as the subscription's error.
 */
export class SubscriptionEndedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SubscriptionEndedError';
  }
}

/** The consumer let more than `limit` events pile up. */
export class SubscriberTooSlowError extends SubscriptionEndedError {
  constructor(limit: number) {
    super(
      'SUBSCRIBER_TOO_SLOW',
      `This subscription fell more than ${limit} events behind and was ended. ` +
        'Subscribe again, and catch up with GET /v1/events.',
    );
    this.name = 'SubscriberTooSlowError';
  }
}

/**
 * The stream lost its source (Postgres's LISTEN connection dropped): events committed meanwhile
 * were not received, so the subscription is ended rather than left with a silent gap.
 */
export class EventStreamInterruptedError extends SubscriptionEndedError {
  constructor() {
    super(
      'EVENT_STREAM_INTERRUPTED',
      'The live event stream was interrupted and events may have been missed. ' +
        'Subscribe again, and catch up with GET /v1/events.',
    );
    this.name = 'EventStreamInterruptedError';
  }
}

/** The stream could not start the subscription (the database could not be read, or the stream is reconnecting). */
export class EventStreamUnavailableError extends SubscriptionEndedError {
  constructor() {
    super('EVENT_STREAM_UNAVAILABLE', 'The live event stream is unavailable; subscribe again shortly.');
    this.name = 'EventStreamUnavailableError';
  }
}

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/**
 * One subscriber's events, as an async iterator with a bounded buffer: the stream pushes, the
 * consumer pulls. A consumer that lets more than `limit` events pile up is dropped with
 * {@link SubscriberTooSlowError} (its buffer is freed), so that one slow client cannot make the
 * process's memory grow without bound. `return()` (or `throw()`) ends it and releases it.
 */
export class EventSubscription implements AsyncIterableIterator<Event> {
  /**
   * Where the subscription starts, in its stream's own order (`seq` on SQLite, the count of
   * notifications received on Postgres): events at or before it are older than the subscription.
   */
  startAfter = 0;
  private readonly buffer: Event[] = [];
  private waiting: { resolve(result: IteratorResult<Event>): void; reject(error: unknown): void } | undefined;
  private failure: Error | undefined;
  private ended = false;

  constructor(
    readonly accountId: string,
    private readonly types: ReadonlySet<string> | null,
    private readonly limit: number,
    private readonly release: (subscription: EventSubscription) => void,
  ) {}

  /** Whether this subscriber asked for events of this type. */
  wants(type: string): boolean {
    return this.types === null || this.types.has(type);
  }

  /** Hands an event to the consumer, or buffers it; drops the subscriber when the buffer overflows. */
  push(event: Event): void {
    if (this.ended) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
      return;
    }
    if (this.buffer.length >= this.limit) return this.fail(new SubscriberTooSlowError(this.limit));
    this.buffer.push(event);
  }

  /** Ends the subscription with an error, which the consumer receives after nothing else. */
  fail(error: Error): void {
    if (this.ended) return;
    this.buffer.length = 0;
    this.failure = error;
    this.finish();
  }

  /** Ends the subscription normally: the consumer gets what is buffered, then the end. */
  end(): void {
    if (!this.ended) this.finish();
  }

  next(): Promise<IteratorResult<Event>> {
    const event = this.buffer.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.failure) {
      const failure = this.failure;
      this.failure = undefined;
      return Promise.reject(failure);
    }
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<Event>> {
    this.buffer.length = 0;
    this.failure = undefined;
    this.end();
    return Promise.resolve(DONE);
  }

  throw(error?: unknown): Promise<IteratorResult<Event>> {
    this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private finish(): void {
    this.ended = true;
    this.release(this);
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) return;
    if (this.failure) {
      waiting.reject(this.failure);
      this.failure = undefined;
    } else {
      waiting.resolve(DONE);
    }
  }
}
