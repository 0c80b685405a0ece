/**
 * The entry point. It starts in stages, each finished before the next begins:
 *
 *   configuration → database → bootstrap → listen → worker
 *
 * The last two are the composition root's (composition.ts), which the tests run too. The webhook
 * worker and the purge timers start only once the server listens, so a process that cannot serve
 * does no work in the background. Anything that stops the start (a malformed setting, an
 * operation without a handler, an unreachable database, an unwritable `DATA_DIR`, a taken port)
 * prints one line on stderr, `payments-api: <what>: <why>`, closes what was opened and exits with
 * status 1. Normal operation logs through pino on stdout.
 */
import { ensureAdminCredentials, ensureDevAccount } from './bootstrap.js';
import { CLOSE_ORDER, createServices, startRoles } from './composition.js';
import { loadConfig, type Config } from './config.js';
import { databaseTarget, describeTarget, openDatabase } from './db/open-database.js';
import { systemClock } from './domain/clock.js';
import { assertEveryOperationBound } from './resources/handlers.js';
import { routeOperations } from './operations/routes.js';
import { createLogger, type Logger } from './logging/logger.js';
import { describeStartupFailure, OpenedResources, startupStage } from './startup-failure.js';
import { logStartSummary } from './startup-summary.js';

/** How long a failed start waits for what it opened to close before it exits anyway. */
const ABORT_CLOSE_MS = 5000;

/** What is open now, closed in `CLOSE_ORDER` (see src/composition.ts). */
const opened = new OpenedResources(CLOSE_ORDER);

/** Stage 1: every setting parsed, and (for the API) every operation of the spec bound to a handler. */
async function configure(): Promise<Config> {
  const config = await startupStage('invalid configuration', () => loadConfig());
  if (config.role !== 'worker') await startupStage('cannot serve the spec', () => assertEveryOperationBound(routeOperations()));
  return config;
}

async function start(): Promise<Logger> {
  const config = await configure();
  const logger = createLogger(config.logLevel);
  const clock = systemClock;

  // Stage 2: the database, migrated and open.
  const target = databaseTarget(config);
  const db = await startupStage(`cannot open the database (${describeTarget(target)})`, () => openDatabase(target));
  opened.track('database', () => db.close());
  logger.info({ database: describeTarget(target) }, 'database migrated');

  // Stage 3: the admin credentials and the development account.
  const adminDigest = await startupStage('cannot prepare the admin credentials', () => ensureAdminCredentials(db, config, logger));
  await startupStage('cannot prepare the development account', () => ensureDevAccount(db, config, clock, logger));

  // Stage 4, listening (the API, or a worker's METRICS_PORT), then stage 5, the worker and the purge timers.
  const services = await createServices(config, { target, db, clock, logger, adminDigest, opened });
  const roles = await startRoles(services);
  if (roles.api) logStartSummary(logger, config, target, roles.api.url);
  return logger;
}

/** Stops taking requests, lets in-flight ones finish, stops the worker, then closes the database. */
async function shutdown(logger: Logger, signal: string): Promise<void> {
  logger.info({ signal }, 'shutting down');
  await opened.closeAll(logger);
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
  await opened.closeAll();
  clearTimeout(cut);
  process.exit(1);
}
