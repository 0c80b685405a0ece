import type { ErrorRequestHandler, Request } from 'express';
import type { Logger } from 'pino';
import { ApiError, isApiError, type ErrorCode } from '../domain/errors.js';
import { unusableCredentials, type SchemeName } from './auth.js';
import './request-state.js';
import { requestIdOf } from './request-id.js';

/** One failed check of express-openapi-validator, e.g. `{ path: '/body/amount', errorCode: 'type.openapi.validation' }`. */
interface ValidationItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  errors?: ValidationItem[];
  headers?: Record<string, string>;
  message?: string;
}

/**
 * The one error mapper: every failure becomes the error envelope of the spec, with the request id.
 * Expected failures keep their code and `param`; anything else is a 500 `internal_error` that says
 * nothing but the request id, while the log line keeps the details.
 */
export function createErrorMapper(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const apiError = withinEnvelope(toApiError(error, req));
    const requestId = requestIdOf(res);
    if (apiError.status >= 500) logger.error({ err: error, req_id: requestId }, 'request failed');
    if (res.headersSent) return res.end();
    for (const [name, value] of Object.entries(apiError.details.headers ?? {})) res.setHeader(name, value);
    res.status(apiError.status).json({ error: apiError.toBody(requestId) });
  };
}

/** The envelope's limits (spec `ErrorResponse`): a parameter name or message echoes input, which may be longer. */
const MAX_PARAM = 200;
const MAX_MESSAGE = 1000;

/** The error with `param` and `message` shortened to what the envelope allows (a hostile name can be 1 MB). */
export function withinEnvelope(error: ApiError): ApiError {
  const { param } = error.details;
  if (error.message.length <= MAX_MESSAGE && (param === undefined || param.length <= MAX_PARAM)) return error;
  return new ApiError(error.code, shorten(error.message, MAX_MESSAGE), {
    ...error.details,
    param: param === undefined ? undefined : shorten(param, MAX_PARAM),
  });
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Maps what any layer threw (services, validator, body parsers) to an `ApiError`. */
export function toApiError(error: unknown, req: Request): ApiError {
  if (isApiError(error)) return error;
  const e = (error ?? {}) as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (e.type === 'entity.too.large') return new ApiError('request_too_large', 'The request body is larger than 1 MB.');
  if (e.type === 'entity.parse.failed') {
    return new ApiError('body_invalid', 'The request body could not be parsed; send valid JSON or form data.');
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new ApiError('unsupported_media_type', 'Send the body as UTF-8 JSON or form data.');
  }
  switch (status) {
    case 400:
      return validationError(e.errors ?? []);
    case 401:
      return authenticationError(req);
    case 404:
      return new ApiError('url_not_found', `Unrecognized request URL (${req.method}: ${req.path}).`);
    case 405:
      return new ApiError('method_not_allowed', `${req.method} is not allowed on ${req.path}.`, { headers: e.headers });
    case 413:
      return new ApiError('request_too_large', 'The request body is larger than 1 MB.');
    case 415:
      return new ApiError(
        'unsupported_media_type',
        'Send the body as application/json or application/x-www-form-urlencoded.',
      );
  }
  return new ApiError('internal_error', 'An unexpected error occurred. The request id identifies it in our logs.');
}

/**
 * The 401 of a request. The authenticator leaves its verdict on the request; without one, the
 * validator refused the `Authorization` header before asking it (absent, or of another scheme),
 * and the operation's declared scheme says which credentials were expected.
 */
function authenticationError(req: Request): ApiError {
  const scheme: SchemeName = req.openapi?.schema.security?.some((s) => 'adminBasic' in s) ? 'adminBasic' : 'apiKey';
  const failure = req.authFailure ?? unusableCredentials(scheme, req.headers.authorization);
  return new ApiError(failure.code, failure.message);
}

/** Turns the validator's first failure into a Stripe-style error naming the parameter. */
function validationError(items: ValidationItem[]): ApiError {
  const item = items[0] ?? {};
  const location = (item.path ?? '').split('/').filter(Boolean);
  const where = location[0];
  let segments = location.slice(1);
  let code: ErrorCode = 'parameter_invalid';
  let message = item.message ?? 'is invalid';
  const unknown = /must NOT have additional properties|Unknown query parameter/.exec(message);
  if (item.errorCode?.startsWith('required')) code = 'parameter_missing';
  if (unknown || item.errorCode?.startsWith('additionalProperties')) code = 'parameter_unknown';
  // The validator reports a query parameter by name in its message, and an unknown field as the last segment.
  const quoted = /'([^']+)'/.exec(message);
  if (where === 'query' && quoted && segments.length === 0) segments = [quoted[1]];
  if (segments.length === 0) {
    return new ApiError('body_invalid', `Invalid request: ${message}.`);
  }
  const param = toFormNotation(where === 'headers' ? [headerName(segments[0])] : segments);
  if (code === 'parameter_missing') message = `Missing required param: ${param}.`;
  else if (code === 'parameter_unknown') message = `Received unknown parameter: ${param}.`;
  else message = `Invalid ${param}: ${message}.`;
  return new ApiError(code, message, { param });
}

/** `metadata/order` → `metadata[order]`, the notation of form bodies and payment SDKs. */
export function toFormNotation(segments: string[]): string {
  const [first, ...rest] = segments.map((s) => decodeSegment(s.replace(/~1/g, '/').replace(/~0/g, '~')));
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

function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/**
 * The error handler behind the mapper: writes a 500 envelope directly (not through `res.json`,
 * which response validation wraps), so that nothing, not even a refused error response, reaches
 * Express's default HTML error page.
 */
export function lastResortErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const requestId = requestIdOf(res);
    logger.error({ err: error, req_id: requestId }, 'error response refused');
    if (res.headersSent) return res.end();
    const body = new ApiError('internal_error', 'An unexpected error occurred. The request id identifies it in our logs.');
    res.status(500).type('application/json').end(JSON.stringify({ error: body.toBody(requestId) }));
  };
}
