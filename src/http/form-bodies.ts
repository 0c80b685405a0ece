import type { RequestHandler } from 'express';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadSpec } from '../spec.js';
import type { RouteOperation } from './routes.js';

/**
 * Form-encoded bodies (`amount=2000&metadata[order]=6735`) arrive as strings. This step turns
 * them into the types their schema declares, so that they are validated exactly like JSON, which
 * is never coerced: `"250"` stays an error in JSON. An empty value means "unset": null where the
 * field is nullable, left out otherwise.
 */
export function createFormCoercion(routes: readonly RouteOperation[]): RequestHandler {
  const spec = loadSpec();
  const ajv = new Ajv2020({ strict: false, coerceTypes: true, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'spec', components: spec.components });
  const coercers = routes
    .filter((route) => route.formSchema)
    .map((route) => ({
      method: route.method.toUpperCase(),
      pattern: new RegExp(`^${route.specPath.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      coerce: ajv.compile({ $ref: `spec${(route.formSchema as { $ref: string }).$ref}` }),
      properties: schemaProperties(spec, route.formSchema),
    }));

  return (req, _res, next) => {
    if (!req.body || typeof req.body !== 'object' || !req.is('application/x-www-form-urlencoded')) return next();
    const coercer = coercers.find((c) => c.method === req.method && c.pattern.test(req.path));
    if (!coercer) return next(); // not an operation: the validator answers 404 or 405
    const body = req.body as Record<string, unknown>;
    for (const [name, value] of Object.entries(body)) {
      if (value !== '') continue;
      if (allowsNull(spec, coercer.properties[name])) body[name] = null;
      else delete body[name];
    }
    coercer.coerce(body); // coerces in place; the validator reports what is still wrong
    next();
  };
}

type Schema = { $ref?: string; properties?: Record<string, Schema>; type?: string | string[]; oneOf?: Schema[] };

function resolve(spec: object, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  while (current?.$ref) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], spec) as Schema;
  }
  return current;
}

function schemaProperties(spec: object, schema: unknown): Record<string, Schema> {
  return resolve(spec, schema as Schema)?.properties ?? {};
}

function allowsNull(spec: object, property: Schema | undefined): boolean {
  const schema = resolve(spec, property);
  if (!schema) return false;
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  return (schema.oneOf ?? []).some((option) => allowsNull(spec, option));
}
