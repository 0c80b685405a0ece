import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { loadSpec } from '../spec.js';
import { violationError } from '../validation-errors.js';

/** The header that carries the key, as the spec names it. */
const HEADER = 'Idempotency-Key';

/** A parameter of the spec's `components/parameters`, as far as it is read here. */
interface SpecParameter {
  name?: string;
  in?: string;
  schema?: object;
}

let validate: ValidateFunction | undefined;

/**
 * The spec's schema of the `Idempotency-Key` header parameter (its length and characters),
 * compiled once per process: the rule express-openapi-validator applies on the REST door.
 */
function keyValidator(): ValidateFunction {
  if (validate) return validate;
  const parameters = Object.values(loadSpec().components.parameters ?? {}) as SpecParameter[];
  const parameter = parameters.find((p) => p.in === 'header' && p.name?.toLowerCase() === HEADER.toLowerCase());
  if (!parameter?.schema) throw new Error(`The spec declares no ${HEADER} header parameter in components/parameters`);
  validate = new Ajv2020({ strict: false }).compile(parameter.schema);
  return validate;
}

/**
 * Checks a key against the spec's rule for `Idempotency-Key`, for callers that do not come
 * through the REST validator (the GraphQL door). Throws `parameter_invalid` naming `param`, the
 * name the caller gave the key (the header, or an argument), with the validator's words.
 */
export function assertValidIdempotencyKey(key: string, param: string): void {
  const check = keyValidator();
  if (check(key)) return;
  throw violationError({ segments: [param], kind: 'invalid', message: check.errors?.[0]?.message ?? 'is invalid' });
}
