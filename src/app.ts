import express, { type Express, type Request } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import helmet from 'helmet';
import type { Database } from './db/database.js';
import { createDocsRouter } from './docs/docs.router.js';
import type { Clock } from './domain/clock.js';
import type { Authenticator, AuthResult } from './http/auth.js';
import { bindOperation } from './http/binder.js';
import { createErrorMapper, lastResortErrorHandler } from './http/error-mapper.js';
import { createFormCoercer } from './http/form-bodies.js';
import { handlers } from './http/handlers.js';
import type { Handler, OperationId } from './http/operations.js';
import { assignRequestId } from './http/request-id.js';
import { routeOperations } from './http/routes.js';
import { negotiateVersion } from './http/versioning.js';
import { logRequests, type Logger } from './logger.js';
import { loadSpec } from './spec.js';

export interface AppDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  auth: Authenticator;
  idempotencyTtlSeconds: number;
  validateResponses: boolean;
}

const BODY_LIMIT = '1mb';

/** Assembles the Express app: ids, headers, versioning, bodies, validation, handlers, errors. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');

  app.use(assignRequestId);
  app.use(helmet());
  app.use(logRequests(deps.logger));
  // Liveness and readiness both prove the database answers (the server listens only once migrated).
  const health: express.RequestHandler = async (_req, res) => {
    await deps.db.one('SELECT 1 AS ok');
    res.json({ status: 'ok' });
  };
  app.get('/healthz', health);
  app.get('/readyz', health);
  app.use(createDocsRouter());

  app.use(negotiateVersion);
  app.use(express.json({ limit: BODY_LIMIT }));
  app.use(express.urlencoded({ extended: true, limit: BODY_LIMIT, parameterLimit: 1000 }));

  const routes = routeOperations();
  for (const route of routes) {
    if (route.formSchema) app[route.method](route.expressPath, createFormCoercer(route.formSchema));
  }
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(loadSpec()) as never,
      validateApiSpec: true,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
      validateResponses: deps.validateResponses ? { removeAdditional: false } : false,
      validateFormats: true,
      // Match on the URL after versioning rewrote it (Accept: application/vnd.api.v1+json).
      useRequestUrl: true,
      validateSecurity: {
        handlers: {
          apiKey: (req) => authenticate(req, deps.auth.apiKey),
          adminBasic: (req) => authenticate(req, deps.auth.adminBasic),
        },
      },
    }),
  );
  for (const route of routes) {
    const handler = handlers[route.operationId] as Handler<OperationId>;
    app[route.method](route.expressPath, bindOperation(route, handler, deps));
  }
  app.use(createErrorMapper(deps.logger));
  // Response validation reports a refused response through a `next` captured before the handlers;
  // when the refused response is the mapper's own, that `next` lands here rather than in Express's
  // HTML page, which would show the stack outside production.
  app.use(lastResortErrorHandler(deps.logger));
  return app;
}

/** Runs a credential check for the validator's security step, leaving the outcome on the request. */
async function authenticate(req: Request, check: (req: Request) => Promise<AuthResult>): Promise<boolean> {
  const result = await check(req);
  const target = req as Request & { principal?: unknown; authFailure?: AuthResult };
  if (result.ok) target.principal = result.principal;
  else target.authFailure = result;
  return result.ok;
}
