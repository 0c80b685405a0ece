import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Registry } from 'prom-client';
import type { ServiceSettings } from './operations/operations.js';
import type { Database } from './db/database.js';
import { createAuthenticationPageRouter } from './customer-pages/authentication.router.js';
import { createDashboardRouter } from './dashboard/dashboard.router.js';
import { createDocsRouter } from './docs/docs.router.js';
import { createGuidesRouter } from './docs/guides.router.js';
import { createHomeRouter } from './docs/home.router.js';
import { createGraphiQLRouter } from './graphql/graphiql.router.js';
import { createReceiptsRouter } from './receipts/receipts.router.js';
import type { EventStream } from './live-events/event-stream.js';
import { createGraphQLRouter } from './graphql/http-handler.js';
import type { Clock } from './domain/clock.js';
import type { SecretBox } from './domain/secret-box.js';
import type { Authenticator } from './auth/authenticator.js';
import { authenticateEarly } from './http/authenticate-early.js';
import { bindOperation, dispatchOperations } from './http/binder.js';
import { createErrorMapper, lastResortErrorHandler } from './http/error-mapper.js';
import { createBodyReader } from './http/bodies.js';
import { readRequestParameters } from './http/request-parameters.js';
import { handlers } from './resources/handlers.js';
import { replayIdempotentRequests } from './http/idempotent-replay.js';
import type { Handler, OperationId } from './operations/operations.js';
import { assignRequestId } from './http/request-id.js';
import { routeOperations } from './operations/routes.js';
import { cacheValidatorRoutePatterns } from './http/validator-route-cache.js';
import { limitRequestsPerCredential, type RateLimiter } from './http/rate-limit.js';
import {
  inviteExpectedBodies,
  refuseOversizedBodies,
  refuseRepeatedHeaders,
} from './http/request-guards.js';
import { limitBodyTime } from './http/request-timeouts.js';
import { DEFAULT_HTTP_TIMEOUTS } from './http/server-timeouts.js';
import { negotiateVersion } from './http/versioning.js';
import type { Logger } from './logging/logger.js';
import { logRequests } from './http/request-logging.js';
import { recordRequestLogs } from './http/request-log.js';
import type { RequestLogBuffer } from './resources/request-logs/request-log-buffer.js';
import { measureRequests } from './metrics/measure-requests.js';
import { serveMetrics } from './metrics/metrics-endpoint.js';
import { RequestMetrics } from './metrics/request-metrics.js';
import { specValidator } from './http/spec-validator.js';
import { chain } from './http/step-chain.js';
import { allowPublishableCrossOrigin } from './http/cross-origin.js';
import { answerOAuthErrors } from './http/oauth-errors.js';
import { prepareOAuthRequests } from './http/oauth-requests.js';

export interface AppDeps {
  db: Database;
  /** The read replica (`DATABASE_READ_URL`) that lists and events are read from; left out: `db`. */
  readDb?: Database;
  clock: Clock;
  logger: Logger;
  auth: Authenticator;
  idempotencyTtlSeconds: number;
  validateResponses: boolean;
  settings: ServiceSettings;
  /** Seals and opens the stored secrets. */
  secrets: SecretBox;
  /** Counts API requests per credential; undefined: no rate limits (`RATE_LIMIT_PER_SECOND=0`, most tests). */
  rateLimiter?: RateLimiter;
  /** How long a request's body may take to arrive after its headers (`HTTP_BODY_TIMEOUT_SECONDS`); default 10 s. */
  bodyTimeoutMs?: number;
  /** The live feed of committed events (GraphQL subscriptions read it; the HTTP door only passes it on). */
  eventStream: EventStream;
  /** Accept only trusted persisted GraphQL documents (`GRAPHQL_TRUSTED_DOCUMENTS_ONLY`). */
  graphqlTrustedDocumentsOnly?: boolean;
  /**
   * The process's metrics registry: `GET /metrics` serves it (admin HTTP Basic unless `public`) and
   * every API request is counted and timed in it. Undefined: neither (most tests).
   */
  metrics?: { registry: Registry; public: boolean };
  /** Where accounts' requests are recorded for `GET /v1/request_logs`; undefined: nowhere. */
  requestLog?: RequestLogBuffer;
  /** How many API processes serve this port (the home page says it); default 1. */
  apiProcesses?: number;
  /** The webhook retry schedule in seconds (`WEBHOOK_RETRY_SCHEDULE`), which the dashboard states; default none. */
  webhookRetryScheduleSeconds?: readonly number[];
}

/**
 * Helmet configured for JSON responses (OWASP's REST headers): nothing may be framed or loaded
 * from an API response, it is never sniffed as HTML, and HTTPS is sticky. The HTML-only headers
 * (XSS filter, DNS prefetch, download options, …) are left to the pages, so the hot path sets
 * five headers instead of twelve.
 */
const jsonSecurityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  referrerPolicy: { policy: 'no-referrer' },
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: { action: 'deny' },
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/** Assembles the Express app: ids, headers, versioning, bodies, validation, handlers, errors. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');

  // Every step before the error handlers is one layer of Express's router (step-chain.ts).
  const steps: Array<RequestHandler | RequestHandler[]> = [];
  steps.push(assignRequestId);
  if (deps.logger.isLevelEnabled('info')) steps.push(logRequests(deps.logger));
  // Pages first (receipts among them), with helmet's full set of headers for HTML; everything after answers JSON.
  const home = createHomeRouter({
    database: deps.db.dialect,
    readReplica: deps.readDb !== undefined && deps.readDb !== deps.db,
    apiProcesses: deps.apiProcesses ?? 1,
    publicOrigin: deps.settings.publicOrigin,
  });
  const dashboard = createDashboardRouter({
    retryScheduleSeconds: deps.webhookRetryScheduleSeconds ?? [],
  });
  const authentication = createAuthenticationPageRouter(deps);
  steps.push(
    skippedByApiPaths(
      home,
      createDocsRouter(),
      createGraphiQLRouter(),
      dashboard,
      createGuidesRouter(),
      createReceiptsRouter(deps.db),
      authentication,
    ),
  );
  steps.push(jsonSecurityHeaders);
  steps.push(healthChecks(deps.db));
  const routes = routeOperations();
  if (deps.metrics) {
    const { registry } = deps.metrics;
    steps.push(
      serveMetrics({
        registry,
        authorize: deps.metrics.public ? undefined : deps.auth.limited.adminBasic,
      }),
    );
    // After pages, probes and scrapes, which are not API traffic; before everything else, so that the
    // duration covers the whole pipeline and 404s, 429s and GraphQL are counted too.
    steps.push(measureRequests(new RequestMetrics(registry, routes)));
  }
  // The request log: past pages, probes and scrapes, which no account makes, and before the checks and
  // authentication, so that a logged request's duration covers them.
  if (deps.requestLog) steps.push(recordRequestLogs(deps.requestLog, deps.clock));
  // Nothing below waits for a body longer than this (408), or at all for a request it refuses anyway:
  // a declared body over 1 MB (413), a repeated Authorization or Idempotency-Key (400), refused
  // credentials (401, or 429 once the address has failed too often).
  steps.push(limitBodyTime(deps.bodyTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.bodyMs));
  steps.push(refuseOversizedBodies);
  steps.push(refuseRepeatedHeaders);
  steps.push(negotiateVersion);
  // Browsers' preflights carry no credential: answered before authentication.
  steps.push(allowPublishableCrossOrigin());
  steps.push(authenticateEarly(deps.auth));
  // Before bodies and validation, so a refused request costs one counter update and nothing more.
  if (deps.rateLimiter) steps.push(limitRequestsPerCredential(deps.rateLimiter));
  // Only now, past every check that refuses a request unread, is a waiting client asked for its body.
  steps.push(inviteExpectedBodies);
  steps.push(
    createGraphQLRouter({
      ...deps,
      trustedDocumentsOnly: deps.graphqlTrustedDocumentsOnly ?? false,
    }),
  );
  steps.push(createBodyReader(routes));
  // Path and query strictly, like form bodies: NUL refused, `limit=1e1` refused (the validator would coerce it).
  steps.push(readRequestParameters(routes));
  steps.push(replayIdempotentRequests(deps));
  cacheValidatorRoutePatterns();
  steps.push(specValidator(deps.validateResponses, deps.auth, routes));
  // The token endpoint's HTTP Basic client credentials, allowance and headers (RFC 6749).
  steps.push(prepareOAuthRequests(deps.auth.failures));
  const bound = new Map(
    routes.map((route) => [
      route.operationId,
      bindOperation(route, handlers[route.operationId] as Handler<OperationId>, deps),
    ]),
  );
  steps.push(dispatchOperations(bound));
  app.use(chain(steps));
  // The token endpoint answers its errors in RFC 6749's shape; everything else reaches the mapper.
  app.use(answerOAuthErrors(deps.auth.failures));
  app.use(createErrorMapper(deps.logger));
  // Response validation reports a refused response through a `next` captured before the handlers;
  // when the refused response is the mapper's own, that `next` lands here rather than in Express's
  // HTML page, which would show the stack outside production.
  app.use(lastResortErrorHandler(deps.logger));
  return app;
}

/**
 * The pages' routers, which `/v1/...` requests skip with one prefix test instead of walking their
 * dozen routes one pattern at a time (no page lives under `/v1/`).
 */
function skippedByApiPaths(...routers: express.RequestHandler[]): express.RequestHandler {
  const pages = express.Router();
  pages.use(...routers);
  return (req, res, next) => (req.path.startsWith('/v1/') ? next() : pages(req, res, next));
}

/** `/healthz` and `/readyz`: both prove the database answers (the server listens only once migrated). */
function healthChecks(db: Database): express.RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' || (req.path !== '/healthz' && req.path !== '/readyz')) return next();
    await db.one('SELECT 1 AS ok');
    res.json({ status: 'ok' });
  };
}
