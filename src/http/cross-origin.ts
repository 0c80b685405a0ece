import type { RequestHandler } from 'express';
import { routeOperations } from '../operations/routes.js';
import { createRouteMatcher } from './route-matcher.js';

/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * Cross-origin calls from browsers (CORS), for the operations a publishable key may call and for
 * no other: a merchant's page, on its own origin, reads and confirms an intent with the
 * publishable key and the client secret. Any origin may (the key is public, and a call without
 * the client secret opens nothing); no cookie is ever involved, so no credentialed mode. A
 * preflight is answered here, before authentication, as it carries no credential by design.
 */
export function allowPublishableCrossOrigin(): RequestHandler {
  const routes = routeOperations().filter((route) => route.publishable);
  const match = createRouteMatcher(routes);
  const methods = [...new Set(routes.map((route) => route.method.toUpperCase()))].join(', ');
  return (req, res, next) => {
    if (!req.headers.origin) return next();
    const preflight = req.method === 'OPTIONS' && typeof req.headers['access-control-request-method'] === 'string';
    const method = preflight ? String(req.headers['access-control-request-method']).toUpperCase() : req.method;
    if (!match(method, req.path)) return next();
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (!preflight) {
      res.setHeader('Access-Control-Expose-Headers', 'Request-Id, Idempotent-Replayed');
      return next();
    }
    res.setHeader('Access-Control-Allow-Methods', methods);
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key');
    res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
    res.status(204).end();
  };
}
