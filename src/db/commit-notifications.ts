import type { Logger } from '../logging/logger.js';
import type { Database } from './database.js';
import { EVENTS_CHANNEL } from './dialect.js';
import type { DatabaseTarget } from './knex.js';
import { startPostgresListener } from './postgres-listener.js';

/** A listening connection that stays up. */
export interface NotificationListener {
  /** Resolves once the first LISTEN is in place. */
  readonly ready: Promise<void>;
  /** Whether it is listening now (false while reconnecting). */
  readonly listening: boolean;
  close(): Promise<void>;
}

/** How a listener reports what it hears, and how it reconnects. */
export interface ListenOptions {
  logger: Logger;
  /** Called with each notification's payload, in commit order. */
  onNotification(payload: string | undefined): void;
  /** Called when an established LISTEN is lost: notifications are missed until it is back. */
  onDropped?(): void;
  /** The first and the longest wait before reconnecting; the wait doubles in between, with ±20% jitter. */
  reconnectDelayMs: { initial: number; max: number };
}

/**
 * How a process hears that another one committed events: the payloads that `announcedInsert`
 * announced with them, delivered on commit, in commit order.
 */
export interface CommitNotifications {
  /** Opens a connection of its own that listens until closed, reconnecting when it drops. */
  listen(options: ListenOptions): NotificationListener;
}

/**
 * The commit notifications of the database at `target`, or undefined when it announces nothing and
 * readers poll the table instead (SQLite). On Postgres: LISTEN on the events channel, over a
 * dedicated connection to the same URL.
 */
export function commitNotificationsOf(target: DatabaseTarget): CommitNotifications | undefined {
  if (target.kind !== 'postgres') return undefined;
  return {
    listen: (options) => startPostgresListener({ ...options, connectionString: target.url, channel: EVENTS_CHANNEL }),
  };
}

/** A process's way of hearing that writes were committed, see {@link listenForCommits}. */
export interface CommitWakeUps {
  /** Whether it hears the commits of every process (Postgres), or only this one's (SQLite). */
  readonly hearsOtherProcesses: boolean;
  close(): Promise<void>;
}

/**
 * Calls `onCommit` soon after writes are committed, for a process that would otherwise poll for
 * them (the webhook worker). Postgres: a LISTEN connection of its own on the events channel, so it
 * hears every process's committed events (and calls `onCommit` when the connection comes back,
 * since notifications are lost while it is down). SQLite: after each commit of this process.
 * Spurious calls are harmless: `onCommit` should only make its caller look again.
 */
export function listenForCommits(
  db: Database,
  target: DatabaseTarget,
  options: { logger: Logger; onCommit(): void; reconnectDelayMs?: { initial: number; max: number } },
): CommitWakeUps {
  const notifications = commitNotificationsOf(target);
  if (notifications) {
    const listener = notifications.listen({
      logger: options.logger,
      onNotification: () => options.onCommit(),
      onDropped: () => options.onCommit(),
      reconnectDelayMs: options.reconnectDelayMs ?? { initial: 250, max: 10_000 },
    });
    return { hearsOtherProcesses: true, close: () => listener.close() };
  }
  const stop = db.onCommit?.(options.onCommit);
  return { hearsOtherProcesses: false, close: async () => void stop?.() };
}
