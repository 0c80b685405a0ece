/**
 * The entry point. It starts in stages, each finished before the next begins:
 *
 *   configuration → secrets key → database → bootstrap → listen → worker
 *
 * The last two are the composition root's (composition.ts), which the tests run too. The webhook
 * worker and the purge timers start only once the server listens, so a process that cannot serve
 * does no work in the background. Anything that stops the start (a malformed setting, an
 * operation without a handler, no secrets key on Postgres, an unreachable database, an unwritable
 * `DATA_DIR`, a taken port) prints one line on stderr, `payments-api: <what>: <why>`, closes what
 * was opened and exits with status 1. Normal operation logs through pino on stdout: lines for a
 * person on a terminal, JSON elsewhere (`LOG_FORMAT` chooses).
 *
 * With `WEB_CONCURRENCY` above 1 on Postgres, this process runs the stages up to bootstrap only, closes
 * its database and supervises a cluster (cluster.ts): its children run this file again, each one
 * API process or the one webhook worker, and find the database migrated and the accounts made.
 */
import { ensureAdminCredentials, ensureDevAccount } from './bootstrap.js';
import { ApiCluster, apiProcessCount, ChildStartFailure, isClusterChild, reportReady } from './cluster.js';
import { CLOSE_ORDER, createServices, startRoles } from './composition.js';
import { loadConfig, type Config } from './config.js';
import type { DatabaseTarget } from './db/knex.js';
import { databaseTarget, describeTarget, openDatabase } from './db/open-database.js';
import { systemClock } from './domain/clock.js';
import { assertEveryOperationBound } from './resources/handlers.js';
import { routeOperations } from './operations/routes.js';
import { chooseLogFormat, createLogger, type Logger } from './logging/logger.js';
import { sealStoredSecrets } from './resources/shared/sealed-secrets.js';
import { loadSecretBox } from './secrets-keys.js';
import { describeStartupFailure, OpenedResources, startupStage } from './startup-failure.js';
import { logStartSummary } from './startup-summary.js';

/** How long a failed start waits for what it opened to close before it exits anyway. */
const ABORT_CLOSE_MS = 5000;

/** What is open now, closed in `CLOSE_ORDER` (see src/composition.ts). */
const opened = new OpenedResources(CLOSE_ORDER);

/** A started process: its logger, and how to stop what it runs (its parts, or its cluster's children). */
interface Running {
  logger: Logger;
  stop(): Promise<void>;
}

/** Stage 1: every setting parsed, and (for the API) every operation of the spec bound to a handler. */
async function configure(): Promise<Config> {
  const config = await startupStage('invalid configuration', () => loadConfig());
  if (config.role !== 'worker') await startupStage('cannot serve the spec', () => assertEveryOperationBound(routeOperations()));
  return config;
}

async function start(): Promise<Running> {
  const config = await configure();
  const logger = createLogger(config.logLevel, chooseLogFormat(config.logFormat, Boolean(process.stdout.isTTY)));
  const clock = systemClock;

  // Stage 2: the key of the sealed secrets, then the database, migrated, open, its secrets sealed.
  const target = databaseTarget(config);
  const secrets = await startupStage('cannot load the secrets key', () =>
    loadSecretBox(config.secretsKeys, { target, dataDir: config.dataDir, logger }),
  );
  const db = await startupStage(`cannot open the database (${describeTarget(target)})`, () => openDatabase(target));
  opened.track('database', () => db.close());
  logger.info({ database: describeTarget(target) }, 'database migrated');
  const sealing = await startupStage('cannot seal the stored secrets', () => sealStoredSecrets(db, secrets));
  if (sealing.sealed > 0) logger.info({ sealed: sealing.sealed, key_id: secrets.currentKeyId }, 'stored secrets sealed');

  // Stage 3: the admin credentials and the development account.
  const adminDigest = await startupStage('cannot prepare the admin credentials', () => ensureAdminCredentials(db, config, logger));
  await startupStage('cannot prepare the development account', () => ensureDevAccount(db, config, clock, logger));
  const apiProcesses = apiProcessCount(config, target, logger);
  if (apiProcesses > 1) return startCluster(config, target, logger, apiProcesses);

  // Stage 4, listening (the API, or a worker's METRICS_PORT), then stage 5, the worker and the purge timers.
  const services = await createServices(config, { target, db, secrets, clock, logger, adminDigest, opened });
  const roles = await startRoles(services);
  // In a cluster, the primary sums up the start once all its children are ready.
  if (roles.api && !isClusterChild()) logStartSummary(logger, config, target, roles.api.url);
  reportReady(roles.api?.url);
  return { logger, stop: () => opened.closeAll(logger) };
}

/** Stages 4 and 5 handed to `apiProcesses` children (and the worker's); this process only supervises them. */
async function startCluster(config: Config, target: DatabaseTarget, logger: Logger, apiProcesses: number): Promise<Running> {
  await opened.closeAll(logger);
  const cluster = new ApiCluster(
    { apiProcesses, worker: config.role === 'all' },
    { logger, clock: systemClock, onGiveUp: (reason) => void stopAndExit({ logger, stop: () => cluster.stop() }, 1, reason) },
  );
  const url = await cluster.start();
  logStartSummary(logger, config, target, url, apiProcesses);
  return { logger, stop: () => cluster.stop() };
}

let exiting = false;

/**
 * Stops taking requests, lets in-flight ones finish, stops the worker, closes the database (or
 * stops the cluster's children, which do all that), then exits. Once only: a signal often comes
 * twice, and a repeat must not cut the shutdown short. Ctrl-C sends SIGINT to every process of the
 * terminal's group, so this one gets it from the terminal and again from `npm start`, which passes
 * on what it receives, and a cluster's child gets it from the terminal and then SIGTERM from its
 * primary.
 */
async function stopAndExit(running: Running, code: number, why: string): Promise<void> {
  if (exiting) return;
  exiting = true;
  if (code === 0) running.logger.info({ signal: why }, 'shutting down');
  else process.stderr.write(`payments-api: ${why}\n`);
  await running.stop();
  process.exit(code);
}

try {
  const running = await start();
  // `on`, not `once`: a repeated signal is ignored (stopAndExit) instead of killing the process mid-shutdown.
  process.on('SIGTERM', () => void stopAndExit(running, 0, 'SIGTERM'));
  process.on('SIGINT', () => void stopAndExit(running, 0, 'SIGINT'));
} catch (error) {
  // One plain line on stderr (the logs go to stdout), no stack; then nothing may keep running. A
  // cluster's child that failed to start has printed its own.
  if (!(error instanceof ChildStartFailure && error.reported)) process.stderr.write(`payments-api: ${describeStartupFailure(error)}\n`);
  const cut = setTimeout(() => process.exit(1), ABORT_CLOSE_MS);
  await opened.closeAll();
  clearTimeout(cut);
  process.exit(1);
}
