import type { Request, RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import { ApiError } from '../domain/errors.js';
import type { AuthResult } from '../auth/authenticator.js';

export interface MetricsEndpointOptions {
  registry: Registry;
  /**
   * Checks the operator's credentials (the admin HTTP Basic of `/admin`); undefined when
   * `METRICS_PUBLIC=true` lets anyone who reaches the port scrape.
   */
  authorize?: (req: Request) => Promise<AuthResult>;
}

/**
 * `GET /metrics` in Prometheus' text format. Metrics show traffic, error rates and backlog, which
 * are the operator's business: without `authorize` passing, a 401 in the error envelope (with the
 * `WWW-Authenticate` challenge HTTP requires), before any metric is collected.
 */
export function serveMetrics(options: MetricsEndpointOptions): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' || req.path !== '/metrics') return next();
    if (options.authorize) {
      const verdict = await options.authorize(req);
      if (!verdict.ok) {
        const challenge = { 'WWW-Authenticate': 'Basic realm="payments-api metrics", charset="UTF-8"' };
        return next(new ApiError(verdict.code, verdict.message, { headers: challenge }));
      }
    }
    const body = await options.registry.metrics();
    res.setHeader('Content-Type', options.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  };
}
