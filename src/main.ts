/**
 * The entry point. It starts in stages, each finished before the next begins:
 *
 *   configuration → database → bootstrap → listen → worker
 *
 * The webhook worker and the purge timers start only once the server listens, so a process that
 * cannot serve does no work in the background. Anything that stops the start (a malformed
 * setting, an operation without a handler, an unreachable database, an unwritable `DATA_DIR`, a
 * taken port) prints one line on stderr, `payments-api: <what>: <why>`, closes what was opened
 * and exits with status 1. Normal operation logs through pino on stdout.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { createApp } from './app.js';
import { ensureAdminCredentials, ensureDevAccount } from './bootstrap.js';
import { loadConfig, type Config } from './config.js';
import type { Database } from './db/database.js';
import type { DatabaseTarget } from './db/knex.js';
import { databaseTarget, openDatabase } from './db/open-database.js';
import { createRateLimitStore } from './db/rate-limit-store.js';
import { systemClock, unixSeconds, type Clock } from './domain/clock.js';
import { createEventStream } from './live-events/create-event-stream.js';
import { purgeClientDocuments } from './graphql/persisted-documents.js';
import { attachGraphQLSubscriptions } from './graphql/subscriptions.js';
import { createAuthenticator } from './auth/authenticator.js';
import { createAuthFailureLimiter } from './auth/auth-failures.js';
import { assertEveryOperationBound } from './resources/handlers.js';
import { purgeExpiredKeys } from './operations/idempotency.js';
import { routeOperations } from './operations/routes.js';
import { serveExpectContinue } from './http/request-guards.js';
import { applyServerTimeouts } from './http/server-timeouts.js';
import { createLogger, type Logger } from './logging/logger.js';
import { startMetricsServer } from './metrics/metrics-server.js';
import { createProcessMetrics } from './metrics/process-metrics.js';
import { createWebhookAttemptMetrics } from './metrics/webhook-attempt-metrics.js';
import { describeStartupFailure, hostAndPort, redactedUrl, startupStage } from './startup-failure.js';
import { createFailureNotifier } from './webhooks/failure-notices.js';
import { createSender } from './webhooks/sender.js';
import { startWebhookWorker } from './webhooks/worker.js';

const PURGE_INTERVAL_MS = 10 * 60_000;
/** How long a failed start waits for what it opened to close before it exits anyway. */
const ABORT_CLOSE_MS = 5000;

/**
 * The order things close in, at shutdown and after a failed start: WebSocket clients before the
 * HTTP server (their upgraded sockets would otherwise hold `server.close()` open), the servers
 * before the worker, the worker before its sender, the database last.
 */
const CLOSE_ORDER = [
  'purge timer',
  'GraphQL subscriptions',
  'HTTP server',
  'metrics server',
  'webhook worker',
  'webhook sender',
  'event stream',
  'database',
] as const;
type Closable = (typeof CLOSE_ORDER)[number];

/** What is open now. */
const opened = new Map<Closable, () => unknown>();

function track(name: Closable, close: () => unknown): void {
  opened.set(name, close);
}

/** Closes everything opened, in `CLOSE_ORDER`; a close that fails does not stop the others. */
async function closeAll(logger?: Logger): Promise<void> {
  for (const name of CLOSE_ORDER) {
    const close = opened.get(name);
    if (!close) continue;
    opened.delete(name);
    try {
      await close();
    } catch (err) {
      logger?.warn({ err }, `closing the ${name} failed`);
    }
  }
}

/** What the stages after the database share. */
interface Started {
  config: Config;
  target: DatabaseTarget;
  db: Database;
  clock: Clock;
  logger: Logger;
  adminDigest: Buffer;
  /** One registry per process: this process's API requests and webhook attempts, and the outbox backlog. */
  metrics: Registry;
}

function describeTarget(target: DatabaseTarget): string {
  return target.kind === 'sqlite' ? `SQLite ${target.filename}` : redactedUrl(target.url);
}

/** Resolves once the server listens; rejects with the listen error (taken port, no permission, no such address). */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/** Stage 1: every setting parsed, and (for the API) every operation of the spec bound to a handler. */
async function configure(): Promise<Config> {
  const config = await startupStage('invalid configuration', () => loadConfig());
  if (config.role !== 'worker') await startupStage('cannot serve the spec', () => assertEveryOperationBound(routeOperations()));
  return config;
}

