import express, { type RequestHandler } from 'express';
import { createFormCoercion } from './form-bodies.js';
import type { RouteOperation } from './routes.js';

const BODY_LIMIT = '1mb';

/**
 * Reads a request body, JSON or form-encoded (bracket notation, coerced by the operation's
 * schema), up to 1 MB. Requests without a body (GET, most DELETEs) skip it in one check.
 */
export function createBodyReader(routes: readonly RouteOperation[]): RequestHandler {
  const json = express.json({ limit: BODY_LIMIT });
  const form = express.urlencoded({ extended: true, limit: BODY_LIMIT, parameterLimit: 1000 });
  const coerceForm = createFormCoercion(routes);
  return (req, res, next) => {
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return next();
    json(req, res, (jsonError?: unknown) => {
      if (jsonError) return next(jsonError);
      form(req, res, (formError?: unknown) => (formError ? next(formError) : coerceForm(req, res, next)));
    });
  };
}
