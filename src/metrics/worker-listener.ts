import type { Server } from 'node:http';
import express from 'express';
import { ApiError, DATABASE_RETRY_AFTER_SECONDS } from '../domain/errors.js';
import { createErrorMapper } from '../http/error-mapper.js';
import { assignRequestId } from '../edge/request-id.js';
import type { Logger } from '../logging/logger.js';
import { serveMetrics, type MetricsEndpointOptions } from './metrics-endpoint.js';

/** What a worker's readiness is made of. */
export interface WorkerReadiness {
  /** Resolves when the database answers; rejects (a `DatabaseUnavailableError`) when it does not. */
  databaseAnswers(): Promise<void>;
  /** How long ago the webhook worker's loop last looked for due deliveries (or was busy sending them). */
  msSinceLoopRan(): number;
  /** The longest that may be for the worker to be ready. */
  loopStaleAfterMs: number;
}

/**
 * The listener of a `ROLE=worker` process, which has no API: `GET /healthz` (the process is up) and
 * `GET /readyz` (its database answers and its loop ran lately) without credentials, as on the API's
 * port, and `GET /metrics` with the API's access rules (absent when the process keeps no metrics).
 * Anything else is a 404 in the error envelope. Resolves once it listens.
 */
export function startWorkerListener(
  options: { readiness: WorkerReadiness; metrics?: MetricsEndpointOptions },
  listen: { host: string; port: number; logger: Logger },
): Promise<Server> {
  const { readiness } = options;
  const app = express();
  app.disable('x-powered-by');
  app.use(assignRequestId);
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    await readiness.databaseAnswers();
    const idleMs = Math.round(readiness.msSinceLoopRan());
    if (idleMs > readiness.loopStaleAfterMs) {
      throw new ApiError('service_unavailable', `The webhook worker's loop has not run for ${idleMs} ms.`, {
        headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      });
    }
    res.json({ status: 'ok' });
  });
  if (options.metrics) app.use(serveMetrics(options.metrics));
  app.use((req, _res, next) => next(new ApiError('url_not_found', `Unrecognized request URL (${req.method}: ${req.path}).`)));
  app.use(createErrorMapper(listen.logger));
  return new Promise((resolve, reject) => {
    const server = app.listen(listen.port, listen.host, (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}
