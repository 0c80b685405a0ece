import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ApiError } from '../domain/errors.js';
import { findNul, nulError } from '../domain/nul-guard.js';
import { loadSpec, type SpecOperation } from './spec.js';
import { violationError } from './validation-errors.js';
import type { OperationId } from './operations.js';
import { routeOperations } from './routes.js';

let validators: Map<string, ValidateFunction> | undefined;

/** One validator per operation with a JSON body, compiled from the spec once per process. */
function bodyValidators(): Map<string, ValidateFunction> {
  if (validators) return validators;
  const spec = loadSpec();
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'spec', components: spec.components });
  validators = new Map();
  for (const route of routeOperations()) {
    const operation = spec.paths[route.specPath][route.method] as SpecOperation;
    const schema = operation.requestBody?.content?.['application/json']?.schema as { $ref?: string } | undefined;
    if (schema?.$ref) validators.set(route.operationId, ajv.compile({ $ref: `spec${schema.$ref}` }));
  }
  return validators;
}

/**
 * Checks a body against the operation's request schema in the spec: the rules a REST request
 * meets in express-openapi-validator, for callers that do not come through it (the GraphQL
 * door). Throws the error a REST client would get, naming the parameter in form notation; a
 * string holding U+0000 is refused too, as the REST body reader refuses it.
 */
export function assertValidBody(operationId: OperationId, body: unknown): void {
  const nul = findNul(body);
  if (nul) throw nulError(nul);
  const validate = bodyValidators().get(operationId);
  if (!validate || validate(body)) return;
  throw toApiError(validate.errors?.[0], operationId);
}

/** Reads Ajv's failure as a schema violation, for the one translator of them. */
function toApiError(error: ErrorObject | undefined, operationId: string): ApiError {
  if (!error) return new ApiError('body_invalid', 'Invalid request.');
  const segments = error.instancePath.split('/').filter(Boolean);
  const message = error.message ?? 'is invalid';
  if (error.keyword === 'required') {
    return violationError({ segments: [...segments, String(error.params.missingProperty)], kind: 'missing', message, operationId });
  }
  if (error.keyword === 'additionalProperties') {
    return violationError({ segments: [...segments, String(error.params.additionalProperty)], kind: 'unknown', message, operationId });
  }
  return violationError({ segments, kind: 'invalid', message, operationId });
}
