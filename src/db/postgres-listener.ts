import pg from 'pg';
import type { ListenOptions, NotificationListener } from './commit-notifications.js';

export interface PostgresListenerOptions extends ListenOptions {
  connectionString: string;
  channel: string;
}

/**
 * One dedicated connection that LISTENs on a channel, and reconnects with backoff when it drops.
 *
 * Notifications sent while it is down are lost to it (Postgres queues them only for sessions that
 * are listening), so every failed attempt is logged at `warn` until it is back, with how long it
 * has been down.
 */
export function startPostgresListener(options: PostgresListenerOptions): NotificationListener {
  const { logger, channel } = options;
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let attempt = 0;
  let downSince: number | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const connect = async (): Promise<void> => {
    retryTimer = undefined;
    const candidate = new pg.Client({ connectionString: options.connectionString, keepAlive: true });
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
    if (downSince !== undefined) logger.info({ downMs: Date.now() - downSince }, 'live events: listener reconnected');
    else logger.info({ channel }, 'live events: listening');
    downSince = undefined;
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
    downSince ??= Date.now();
    const base = Math.min(options.reconnectDelayMs.max, options.reconnectDelayMs.initial * 2 ** attempt++);
    const delayMs = Math.round(base * (0.8 + Math.random() * 0.4));
    logger.warn(
      { err: error, downMs: Date.now() - downSince, retryInMs: delayMs },
      'live events: listener is down, subscribers receive nothing until it reconnects',
    );
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