/** Stage 4 for the API roles: the app on its port (the WebSocket door included); resolves once it listens. */
async function listenApi({ config, target, db, clock, logger, adminDigest, metrics }: Started): Promise<void> {
  // The live feed of GraphQL subscriptions; a worker-only process serves none, so it opens no LISTEN connection.
  const eventStream = createEventStream(db, target, logger);
  track('event stream', () => eventStream.close());
  const auth = createAuthenticator(db, adminDigest, createAuthFailureLimiter(db, config.authFailures, config.trustProxyHops));
  // What the REST and GraphQL doors (HTTP and WebSocket) share.
  const shared = {
    db,
    clock,
    logger,
    auth,
    eventStream,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    settings: config.settings,
  };
  const rateLimiter = config.rateLimit && createRateLimitStore(db, config.rateLimit);
  const app = createApp({
    ...shared,
    validateResponses: config.validateResponses,
    bodyTimeoutMs: config.httpTimeouts.bodyMs,
    rateLimiter,
    graphqlTrustedDocumentsOnly: config.graphqlTrustedDocumentsOnly,
    metrics: { registry: metrics, public: config.metricsPublic },
  });
  const server = http.createServer(app);
  applyServerTimeouts(server, config.httpTimeouts);
  serveExpectContinue(server, app);
  const subscriptions = attachGraphQLSubscriptions(server, { ...shared, rateLimiter });
  track('HTTP server', () => new Promise<void>((resolve) => server.close(() => resolve())));
  track('GraphQL subscriptions', () => subscriptions.close());
  await startupStage(`cannot listen on ${hostAndPort(config.host, config.port)}`, () => listen(server, config.port, config.host));
  const { port } = server.address() as AddressInfo;
  logger.info({ url: `http://${hostAndPort(config.host, port)}`, role: config.role }, 'payments-api listening');
}

/** Stage 4 for a worker alone, which has no API port: its own `/metrics` listener when `METRICS_PORT` asks for one. */
async function listenMetrics({ config, db, logger, adminDigest, metrics }: Started, metricsPort: number): Promise<void> {
  const failures = createAuthFailureLimiter(db, config.authFailures, config.trustProxyHops);
  const authorize = config.metricsPublic ? undefined : createAuthenticator(db, adminDigest, failures).limited.adminBasic;
  const server = await startupStage(`cannot listen on ${hostAndPort(config.host, metricsPort)} (METRICS_PORT)`, () =>
    startMetricsServer({ registry: metrics, authorize }, { host: config.host, port: metricsPort, logger }),
  );
  track('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  logger.info({ url: `http://${hostAndPort(config.host, port)}/metrics` }, 'metrics listening');
}

/** Stage 5: the webhook worker (unless `ROLE=api`) and the purge timers. */
function startBackgroundWork({ config, db, clock, logger, metrics }: Started): void {
  const sender = createSender({
    allowPrivateNetworks: config.settings.webhookAllowPrivateNetworks,
    maxSocketsPerHost: config.webhookConcurrency,
  });
  track('webhook sender', () => sender.close());
  if (config.role !== 'api') {
    const worker = startWebhookWorker(
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
    track('webhook worker', () => worker.stop());
    logger.info({ role: config.role }, 'webhook worker started');
  }
  const purge = setInterval(() => {
    purgeExpiredKeys(db, clock.nowMs(), config.idempotencyTtlSeconds).catch((err) =>
      logger.warn({ err }, 'idempotency key purge failed'),
    );
    purgeClientDocuments(db, unixSeconds(clock)).catch((err) => logger.warn({ err }, 'persisted GraphQL document purge failed'));
  }, PURGE_INTERVAL_MS);
  purge.unref();
  track('purge timer', () => clearInterval(purge));
}

async function start(): Promise<Logger> {
  const config = await configure();
  const logger = createLogger(config.logLevel);
  const clock = systemClock;

  // Stage 2: the database, migrated and open.
  const target = databaseTarget(config);
  const db = await startupStage(`cannot open the database (${describeTarget(target)})`, () => openDatabase(target));
  track('database', () => db.close());
  logger.info({ database: target.kind === 'sqlite' ? target.filename : 'postgres' }, 'database migrated');

  // Stage 3: the admin credentials and the development account.
  const adminDigest = await startupStage('cannot prepare the admin credentials', () => ensureAdminCredentials(db, config, logger));
  await startupStage('cannot prepare the development account', () => ensureDevAccount(db, config, clock, logger));

  const started: Started = { config, target, db, clock, logger, adminDigest, metrics: createProcessMetrics(db, clock) };

  // Stage 4: listening, before any background work.
  if (config.role !== 'worker') await listenApi(started);
  else if (config.metricsPort !== undefined) await listenMetrics(started, config.metricsPort);

  // Stage 5.
  startBackgroundWork(started);
  return logger;
}

/** Stops taking requests, lets in-flight ones finish, stops the worker, then closes the database. */
async function shutdown(logger: Logger, signal: string): Promise<void> {
  logger.info({ signal }, 'shutting down');
  await closeAll(logger);
  process.exit(0);
}

try {
  const logger = await start();
  process.once('SIGTERM', () => void shutdown(logger, 'SIGTERM'));
  process.once('SIGINT', () => void shutdown(logger, 'SIGINT'));
} catch (error) {
  // One plain line on stderr (the logs go to stdout), no stack; then nothing may keep running.
  process.stderr.write(`payments-api: ${describeStartupFailure(error)}\n`);
  const cut = setTimeout(() => process.exit(1), ABORT_CLOSE_MS);
  await closeAll();
  clearTimeout(cut);
  process.exit(1);
}
