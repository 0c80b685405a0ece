import pg from 'pg';
import type { ListenOptions, NotificationListener } from './commit-notifications.js';
import { APPLICATION_NAME } from './postgres.js';
import { createOutageLog } from '../logging/outage-log.js';

export interface PostgresListenerOptions extends ListenOptions {
  connectionString: string;
  channel: string;
}

/**
 * One dedicated connection that LISTENs on a channel, and reconnects with backoff when it drops.
 *
 * Notifications sent while it is down are lost to it (Postgres queues them only for sessions that
 * are listening): its loss is logged at `warn`, again at most once a minute while it is down, and
 * its return with how long it was down.
 */
export function startPostgresListener(options: PostgresListenerOptions): NotificationListener {
  const { logger, channel } = options;
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let attempt = 0;
  const outage = createOutageLog(logger, 'the LISTEN connection (live events and worker wake-ups)');
  let retryTimer: NodeJS.Timeout | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const connect = async (): Promise<void> => {
    retryTimer = undefined;
    const candidate = new pg.Client({ connectionString: options.connectionString, keepAlive: true, application_name: `${APPLICATION_NAME}-listen` });
    client = candidate;
    // Registered before connect(): a connection that fails later reports through these.
    candidate.on('error', (error) => dropped(candidate, error));
    candidate.on('end', () => dropped(candidate));
    candidate.on('notification', (message) => {
      if (message.channel === channel) options.onNotification(message.payload);
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      return dropped(candidate, error);
    }
    if (closed || client !== candidate) return;
    listening = true;
    attempt = 0;
    if (outage.down) outage.succeeded();
    else logger.info({ channel }, 'live events: listening');
    markReady();
  };

  /** Handles the loss of `which` once (pg may report one failure as both `error` and `end`). */
  const dropped = (which: pg.Client, error?: unknown): void => {
    if (client !== which) return;
    client = undefined;
    const wasListening = listening;
    listening = false;
    which.end().catch(() => undefined);
    if (closed) return;
    const base = Math.min(options.reconnectDelayMs.max, options.reconnectDelayMs.initial * 2 ** attempt++);
    const delayMs = Math.round(base * (0.8 + Math.random() * 0.4));
    outage.failed(error);
    retryTimer = setTimeout(() => void connect(), delayMs);
    if (wasListening) options.onDropped?.();
  };

  void connect();
  return {
    ready,
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      listening = false;
      await current?.end().catch(() => undefined);
    },
  };
}
