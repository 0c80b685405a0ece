import { ApiError } from '../domain/errors.js';
import { absentFeatureOf } from './absent-features.js';

/**
 * What a schema check found wrong, whichever validator found it: express-openapi-validator on the
 * REST door, Ajv on the GraphQL door's bodies. Both are read into this shape, and one function
 * turns it into the error a client gets, so that both doors name a parameter the same way.
 */
export interface SchemaViolation {
  /** JSON Pointer segments from the body or query root, e.g. `['metadata', 'order']`. */
  segments: string[];
  kind: 'missing' | 'unknown' | 'invalid';
  /** The validator's own words, for `invalid` (`must be integer`). */
  message: string;
  /** The operation refusing it, when known: some parameters belong to an absent product only in some operations. */
  operationId?: string;
}

/**
 * The error for a schema violation: `parameter_missing`, `parameter_unknown` or
 * `parameter_invalid` naming the parameter in form notation, or `body_invalid` when the body as a
 * whole is wrong (no parameter to name).
 */
export function violationError(violation: SchemaViolation): ApiError {
  if (violation.segments.length === 0)
    return new ApiError('body_invalid', `Invalid request: ${violation.message}.`);
  const param = toFormNotation(violation.segments);
  switch (violation.kind) {
    case 'missing':
      return new ApiError('parameter_missing', `Missing required param: ${param}.`, { param });
    case 'unknown':
      return new ApiError('parameter_unknown', unknownParameterMessage(violation.segments, param, violation.operationId), {
        param,
      });
    case 'invalid':
      return new ApiError('parameter_invalid', `Invalid ${param}: ${violation.message}.`, {
        param,
      });
  }
}

/**
 * What an unknown parameter is: a parameter of a product this server does not offer, said so
 * (`application_fee_amount belongs to Connect …`), or simply unknown (a typo, a field of another API).
 */
function unknownParameterMessage(segments: string[], param: string, operationId?: string): string {
  const absent = segments.length === 1 ? absentFeatureOf(param, operationId) : undefined;
  if (absent)
    return `Received ${param}, which belongs to ${absent.feature} (${absent.about}): this server does not offer it.`;
  return `Received unknown parameter: ${param}.`;
}

/** `metadata/order` → `metadata[order]`, the notation of form bodies and payment SDKs. */
export function toFormNotation(segments: string[]): string {
  const [first, ...rest] = segments.map((s) =>
    decodeSegment(s.replace(/~1/g, '/').replace(/~0/g, '~')),
  );
  return first + rest.map((s) => `[${s}]`).join('');
}

/** A path segment as the client wrote it; a key like `50%` is not URI-encoded, and stays as it is. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
