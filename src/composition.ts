/**
 * The composition root: the one place where the process's parts are built and its roles started.
 * `main.ts` runs it for `npm start`, in stages; the tests run the very same code with their own
 * choices (a fake clock, a statement-counting database, port 0, a fast-polling worker), so that
 * what they exercise is what runs in production.
 *
 *   createServices  what the roles share: database (and its read replica), clock, logger,
 *                   the key ring of the stored secrets,
 *                   authenticator, rate limiter, event stream, webhook sender, failure notifier,
 *                   metrics registry, settings
 *   startRoles      the API (HTTP server, app, GraphQL subscriptions, and the mutual-TLS listener
 *                   when `TLS_PORT` asks for it), or a worker's own listener (health, readiness,
 *                   metrics); then the webhook worker and its repeating jobs
 *
 * Everything opened is tracked in `Services.opened` and closes in `CLOSE_ORDER`. Background work
 * starts only once the server listens, so a process that cannot serve does no work behind it.
 */
import type { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http, { type Server } from 'node:http';
import https from 'node:https';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { listenForCommits } from './db/commit-notifications.js';
import type { Database } from './db/database.js';
import type { DatabaseTarget } from './db/knex.js';
import { openDatabase } from './db/open-database.js';
import { describeReadReplica, openReadReplica } from './db/read-replica.js';
import { createRequestRateLimiter } from './db/rate-limit-store.js';
import { systemClock, unixSeconds, type Clock } from './domain/clock.js';
import type { SecretBox } from './domain/secret-box.js';
import { createAuthFailureLimiter } from './auth/auth-failures.js';
import { createAuthenticator, type Authenticator } from './auth/authenticator.js';
import { purgeClientDocuments } from './graphql/persisted-documents.js';
import { attachGraphQLSubscriptions } from './graphql/subscriptions.js';
import type { RateLimiter } from './edge/rate-limit.js';
import { serveExpectContinue } from './edge/request-guards.js';
import { requestClassesOf } from './edge/request-classes.js';
import { applyServerTimeouts, DEFAULT_HTTP_TIMEOUTS } from './edge/server-timeouts.js';
import { TLS_SERVER_POLICY } from './http/tls-policy.js';
import { createEventStream } from './live-events/create-event-stream.js';
import type { LocalEventStream } from './live-events/event-stream.js';
import type { Logger } from './logging/logger.js';
import { startWorkerListener } from './metrics/worker-listener.js';
import { createProcessMetrics } from './metrics/process-metrics.js';
import { createWebhookAttemptMetrics } from './metrics/webhook-attempt-metrics.js';
import { purgeExpiredKeys } from './operations/idempotency.js';
import { DEFAULT_EVENT_RETENTION_DAYS, startEventRetention } from './resources/events/events.retention.js';
import { purgeSeenSignatures } from './resources/signing-keys/seen-signatures.repo.js';
import { expireAuthorizations } from './resources/payments/authorizations.js';
import { createRequestLogBuffer, type RequestLogBuffer } from './resources/request-logs/request-log-buffer.js';
import { purgeRequestLogs } from './resources/request-logs/request-logs.repo.js';
import type { ServiceSettings } from './operations/operations.js';
import { parseCertificateBundle } from './resources/client-certificates/client-certificates.x509.js';
import { sealStoredSecrets } from './resources/shared/sealed-secrets.js';
import { loadSecretBox } from './secrets-keys.js';
import { PublicOrigin } from './public-origin.js';
import { hostAndPort, OpenedResources, startupStage } from './startup-failure.js';
import { createFailureNotifier, type FailureNotifier } from './webhooks/failure-notices.js';
import { createReceiptMailer } from './receipts/receipt-mailer.js';
import { purgeReceiptMails } from './receipts/receipt-mails.repo.js';
import { createSender, type Sender, type SenderOptions } from './webhooks/sender.js';
import { startWebhookWorker, type WebhookWorker } from './webhooks/worker.js';
import { isClusterChild } from './cluster.js';
import { startRepeatingJob } from './operations/repeating-job.js';

const PURGE_INTERVAL_MS = 10 * 60_000;
const AUTHORIZATION_EXPIRY_INTERVAL_MS = 60_000;
/** How often the worker looks for receipt e-mails to send (each is queued by its charge's transaction). */
const RECEIPT_MAIL_INTERVAL_MS = 1000;
/** How often a worker woken by every commit still looks for due deliveries (see startWorker). */
const SAFETY_NET_POLL_MS = 1000;
const DEFAULT_REQUEST_LOG_RETENTION_HOURS = 24;

/**
 * The order things close in, at shutdown and after a failed start: WebSocket clients before the
 * HTTP server (their upgraded sockets would otherwise hold `server.close()` open), the servers
 * before the request log (its last entries are of their last requests), the worker before its
 * sender, the databases last.
 */
export const CLOSE_ORDER = [
  'purges',
  'GraphQL subscriptions',
  'HTTP server',
  'HTTPS server',
  'worker listener',
  'request log',
  'rate limiter',
  'webhook wake-ups',
  'webhook worker',
  'authorisation expiry',
  'receipt e-mails',
  'event retention',
  'webhook sender',
  'event stream',
  'database',
  'read database',
] as const;

/** Something the composition root (or `main.ts`, for the database) opens and closes. */
export type Closable = (typeof CLOSE_ORDER)[number];

/** The settings the composition root always needs. */
type NeededSetting =
  | 'role'
  | 'host'
  | 'port'
  | 'idempotencyTtlSeconds'
  | 'validateResponses'
  | 'webhookRetryScheduleSeconds'
  | 'mailFrom'
  | 'settings'
  | 'secretsKeys';

/**
 * The settings it reads when they are given: left out, a limit or a mode is off (rate limits, the
 * failed-authentication limit, `METRICS_PORT`, `SMTP_URL`, trusted documents only, public
 * metrics), a tuning is its module's default (timeouts, proxies trusted, the worker's lease and
 * concurrency, when an endpoint is disabled), the signature header is sent under no other name,
 * and a retention is its default (the request log's 24 hours, events' 30 days).
 */
type OptionalSetting =
  | 'databaseReadUrl'
  | 'rateLimit'
  | 'redisUrl'
  | 'authFailures'
  | 'trustProxyHops'
  | 'httpTimeouts'
  | 'graphqlTrustedDocumentsOnly'
  | 'metricsPublic'
  | 'metricsPort'
  | 'smtpUrl'
  | 'publicUrl'
  | 'webhookLeaseSeconds'
  | 'webhookConcurrency'
  | 'webhookDisableAfterSeconds'
  | 'webhookSignatureHeaderAliases'
  | 'requestLogRetentionHours'
  | 'eventRetentionDays'
  | 'accessTokens'
  | 'externalJwt'
  | 'tls'
  | 'webConcurrency';

/**
 * The settings the composition root reads: a whole `Config` from `loadConfig()`, or (in tests) a
 * typed object with only what they choose, built without the environment.
 */
export type CompositionConfig = Pick<Config, NeededSetting> & Partial<Pick<Config, OptionalSetting>>;

/** What is not configuration: the process's own parts, and the choices a test makes. */
export interface ServiceChoices {
  /** Where the database is (for the event stream's LISTEN connection, and to open it). */
  target: DatabaseTarget;
  /** The database, open and migrated; when left out it is opened here (its secrets sealed), and closed with the rest. */
  db?: Database;
  /** The key ring of the stored secrets; left out: made from `config.secretsKeys`, which must then name a key. */
  secrets?: SecretBox;
  /** Default: the system clock. */
  clock?: Clock;
  logger: Logger;
  /** The digest of the admin credentials (HTTP Basic on `/admin` and `/metrics`). */
  adminDigest: Buffer;
  /** Where what is opened is tracked; default: a new one. `main.ts` passes its own, which already holds the database. */
  opened?: OpenedResources<Closable>;
  /** Overrides of the webhook sender's options (tests: private networks allowed, short timeouts). */
  sender?: Partial<SenderOptions>;
  /** Keep the process's metrics registry (default true); false: no `/metrics` and nothing measured (most tests). */
  metrics?: boolean;
  /** How long a found API key is trusted before it is read again; default: the authenticator's second (tests: shorter, to see revocations sooner). */
  apiKeyTrustMs?: number;
}

/** What the roles of one process share. */
export interface Services {
  config: CompositionConfig;
  target: DatabaseTarget;
  db: Database;
  /**
   * Where reads that tolerate replica lag run (lists and events, see `RequestContext.readDb`): the
   * replica of `DATABASE_READ_URL`, or `db` itself when there is none.
   */
  readDb: Database;
  clock: Clock;
  logger: Logger;
  /** One authenticator for HTTP, WebSocket and `/metrics`, so that they count failures against one allowance. */
  auth: Authenticator;
  /** Counts API requests per credential; undefined when rate limits are off. */
  rateLimiter: RateLimiter | undefined;
  /** The live feed of GraphQL subscriptions; a worker-only process serves none, so it opens no LISTEN connection. */
  eventStream: LocalEventStream | undefined;
  sender: { send: Sender; close(): void };
  notifyFailure: FailureNotifier;
  /** One registry per process: its API requests and webhook attempts, and the outbox backlog. */
  metrics: Registry | undefined;
  settings: ServiceSettings;
  /** Seals and opens the stored secrets (webhook, signing-key and token-signing secrets). */
  secrets: SecretBox;
  /** The origin of the URLs the server gives out (`settings.publicOrigin` reads it). */
  publicOrigin: PublicOrigin;
  opened: OpenedResources<Closable>;
}

/** Builds what the roles share, tracking in `opened` each part that must be closed. */
export async function createServices(config: CompositionConfig, choices: ServiceChoices): Promise<Services> {
  const { target, logger, adminDigest } = choices;
  const opened = choices.opened ?? new OpenedResources(CLOSE_ORDER);
  const clock = choices.clock ?? systemClock;
  const secrets = choices.secrets ?? (await loadSecretBox(config.secretsKeys, { target }));
  const publicOrigin = new PublicOrigin(config.publicUrl, config.host, config.port);
  const db = choices.db ?? (await openDatabase(target));
  if (!choices.db) {
    opened.track('database', () => db.close());
    await sealStoredSecrets(db, secrets);
  }
  // Only the API reads lists and events; a worker alone opens no pool on the replica.
  const readDb = config.databaseReadUrl && config.role !== 'worker' ? await openReadDatabase(config.databaseReadUrl, logger) : db;
  if (readDb !== db) opened.track('read database', () => readDb.close());
  const eventStream = config.role === 'worker' ? undefined : createEventStream(db, target, logger);
  if (eventStream) opened.track('event stream', () => eventStream.close());
  const sender = createSender({
    allowPrivateNetworks: config.settings.webhookAllowPrivateNetworks,
    maxSocketsPerHost: config.webhookConcurrency,
    ...choices.sender,
  });
  opened.track('webhook sender', () => sender.close());
  const failures = createAuthFailureLimiter(db, config.authFailures, config.trustProxyHops);
  // Only the API counts requests; it gives back the allowance it holds when it closes.
  const rateLimiter =
    config.rateLimit && config.role !== 'worker'
      ? await createRequestRateLimiter(db, config.rateLimit, { redisUrl: config.redisUrl, logger })
      : undefined;
  if (rateLimiter) opened.track('rate limiter', () => rateLimiter.close());
  return {
    config,
    target,
    db,
    readDb,
    clock,
    logger,
    auth: createAuthenticator({
      db,
      adminDigest,
      failures,
      clock,
      secrets,
      accessTokens: config.accessTokens,
      externalJwt: config.externalJwt,
      keyTrustMs: choices.apiKeyTrustMs,
    }),
    rateLimiter,
    eventStream,
    sender,
    notifyFailure: createFailureNotifier({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger }),
    metrics: choices.metrics === false ? undefined : createProcessMetrics(db, clock),
    settings: {
      ...config.settings,
      accessTokens: config.accessTokens,
      eventRetentionDays: config.eventRetentionDays,
      publicOrigin: () => publicOrigin.url,
    },
    publicOrigin,
    secrets,
    opened,
  };
}

/**
 * The replica's pool, checked at start: an unreachable one is a `StartupError` naming it (host and
 * port). Later failures there are read again on the primary, and logged at most once a minute.
 */
function openReadDatabase(url: string, logger: Logger): Promise<Database> {
  const replica = describeReadReplica(url);
  let loggedAt = -Infinity;
  const onFailure = (err: unknown) => {
    if (performance.now() - loggedAt < 60_000) return;
    loggedAt = performance.now();
    logger.warn({ err, replica }, 'a read on the replica failed; such reads go to the primary while it does');
  };
  return startupStage(`cannot open the read replica (DATABASE_READ_URL, ${replica})`, () => openReadReplica(url, { onFailure }));
}

/** Choices about the roles that are not configuration (tests'). */
export interface RoleChoices {
  /** The database the app's requests run on; default: the services' (tests count its statements). */
  appDb?: Database;
  /** How often an idle webhook worker looks for due deliveries; default: the worker's. */
  workerPollIntervalMs?: number;
  /** How often the worker looks for authorisations past their 7 days; default: every minute. */
  authorizationExpiryIntervalMs?: number;
  /** How often the worker looks for receipt e-mails to send; default: every second. */
  receiptMailIntervalMs?: number;
  /** At close, cut the connections still open rather than let their requests finish (tests). */
  cutConnectionsOnClose?: boolean;
}

/** The roles running in this process. */
export interface Roles {
  /**
   * The API's server and its URL, when this process serves the API (and the mutual-TLS listener's,
   * when configured), and its request log, whose `flush()` writes what is recorded so far.
   */
  api?: { server: Server; url: string; tlsUrl?: string; requestLog: Pick<RequestLogBuffer, 'flush'> };
  /** Closes everything the services and the roles opened, in `CLOSE_ORDER`. */
  close(): Promise<void>;
}

/**
 * Starts the process's roles: first what listens (the API, or a worker's own listener, see
 * {@link workerListenerPort}), then the webhook worker and the background jobs (unless `ROLE=api`).
 * A listen that fails rejects with a `StartupError` and starts no background work.
 */
export async function startRoles(services: Services, choices: RoleChoices = {}): Promise<Roles> {
  const { config, logger, opened } = services;
  let api: Roles['api'];
  if (config.role !== 'worker') api = await listenApi(services, choices);
  // The worker's loop starts after its listener, which asks the loop how it is doing.
  let worker: WebhookWorker | undefined;
  const workerPort = config.role === 'worker' ? workerListenerPort(config) : undefined;
  if (workerPort) await listenWorker(services, workerPort, () => worker);
  if (config.role !== 'api') worker = startWorker(services, choices, services.publicOrigin.url);
  return { api, close: () => opened.closeAll(logger) };
}

/**
 * Where a `ROLE=worker` process listens for `/healthz`, `/readyz` and `/metrics`: `METRICS_PORT`
 * when set, else `PORT`, as the API would. A worker forked beside API processes (`ROLE=all` with
 * `WEB_CONCURRENCY`) listens only on `METRICS_PORT`: `PORT` is theirs.
 */
function workerListenerPort(config: CompositionConfig): { port: number; variable?: string } | undefined {
  if (config.metricsPort !== undefined) return { port: config.metricsPort, variable: 'METRICS_PORT' };
  return isClusterChild() ? undefined : { port: config.port };
}

/**
 * The app on its port (the WebSocket door included), and on `TLS_PORT` over mutual TLS when
 * configured; resolves once both listen.
 */
async function listenApi(services: Services, choices: RoleChoices): Promise<NonNullable<Roles['api']>> {
  const { config, db, clock, logger, auth, rateLimiter, eventStream, opened } = services;
  if (!eventStream) throw new Error('the API roles need an event stream');
  const appDb = choices.appDb ?? db;
  // Without a replica the reads that may lag run on the app's database too (tests count them there).
  const readDb = services.readDb === db ? appDb : services.readDb;
  const tls = config.tls && (await readTlsFiles(config.tls));
  // Registrations (on either listener) accept only certificates the client CA issued.
  const settings = tls ? { ...services.settings, clientCertificateAuthorities: tls.authorities } : services.settings;
  // What the REST and GraphQL doors (HTTP and WebSocket) share.
  const { idempotencyTtlSeconds } = config;
  const { secrets } = services;
  const shared = { db, readDb, clock, logger, auth, rateLimiter, eventStream, settings, secrets, idempotencyTtlSeconds };
  const httpTimeouts = config.httpTimeouts ?? DEFAULT_HTTP_TIMEOUTS;
  // On the services' database, not the app's: the log's writes belong to no request (and tests
  // count the statements the app's requests run).
  const requestLog = createRequestLogBuffer(db, logger);
  opened.track('request log', () => requestLog.close());
  const app = createApp({
    ...shared,
    db: appDb,
    validateResponses: config.validateResponses,
    bodyTimeoutMs: httpTimeouts.bodyMs,
    graphqlTrustedDocumentsOnly: config.graphqlTrustedDocumentsOnly,
    metrics: services.metrics && { registry: services.metrics, public: config.metricsPublic ?? false },
    requestLog,
    // A cluster's child is one of WEB_CONCURRENCY; any other process serves its port alone.
    apiProcesses: isClusterChild() ? (config.webConcurrency ?? 1) : 1,
    webhookRetryScheduleSeconds: config.webhookRetryScheduleSeconds,
  });
  const server = http.createServer(requestClassesOf(app), app);
  applyServerTimeouts(server, httpTimeouts);
  serveExpectContinue(server, app);
  const subscriptions = attachGraphQLSubscriptions(server, shared);
  opened.track('HTTP server', () => {
    if (choices.cutConnectionsOnClose) server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  opened.track('GraphQL subscriptions', () => subscriptions.close());
  await startupStage(`cannot listen on ${hostAndPort(config.host, config.port)}`, () => listen(server, config.port, config.host));
  const { port } = server.address() as AddressInfo;
  services.publicOrigin.listening(port);
  const url = `http://${hostAndPort(config.host, port)}`;
  logger.info({ url, role: config.role }, 'payments-api listening');
  const tlsUrl = tls && (await listenMutualTls(services, app, tls, choices));
  return { server, url, tlsUrl, requestLog };
}

/** What the mutual-TLS listener is made of, read from `TLS_CERT_FILE`, `TLS_KEY_FILE` and `TLS_CLIENT_CA_FILE`. */
interface TlsFiles {
  cert: string;
  key: string;
  ca: string;
  /** The certificates of the CA bundle, which registrations are checked against. */
  authorities: X509Certificate[];
}

/** Reads the listener's files once, at start; a missing, unreadable or unusable one is a `StartupError` naming its variable. */
async function readTlsFiles(tls: NonNullable<CompositionConfig['tls']>): Promise<TlsFiles> {
  const read = (variable: string, file: string) => startupStage(`cannot read ${variable}`, () => readFile(file, 'utf8'));
  const cert = await read('TLS_CERT_FILE', tls.certFile);
  const key = await read('TLS_KEY_FILE', tls.keyFile);
  const ca = await read('TLS_CLIENT_CA_FILE', tls.clientCaFile);
  const authorities = await startupStage(`cannot use TLS_CLIENT_CA_FILE (${tls.clientCaFile})`, () => parseCertificateBundle(ca));
  return { cert, key, ca, authorities };
}

/**
 * The same app over HTTPS on `TLS_PORT`, where a client certificate is the credential of `/v1` and
 * `/graphql` (auth/client-certificates.ts); `/admin` and the health checks answer as on HTTP. It
 * asks for a certificate but completes the handshake without one, or with one the client CA does
 * not vouch for (`rejectUnauthorized: false`), so that the client gets a JSON 401 saying why rather
 * than a bare handshake alert. GraphQL subscriptions are not served here: their WebSocket
 * authenticates by the API key of its `connection_init`, not by the connection's certificate.
 */
async function listenMutualTls(services: Services, app: Express, tls: TlsFiles, choices: RoleChoices): Promise<string> {
  const { config, logger, opened } = services;
  const port = config.tls!.port;
  const server = await startupStage('cannot use TLS_CERT_FILE and TLS_KEY_FILE', () =>
    https.createServer({ ...TLS_SERVER_POLICY, ...requestClassesOf(app), cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: true, rejectUnauthorized: false }, app),
  );
  applyServerTimeouts(server, config.httpTimeouts ?? DEFAULT_HTTP_TIMEOUTS);
  serveExpectContinue(server, app);
  opened.track('HTTPS server', () => {
    if (choices.cutConnectionsOnClose) server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await startupStage(`cannot listen on ${hostAndPort(config.host, port)} (TLS_PORT)`, () => listen(server, port, config.host));
  const url = `https://${hostAndPort(config.host, (server.address() as AddressInfo).port)}`;
  logger.info({ url }, 'payments-api listening for mutual TLS');
  return url;
}

/** How long the worker's loop may not have run before its `/readyz` says it is not ready. */
const WORKER_STALE_AFTER_MS = 5_000;

/** A worker alone has no API port: its own listener (health, readiness and metrics), see `startWorkerListener`. */
async function listenWorker(
  services: Services,
  { port, variable }: { port: number; variable?: string },
  worker: () => WebhookWorker | undefined,
): Promise<void> {
  const { config, db, logger, metrics, opened } = services;
  const authorize = config.metricsPublic ? undefined : services.auth.limited.adminBasic;
  const readiness = {
    databaseAnswers: async () => void (await db.one('SELECT 1 AS ok')),
    msSinceLoopRan: () => worker()?.msSinceLoopRan() ?? Number.POSITIVE_INFINITY,
    loopStaleAfterMs: WORKER_STALE_AFTER_MS,
  };
  const where = `${hostAndPort(config.host, port)}${variable ? ` (${variable})` : ''}`;
  const server = await startupStage(`cannot listen on ${where}`, () =>
    startWorkerListener({ readiness, metrics: metrics && { registry: metrics, authorize } }, { host: config.host, port, logger }),
  );
  opened.track('worker listener', () => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://${hostAndPort(config.host, (server.address() as AddressInfo).port)}`;
  logger.info({ url, role: config.role }, 'worker listening for /healthz, /readyz and /metrics');
}

/**
 * The webhook worker, reporting its attempts to the process's registry, and woken by every commit
 * it can hear of (`listenForCommits`), so that a delivery is attempted as soon as it is committed.
 * Its poll is then only a safety net (and the clock of retries coming due), once a second; where
 * it cannot hear every writer (SQLite with `ROLE=worker`, beside an API process), it polls every 50 ms.
 */
function startWorker(services: Services, choices: RoleChoices, publicUrl: string): WebhookWorker {
  const { config, db, clock, logger, metrics } = services;
  let wake = (): void => undefined;
  const wakeUps = listenForCommits(db, services.target, { logger, onCommit: () => wake() });
  const hearsEveryWriter = wakeUps.hearsOtherProcesses || config.role === 'all';
  const worker = startWebhookWorker(
    {
      db,
      clock,
      logger,
      send: services.sender.send,
      secrets: services.secrets,
      retryScheduleSeconds: config.webhookRetryScheduleSeconds,
      defaultSignatureHeaderAliases: config.webhookSignatureHeaderAliases,
      disableAfterMs: milliseconds(config.webhookDisableAfterSeconds),
      notifyFailure: services.notifyFailure,
      observeAttempt: metrics && createWebhookAttemptMetrics(metrics),
    },
    {
      leaseMs: milliseconds(config.webhookLeaseSeconds),
      concurrency: config.webhookConcurrency,
      pollIntervalMs: choices.workerPollIntervalMs ?? (hearsEveryWriter ? SAFETY_NET_POLL_MS : undefined),
    },
  );
  wake = () => worker.wake();
  services.opened.track('webhook wake-ups', () => wakeUps.close());
  services.opened.track('webhook worker', () => worker.stop());
  logger.info({ role: config.role }, 'webhook worker started');
  startBackgroundJobs(services, choices, publicUrl);
  return worker;
}

/**
 * The worker's repeating jobs (operations/repeating-job.ts): the receipt e-mails queued, every
 * second (`publicUrl` is their links' origin); the expiry of uncaptured authorisations every
 * minute; and, every ten minutes, the purges. Only a worker deletes: the
 * purges are background work, as deliveries are, and an API process then spends its time on
 * requests.
 */
function startBackgroundJobs(services: Services, choices: RoleChoices, publicUrl: string): void {
  const { config, db, clock, logger, opened } = services;
  const sendReceipts = createReceiptMailer({ db, clock, logger, smtpUrl: config.smtpUrl, from: config.mailFrom, publicUrl });
  const receipts = startRepeatingJob(
    { name: 'receipt e-mails', logger, intervalMs: choices.receiptMailIntervalMs ?? RECEIPT_MAIL_INTERVAL_MS, runAtStart: true },
    async () => void (await sendReceipts()),
  );
  opened.track('receipt e-mails', () => receipts.stop());
  const expiry = startRepeatingJob(
    { name: 'authorisation expiry', logger, intervalMs: choices.authorizationExpiryIntervalMs ?? AUTHORIZATION_EXPIRY_INTERVAL_MS },
    async () => {
      const expired = await expireAuthorizations(db, clock, services.settings);
      if (expired > 0) logger.info({ expired }, 'expired uncaptured authorisations');
    },
  );
  opened.track('authorisation expiry', () => expiry.stop());
  const purges = startRepeatingJob({ name: 'purges', logger, intervalMs: PURGE_INTERVAL_MS }, () => purgeExpired(services));
  opened.track('purges', () => purges.stop());
  const retention = startEventRetention(
    { db, clock, logger, retentionDays: config.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS },
    PURGE_INTERVAL_MS,
  );
  opened.track('event retention', () => retention.stop());
}

/**
 * Expired idempotency keys, client-registered GraphQL documents, seen message signatures and request
 * log entries past their retention; one failing does not keep the others from running.
 */
async function purgeExpired({ config, db, clock }: Services): Promise<void> {
  const nowSeconds = unixSeconds(clock);
  const requestLogRetentionSeconds = (config.requestLogRetentionHours ?? DEFAULT_REQUEST_LOG_RETENTION_HOURS) * 3600;
  const outcomes = await Promise.allSettled([
    purgeExpiredKeys(db, clock.nowMs(), config.idempotencyTtlSeconds),
    purgeClientDocuments(db, nowSeconds),
    purgeSeenSignatures(db, nowSeconds),
    purgeRequestLogs(db, nowSeconds - requestLogRetentionSeconds),
    // A receipt e-mail's record is kept as long as the events that tell of its charge.
    purgeReceiptMails(db, clock.nowMs() - (config.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS) * 86_400_000),
  ]);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

function milliseconds(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000;
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
