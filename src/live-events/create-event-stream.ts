import { commitNotificationsOf } from '../db/commit-notifications.js';
import type { Database } from '../db/database.js';
import type { DatabaseTarget } from '../db/knex.js';
import type { Logger } from '../logging/logger.js';
import type { EventStreamOptions, LocalEventStream } from './event-stream.js';
import { DEFAULT_SUBSCRIBER_BUFFER } from './event-subscription.js';
import { NotifiedEventStream } from './notified-event-stream.js';
import { PollingEventStream } from './polling-event-stream.js';

/**
 * The live event feed for the process's database: fed by the database's commit notifications
 * where it has them (Postgres: one LISTEN connection, opened now, to the same URL), else by a
 * poller of the `events` table (SQLite; running only while someone subscribes). Close it before
 * the database.
 */
export function createEventStream(
  db: Database,
  target: DatabaseTarget,
  logger: Logger,
  options: EventStreamOptions = {},
): LocalEventStream {
  const bufferLimit = options.bufferLimit ?? DEFAULT_SUBSCRIBER_BUFFER;
  const notifications = commitNotificationsOf(target);
  if (notifications) {
    return new NotifiedEventStream(db, notifications, logger, {
      bufferLimit,
      reconnectDelayMs: options.reconnectDelayMs ?? { initial: 250, max: 10_000 },
    });
  }
  return new PollingEventStream(db, logger, { bufferLimit, pollIntervalMs: options.pollIntervalMs ?? 50 });
}
