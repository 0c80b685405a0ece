import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { ensureAdminCredentials, ensureDevAccount } from './bootstrap.js';
import { loadConfig } from './config.js';
import { databaseTarget, openDatabase } from './db/open-database.js';
import { createRateLimitStore } from './db/rate-limit-store.js';
import { systemClock, unixSeconds } from './domain/clock.js';
import { createEventStream } from './events/create-event-stream.js';
import type { LocalEventStream } from './events/event-stream.js';
import { purgeClientDocuments } from './graphql/persisted-documents.js';
import { attachGraphQLSubscriptions } from './graphql/subscriptions.js';
import { createAuthenticator } from './http/auth.js';
import { purgeExpiredKeys } from './http/idempotency.js';
import { createLogger } from './logger.js';
import { startMetricsServer } from './metrics/metrics-server.js';
import { createProcessMetrics } from './metrics/process-metrics.js';
import { createWebhookAttemptMetrics } from './metrics/webhook-attempt-metrics.js';
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
// One registry per process: this process's API requests and webhook attempts, and the outbox backlog.
const metrics = createProcessMetrics(db, clock);

let server: Server | undefined;
let eventStream: LocalEventStream | undefined;
let subscriptions: { close(): Promise<void> } | undefined;
if (config.role !== 'worker') {
  // The live feed of GraphQL subscriptions; a worker-only process serves none, so it opens no LISTEN connection.
  const stream = (eventStream = createEventStream(db, target, logger));
  const auth = createAuthenticator(db, adminDigest);
  // What the REST and GraphQL doors (HTTP and WebSocket) share.
  const shared = {
    db,
    clock,
    logger,
    auth,
    eventStream: stream,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    settings: config.settings,
  };
  const rateLimiter = config.rateLimit && createRateLimitStore(db, config.rateLimit);
  const app = createApp({
    ...shared,
    validateResponses: config.validateResponses,
    rateLimiter,
    graphqlTrustedDocumentsOnly: config.graphqlTrustedDocumentsOnly,
    metrics: { registry: metrics, public: config.metricsPublic },
  });
  server = app.listen(config.port, config.host, () => {
    logger.info({ url: `http://${config.host}:${config.port}`, role: config.role }, 'payments-api listening');
  });
  subscriptions = attachGraphQLSubscriptions(server, { ...shared, rateLimiter });
}

// A worker alone has no API port to serve /metrics on: it gets its own listener when METRICS_PORT asks for one.
let metricsServer: Server | undefined;
if (config.role === 'worker' && config.metricsPort !== undefined) {
  const authorize = config.metricsPublic ? undefined : createAuthenticator(db, adminDigest).adminBasic;
  metricsServer = await startMetricsServer({ registry: metrics, authorize }, { host: config.host, port: config.metricsPort, logger });
  const { port } = metricsServer.address() as AddressInfo;
  logger.info({ url: `http://${config.host}:${port}/metrics` }, 'metrics listening');
}

let worker: WebhookWorker | undefined;
const sender = createSender({
  allowPrivateNetworks: config.settings.webhookAllowPrivateNetworks,
  maxSocketsPerHost: config.webhookConcurrency,
});
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
      observeAttempt: createWebhookAttemptMetrics(metrics),
    },
    { leaseMs: config.webhookLeaseSeconds * 1000, concurrency: config.webhookConcurrency },
  );
  logger.info({ role: config.role }, 'webhook worker started');
}

const purge = setInterval(() => {
  purgeExpiredKeys(db, clock.nowMs(), config.idempotencyTtlSeconds).catch((err) =>
    logger.warn({ err }, 'idempotency key purge failed'),
  );
  purgeClientDocuments(db, unixSeconds(clock)).catch((err) => logger.warn({ err }, 'persisted GraphQL document purge failed'));
}, PURGE_INTERVAL_MS);
purge.unref();

/** Stops taking requests, lets in-flight ones finish, then closes the database. */
async function shutdown(signal: string): Promise<void> {
  logger.info({ signal }, 'shutting down');
  clearInterval(purge);
  // WebSocket clients first: their upgraded sockets would otherwise hold server.close() open.
  await subscriptions?.close();
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  if (metricsServer) await new Promise<void>((resolve) => metricsServer!.close(() => resolve()));
  await worker?.stop();
  sender.close();
  await eventStream?.close();
  await db.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
