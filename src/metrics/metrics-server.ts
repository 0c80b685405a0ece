import type { Server } from 'node:http';
import express from 'express';
import { ApiError } from '../domain/errors.js';
import { createErrorMapper } from '../http/error-mapper.js';
import { assignRequestId } from '../http/request-id.js';
import type { Logger } from '../logging/logger.js';
import { serveMetrics, type MetricsEndpointOptions } from './metrics-endpoint.js';

/**
 * A listener that serves only `GET /metrics` (same format and access rules as the API's), for a
 * `ROLE=worker` process, which has no API port (`METRICS_PORT`). Resolves once it listens.
 */
export function startMetricsServer(
  endpoint: MetricsEndpointOptions,
  listen: { host: string; port: number; logger: Logger },
): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.use(assignRequestId);
  app.use(serveMetrics(endpoint));
  app.use((req, _res, next) => next(new ApiError('url_not_found', `Unrecognized request URL (${req.method}: ${req.path}).`)));
  app.use(createErrorMapper(listen.logger));
  return new Promise((resolve, reject) => {
    const server = app.listen(listen.port, listen.host, (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}
