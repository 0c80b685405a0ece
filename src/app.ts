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
import { createGraphQLDoor, GRAPHQL_PATH } from './graphql/graphql-door.js';
import type { Clock } from './domain/clock.js';
import type { SecretBox } from './domain/secret-box.js';
import type { Authenticator } from './auth/authenticator.js';
import { createEdge } from './edge/edge.js';
import type { RateLimiter } from './edge/rate-limit.js';
import { DEFAULT_HTTP_TIMEOUTS } from './edge/server-timeouts.js';
import { recordRequestLogs } from './edge/request-log.js';
import { chain } from './edge/step-chain.js';
import { createErrorMapper, lastResortErrorHandler } from './http/error-mapper.js';
import { answerOAuthErrors } from './http/oauth-errors.js';
import { createRestDoor } from './http/rest-door.js';
import { routeOperations } from './operations/routes.js';
import type { Logger } from './logging/logger.js';
import type { RequestLogBuffer } from './resources/request-logs/request-log-buffer.js';
import { measureRequests } from './metrics/measure-requests.js';
import { serveMetrics } from './metrics/metrics-endpoint.js';
import { RequestMetrics } from './metrics/request-metrics.js';

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

/** Assembles the Express app: the edge, its doors (REST, GraphQL), and the error handlers. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');

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
  const pages = [
    home,
    createDocsRouter(),
    createGraphiQLRouter(),
    dashboard,
    createGuidesRouter(),
    createReceiptsRouter(deps.db),
    createAuthenticationPageRouter(deps),
  ];
  const infrastructure: RequestHandler[] = [healthChecks(deps.db)];
  const routes = routeOperations();
  // The steps that count and record the requests past the pages, probes and scrapes.
  const counted: RequestHandler[] = [];
  if (deps.metrics) {
    const { registry } = deps.metrics;
    infrastructure.push(
      serveMetrics({
        registry,
        authorize: deps.metrics.public ? undefined : deps.auth.limited.adminBasic,
      }),
    );
    // After pages, probes and scrapes, which are not API traffic; before everything else, so that the
    // duration covers the whole pipeline and 404s, 429s and GraphQL are counted too.
    counted.push(measureRequests(new RequestMetrics(registry, routes)));
  }
  // The request log: past pages, probes and scrapes, which no account makes, and before the checks and
  // authentication, so that a logged request's duration covers them.
  if (deps.requestLog) counted.push(recordRequestLogs(deps.requestLog, deps.clock));
  const rest = createRestDoor(deps, routes);
  const graphql = createGraphQLDoor({
    ...deps,
    trustedDocumentsOnly: deps.graphqlTrustedDocumentsOnly ?? false,
  });
  app.use(
    createEdge({
      logger: deps.logger,
      auth: deps.auth,
      rateLimiter: deps.rateLimiter,
      bodyTimeoutMs: deps.bodyTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.bodyMs,
      front: [beforeTheApi(pages, infrastructure), ...counted],
      doors: { mounted: { [GRAPHQL_PATH]: graphql }, otherwise: rest },
    }),
  );
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
 * The pages (helmet's full headers), then the JSON subset of helmet's headers, then the probes and
 * scrapes, as one step that `/v1/...` requests pass with one prefix test and the JSON headers,
 * instead of walking the pages' dozen routes one pattern at a time (no page, probe or scrape lives
 * under `/v1/`).
 */
function beforeTheApi(
  pages: RequestHandler[],
  infrastructure: RequestHandler[],
): RequestHandler {
  const router = express.Router();
  router.use(...pages);
  const others = chain([router, jsonSecurityHeaders, ...infrastructure]);
  return (req, res, next) =>
    req.path.startsWith('/v1/') ? jsonSecurityHeaders(req, res, next) : others(req, res, next);
}

/** `/healthz` and `/readyz`: both prove the database answers (the server listens only once migrated). */
function healthChecks(db: Database): express.RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' || (req.path !== '/healthz' && req.path !== '/readyz')) return next();
    await db.one('SELECT 1 AS ok');
    res.json({ status: 'ok' });
  };
}
