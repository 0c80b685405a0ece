import type { RequestHandler } from 'express';
import { findNul, hasNul, nulError } from '../domain/nul-guard.js';
import { loadSpec, type SpecDocument } from '../operations/spec.js';
import { parseForm } from './form-parser.js';
import { FormCoercion, type Schema } from './form-values.js';
import { createRouteMatcher } from './route-matcher.js';
import type { RouteOperation } from '../operations/routes.js';

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  schema?: Schema;
}

/**
 * The path and query parameters of an API operation, read strictly before the validator: a path
 * parameter or a query value holding U+0000 is a 400 naming it, and the query string is parsed
 * like a form body (see `parseForm`) and coerced strictly by each parameter's schema: `limit=10`
 * becomes 10 and `delivery_success=True` true, while `limit=1e1` or `limit=0x10` is a 400 naming
 * `limit`. The result replaces `req.query`, so that the validator, which coerces query values
 * loosely itself, only ever sees values of the right type (which it leaves as they are).
 *
 * Requests with no query string and no `%00` in their path pass in one check.
 */
export function readRequestParameters(routes: readonly RouteOperation[]): RequestHandler {
  const spec = loadSpec();
  const coercion = new FormCoercion(spec);
  const match = createRouteMatcher(routes.map((route) => ({ ...route, querySchemas: querySchemas(spec, coercion, route) })));
  return (req, _res, next) => {
    const start = req.url.indexOf('?');
    const query = start === -1 ? '' : req.url.slice(start + 1);
    if (query === '' && !req.path.includes('%00')) return next();
    const matched = match(req.method, req.path);
    if (!matched) return next(); // not an operation: the validator answers 404 or 405
    try {
      for (const [name, raw] of Object.entries(matched.pathParams)) {
        if (hasNul(decoded(raw))) throw nulError([name]);
      }
      if (query !== '') {
        const form = parseForm(query);
        const nul = findNul(form);
        if (nul) throw nulError(nul);
        const values: Record<string, unknown> = Object.create(null);
        for (const [name, value] of Object.entries(form)) {
          const known = matched.route.querySchemas.has(name);
          // Unknown names are kept as sent: the validator refuses them by name.
          values[name] = known
            ? coercion.coerce(value, matched.route.querySchemas.get(name), [name], { singleAsList: true })
            : value;
        }
        // Express 5 reparses `req.query` on every read; an own property holds the coerced values.
        Object.defineProperty(req, 'query', { value: values, writable: true, configurable: true, enumerable: true });
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The schemas of an operation's query parameters (path-level and operation-level), by name. */
function querySchemas(spec: SpecDocument, coercion: FormCoercion, route: RouteOperation): Map<string, Schema | undefined> {
  const item = spec.paths[route.specPath] as { parameters?: Parameter[] } & Record<string, { parameters?: Parameter[] }>;
  const declared = [...(item.parameters ?? []), ...(item[route.method]?.parameters ?? [])];
  const schemas = new Map<string, Schema | undefined>();
  for (const reference of declared) {
    const parameter = coercion.resolve(reference) as Parameter;
    if (parameter.in === 'query') schemas.set(parameter.name, parameter.schema);
  }
  return schemas;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed: the validator refuses it
  }
}
