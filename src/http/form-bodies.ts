import { loadSpec } from '../operations/spec.js';
import type { FormObject } from './form-parser.js';
import { FormCoercion, type Schema } from './form-values.js';
import { createRouteMatcher } from './route-matcher.js';
import type { RouteOperation } from '../operations/routes.js';

/**
 * Form-encoded bodies (`amount=2000&metadata[order]=6735`) arrive as strings. This turns a parsed
 * form into the types the operation's schema declares, strictly (see `FormCoercion`), so that it
 * is validated exactly like JSON, which is never coerced: `"250"` stays an error in JSON. An empty
 * value of a declared top-level field means "unset": null where the field is nullable, left out
 * otherwise.
 *
 * Returns a function of method, path and form giving the body to validate, or undefined when no
 * operation takes a form body there (the validator then answers 404, 405 or 415). Throws a 400
 * `parameter_invalid` naming the first field that does not fit.
 */
export function createFormCoercion(
  routes: readonly RouteOperation[],
): (method: string, path: string, form: FormObject) => unknown {
  const coercion = new FormCoercion(loadSpec());
  const match = createRouteMatcher(routes.filter((route) => route.formSchema));
  return (method, path, form) => {
    const route = match(method, path)?.route;
    if (!route) return undefined;
    const schema = route.formSchema as Schema;
    const properties = coercion.resolve(schema)?.properties ?? {};
    for (const [name, value] of Object.entries(form)) {
      // An undeclared name stays, empty or not, for the validator to refuse as parameter_unknown:
      // dropping it would accept anything (a JSON text sent as a form reads as one empty name).
      if (value !== '' || !Object.hasOwn(properties, name)) continue;
      if (allowsNull(coercion, properties[name])) (form as Record<string, unknown>)[name] = null;
      else delete form[name];
    }
    return coercion.coerce(form, schema, []);
  };
}

function allowsNull(coercion: FormCoercion, property: Schema | undefined): boolean {
  const schema = coercion.resolve(property);
  if (!schema) return false;
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  return (schema.oneOf ?? []).some((option) => allowsNull(coercion, option));
}
