import type { Server } from 'node:http';
import { createApp } from './app.js';
import { ensureAdminCredentials, ensureDevAccount } from './bootstrap.js';
import { loadConfig } from './config.js';
import { databaseTarget, openDatabase } from './db/open-database.js';
import { systemClock } from './domain/clock.js';
import { createAuthenticator } from './http/auth.js';
import { purgeExpiredKeys } from './http/idempotency.js';
import { createLogger } from './logger.js';
import { createFailureNotifier } from './webhooks/failure-notices.js';
import { createSender } from './webhooks/sender.js';
import { startWebhookWorker, type WebhookWorker } from './webhooks/worker.js';

const PURGE_INTERVAL_MS = 10 * 60_000;

const config = loadConfig();
const logger = createLogger(config.logLevel);
const clock = systemClock;
const target = databaseTarget(config);
const db = await openDatabase(target);
logger.info({ database: target.kind === 'sqlite' ? target.filename : 'postgres' }, 'database migrated');

const adminDigest = await ensureAdminCredentials(db, config, logger);
await ensureDevAccount(db, config, clock, logger);

let server: Server | undefined;
if (config.role !== 'worker') {
  const app = createApp({
    db,
    clock,
    logger,
    auth: createAuthenticator(db, adminDigest),
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    validateResponses: config.validateResponses,
    settings: config.settings,
  });
  server = app.listen(config.port, config.host, () => {
    logger.info({ url: `http://${config.host}:${config.port}`, role: config.role }, 'payments-api listening');
  });
}

let worker: WebhookWorker | undefined;
const sender = createSender({ allowPrivateNetworks: config.settings.webhookAllowPrivateNetworks });
if (config.role !== 'api') {
  worker = startWebhookWorker(
    {
      db,
      clock,
      logger,
      send: sender.send,
      retryScheduleSeconds: config.webhookRetryScheduleSeconds,
      disableAfterMs: config.webhookDisableAfterSeconds * 1000,
      notifyFailure: createFailureNotifier({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger }),
    },
    { leaseMs: config.webhookLeaseSeconds * 1000 },
  );
  logger.info({ role: config.role }, 'webhook worker started');
}

const purge = setInterval(() => {
  purgeExpiredKeys(db, clock.nowMs(), config.idempotencyTtlSeconds).catch((err) =>
    logger.warn({ err }, 'idempotency key purge failed'),
  );
}, PURGE_INTERVAL_MS);
purge.unref();

/** Stops taking requests, lets in-flight ones finish, then closes the database. */
async function shutdown(signal: string): Promise<void> {
  logger.info({ signal }, 'shutting down');
  clearInterval(purge);
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  await worker?.stop();
  sender.close();
  await db.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
