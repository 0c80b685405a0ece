import type { Event } from '../resources/events/events.mapper.js';

/**
 * The live feed of committed events, for GraphQL subscriptions. An event is yielded only after
 * the transaction that recorded it has committed, to every subscriber of its account in every
 * process that shares the database.
 */
export interface EventStream {
  /**
   * The account's events committed from now on, of these types (every type when `types` is null
   * or empty), until the caller ends the iteration (`return()`), which releases the subscription.
   */
  subscribe(accountId: string, types: readonly string[] | null): AsyncIterableIterator<Event>;
  /** Ends every subscription and releases the stream's resources (a LISTEN connection, timers). */
  close(): Promise<void>;
}

/** An {@link EventStream} as the process that created it sees it. */
export interface LocalEventStream extends EventStream {
  /** How many subscriptions are open in this process (a gauge for operators; tests wait on it). */
  readonly subscriberCount: number;
  /**
   * Resolves once events committed from now on reach this process's subscribers (on Postgres,
   * once the first LISTEN is in place; at once on SQLite).
   */
  ready(): Promise<void>;
}

/** Tuning of {@link LocalEventStream}s; the defaults suit a server. */
export interface EventStreamOptions {
  /** How many undelivered events one subscriber may have before it is dropped with an error. */
  bufferLimit?: number;
  /** SQLite: how often the `events` table is read while someone subscribes. */
  pollIntervalMs?: number;
  /** Postgres: the first and the longest wait before reconnecting a dropped LISTEN connection. */
  reconnectDelayMs?: { initial: number; max: number };
}
