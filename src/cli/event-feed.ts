/**
 * The account's events, live and without gaps, for `payments listen` and `payments events tail`.
 *
 * Guarantees:
 * - Live: events arrive over the server's GraphQL subscription (graphql-ws on `/graphql`), as
 *   they are committed; each is then read by id over REST, so the handler gets exactly the object
 *   a webhook delivery carries.
 * - No gaps: whenever the connection drops (the server restarts, the network fails, the
 *   subscription is ended as too slow), the feed reconnects with backoff, and on every new
 *   connection reads `GET /v1/events` back to the newest event it had seen, handing over the
 *   events committed meanwhile, oldest first.
 * - No repeats: every event id is handed over at most once per feed, whichever way it came.
 * - Only what happens from the start: events that existed when the feed began are never handed over.
 * - In order: the handler runs for one event at a time.
 */
import { createClient as createWsClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { PaymentsEvent } from '../../sdk/src/generated/events.js';
import type { Connection } from './connection.js';
import { dataOrThrow } from './failures.js';
import { SeenIds } from './seen-ids.js';

/** What the feed needs to be told; `onEvent` runs for one event at a time. */
export interface EventFeedOptions {
  connection: Connection;
  /** Only these event types; all when undefined. */
  types?: ReadonlySet<string>;
  onEvent(event: PaymentsEvent): Promise<void> | void;
  /** A line about the connection (lost, reconnecting, a failed read), for stderr. */
  onStatus(message: string): void;
  /** The server acknowledged a connection: the first (`again` false), or one after a drop. */
  onConnected(again: boolean): void;
}

/** A running feed: `done` settles when it is stopped (resolves) or refused for good (rejects). */
export interface EventFeed {
  done: Promise<void>;
  stop(): void;
}

/** How many event ids a feed remembers: far more than a catch-up window holds. */
const REMEMBERED_IDS = 50_000;
/** How far before the newest event seen a catch-up reads, for events committed out of order. */
const CATCH_UP_SLACK_SECONDS = 30;
/** The most pages (of 100 events) one catch-up reads. */
const CATCH_UP_MAX_PAGES = 50;
/**
 * A connection is caught up twice: at once, and again after this delay, because the server starts
 * the subscription a moment after the connection is acknowledged, and an event committed in that
 * moment is in neither the first read nor the subscription.
 */
const SECOND_CATCH_UP_MS = 1000;
/** Close codes after which reconnecting cannot help: the key was refused. */
const REFUSED_CLOSE_CODES = new Set([4401, 4403]);
/**
 * The GraphQL error codes of a subscription that subscribing again can mend: the stream ended it
 * (too slow, interrupted, unavailable), the rate limit, a passing server error. Any other (a
 * refused key or scope, a refused document) ends the feed.
 */
const PASSING_ERROR_CODES = new Set([
  'SUBSCRIBER_TOO_SLOW',
  'EVENT_STREAM_INTERRUPTED',
  'EVENT_STREAM_UNAVAILABLE',
  'rate_limited',
  'INTERNAL_SERVER_ERROR',
]);

const SUBSCRIPTION = 'subscription PaymentsCliEvents($types: [String!]) { events(types: $types) { id } }';

/** Starts following the account's events; see the module comment for what it guarantees. */
export function followEvents(options: EventFeedOptions): EventFeed {
  let stopped = false;
  let current: Client | undefined;
  let wake: (() => void) | undefined;
  const feed = new FeedState(options);
  let connections = 0;
  const onConnected = (): void => {
    options.onConnected(connections++ > 0);
    feed.catchUpSoon();
  };
  const run = async (): Promise<void> => {
    await feed.markExisting();
    for (let failures = 0; !stopped; ) {
      const outcome = await subscribeOnce(options, feed, onConnected, (client) => (current = client));
      if (stopped) return;
      if (outcome.connected) failures = 0;
      if (outcome.refused) throw new Error(outcome.refused);
      const delayMs = backoffMs(failures++);
      options.onStatus(`${outcome.reason}; reconnecting in ${(delayMs / 1000).toFixed(1)} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  return {
    done: run().finally(() => feed.close()),
    stop() {
      stopped = true;
      void current?.dispose();
      wake?.();
    },
  };
}

interface Outcome {
  /** Whether the connection was acknowledged before it ended. */
  connected: boolean;
  /** Why it ended, for the status line. */
  reason: string;
  /** Set when reconnecting cannot help: the message to fail with. */
  refused?: string;
}

/** One connection and its subscription, until either ends; catches up on every connection. */
function subscribeOnce(
  options: EventFeedOptions,
  feed: FeedState,
  onConnected: () => void,
  expose: (client: Client) => void,
): Promise<Outcome> {
  const { apiBase, apiKey } = options.connection;
  let connected = false;
  const client = createWsClient({
    url: `${apiBase.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${apiKey}` },
    // Reconnecting is this module's own loop, so that every new connection is caught up.
    retryAttempts: 0,
    on: {
      connected: () => {
        connected = true;
        onConnected();
      },
    },
  });
  expose(client);
  const types = options.types ? [...options.types] : null;
  return new Promise<Outcome>((resolve) => {
    const end = (outcome: Omit<Outcome, 'connected'>) => {
      void client.dispose();
      resolve({ connected, ...outcome });
    };
    client.subscribe<{ events: { id: string } }>(
      { query: SUBSCRIPTION, variables: { types } },
      {
        next: (result) => {
          if (result.data) feed.receive(result.data.events.id);
        },
        error: (error) => end(describeEnd(error)),
        complete: () => end({ reason: 'the subscription ended' }),
      },
    );
  });
}

/** Why a connection or subscription ended, and whether that is for good. */
function describeEnd(error: unknown): Omit<Outcome, 'connected'> {
  if (isCloseEvent(error)) {
    const reason = `connection lost (${error.code}${error.reason ? `: ${error.reason}` : ''})`;
    return REFUSED_CLOSE_CODES.has(error.code) ? { reason, refused: `the server refused the connection: ${error.reason || error.code}` } : { reason };
  }
  if (Array.isArray(error)) {
    const first = error[0] as { message?: string; extensions?: { code?: string } } | undefined;
    const reason = `the subscription ended: ${first?.message ?? 'unknown error'}`;
    const code = first?.extensions?.code;
    return code && PASSING_ERROR_CODES.has(code) ? { reason } : { reason, refused: reason };
  }
  return { reason: `cannot connect to the server (${errorText(error)})` };
}

/** An error's message; ws reports a failed connection as an event whose `error` holds the cause. */
function errorText(error: unknown): string {
  const inner = (error as { error?: unknown } | null)?.error ?? error;
  const cause = inner as { code?: unknown; message?: unknown } | null;
  if (typeof cause?.code === 'string') return cause.code;
  return typeof cause?.message === 'string' ? cause.message : String(inner);
}

function isCloseEvent(value: unknown): value is { code: number; reason: string } {
  return typeof value === 'object' && value !== null && 'code' in value && typeof (value as { code: unknown }).code === 'number';
}

/** 0.5 s, 1 s, 2 s, then every 4 s, ±20%: a restarted dev server is found within seconds. */
function backoffMs(failures: number): number {
  return Math.min(500 * 2 ** failures, 4000) * (0.8 + Math.random() * 0.4);
}

/** What the feed has seen, and the one queue every event goes through. */
class FeedState {
  private readonly seen = new SeenIds(REMEMBERED_IDS);
  /** The creation time of the newest event seen; undefined before any. */
  private newest: number | undefined;
  private queue: Promise<void> = Promise.resolve();
  private timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: EventFeedOptions) {}

  /** Marks the events that exist now as seen: the feed hands over only newer ones. */
  async markExisting(): Promise<void> {
    await this.readBack((event) => this.see(event));
  }

  /** An event the subscription announced: read it over REST and hand it over, once. */
  receive(id: string): void {
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.enqueue(async () => {
      let event: PaymentsEvent;
      try {
        event = dataOrThrow(await this.options.connection.client.retrieveEvent(id)) as PaymentsEvent;
      } catch (error) {
        // Not handed over: forgotten, so that the next catch-up finds it.
        this.seen.delete(id);
        throw error;
      }
      this.see(event);
      await this.options.onEvent(event);
    });
  }

  /** Catches up now and once more shortly (see SECOND_CATCH_UP_MS). */
  catchUpSoon(): void {
    this.enqueue(() => this.catchUp());
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(() => this.catchUp());
    }, SECOND_CATCH_UP_MS);
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  /** Hands over, oldest first, the events committed since the newest one seen that were not seen. */
  private async catchUp(): Promise<void> {
    const missed: PaymentsEvent[] = [];
    await this.readBack((event) => {
      if (this.seen.has(event.id)) return;
      // Marked now, so that the live stream, announcing it meanwhile, leaves it to this catch-up.
      this.see(event);
      missed.push(event);
    });
    for (const event of missed.reverse()) {
      if (!this.options.types || this.options.types.has(event.type)) await this.options.onEvent(event);
    }
  }

  /** Reads events newest first, down to CATCH_UP_SLACK_SECONDS before the newest seen. */
  private async readBack(visit: (event: PaymentsEvent) => void): Promise<void> {
    // Before anything is seen, the newest event in the account is the mark.
    let newest = this.newest;
    let startingAfter: string | undefined;
    for (let page = 0; page < CATCH_UP_MAX_PAGES; page++) {
      const answer = await this.options.connection.client.listEvents({ limit: 100, starting_after: startingAfter });
      const list = dataOrThrow(answer);
      for (const event of list.data as PaymentsEvent[]) {
        newest ??= event.created;
        if (event.created < newest - CATCH_UP_SLACK_SECONDS) return;
        visit(event);
      }
      if (!list.has_more || list.data.length === 0) return;
      startingAfter = list.data.at(-1)!.id;
    }
    this.options.onStatus(`caught up on the newest ${CATCH_UP_MAX_PAGES * 100} events only`);
  }

  private see(event: PaymentsEvent): void {
    this.seen.add(event.id);
    if (this.newest === undefined || event.created > this.newest) this.newest = event.created;
  }

  /** Runs `work` after everything queued before it; a failure is reported and the queue goes on. */
  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      this.options.onStatus(`could not read events: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
