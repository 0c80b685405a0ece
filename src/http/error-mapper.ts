import { publishableKeyRefusal } from '../operations/publishable-keys.js';
import type { ErrorRequestHandler, Request } from 'express';
import type { Logger } from 'pino';
import { ApiError, isApiError } from '../domain/errors.js';
import { violationError, type SchemaViolation } from '../operations/validation-errors.js';
import { unusableCredentials, type SchemeName } from '../auth/authenticator.js';
import { refusal } from '../auth/auth-result.js';
import './request-state.js';
import { requestIdOf } from '../edge/request-id.js';

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
    // The database being away is the operator's to see, not a defect of the request.
    if (apiError.code === 'service_unavailable')
      logger.warn({ err: error, req_id: requestId }, 'request failed: the database did not answer');
    else if (apiError.status >= 500)
      logger.error({ err: error, req_id: requestId }, 'request failed');
    if (res.headersSent) return res.end();
    for (const [name, value] of Object.entries(apiError.details.headers ?? {}))
      res.setHeader(name, value);
    res.status(apiError.status).json({ error: apiError.toBody(requestId) });
  };
}

/** The envelope's limits (spec `ErrorResponse`): a parameter name or message echoes input, which may be longer. */
const MAX_PARAM = 200;
const MAX_MESSAGE = 1000;

/** The error with `param` and `message` shortened to what the envelope allows (a hostile name can be 1 MB). */
export function withinEnvelope(error: ApiError): ApiError {
  const { param } = error.details;
  if (error.message.length <= MAX_MESSAGE && (param === undefined || param.length <= MAX_PARAM))
    return error;
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
  if (e.type === 'entity.too.large')
    return new ApiError('request_too_large', 'The request body is larger than 1 MB.');
  if (e.type === 'entity.parse.failed') {
    return new ApiError(
      'body_invalid',
      'The request body could not be parsed; send valid JSON or form data.',
    );
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new ApiError('unsupported_media_type', 'Send the body as UTF-8 JSON or form data.');
  }
  switch (status) {
    case 400:
      return validationError(e.errors ?? [], req.openapi?.schema.operationId);
    case 401:
      return authenticationError(req);
    case 404:
      return new ApiError(
        'url_not_found',
        `Unrecognized request URL (${req.method}: ${req.path}).`,
      );
    case 405:
      return new ApiError('method_not_allowed', `${req.method} is not allowed on ${req.path}.`, {
        headers: e.headers,
      });
    case 413:
      return new ApiError('request_too_large', 'The request body is larger than 1 MB.');
    case 415:
      return new ApiError(
        'unsupported_media_type',
        'Send the body as application/json or application/x-www-form-urlencoded.',
      );
  }
  return new ApiError(
    'internal_error',
    'An unexpected error occurred. The request id identifies it in our logs.',
  );
}

/**
 * The 401 of a request. The authenticator leaves its verdict on the request; without one, no
 * credential was decided (absent, or of another scheme), and the operation's declared scheme says
 * which credentials were expected.
 */
export function authenticationError(req: Request): ApiError {
  // A publishable key is a valid credential that no scheme of this operation accepts.
  if (req.principal?.kind === 'account' && req.principal.credential === 'publishable_key')
    return publishableKeyRefusal();
  const scheme: SchemeName = req.openapi?.schema.security?.some((s) => 'adminBasic' in s)
    ? 'adminBasic'
    : 'apiKey';
  return refusal(req.authFailure ?? unusableCredentials(scheme, req.headers.authorization));
}

/** Reads the validator's first failure as a schema violation, for the one translator of them. */
function validationError(items: ValidationItem[], operationId: string | undefined): ApiError {
  const item = mostSpecific(items);
  const location = (item.path ?? '').split('/').filter(Boolean);
  const where = location[0];
  let segments = location.slice(1);
  const message = item.message ?? 'is invalid';
  let kind: SchemaViolation['kind'] = 'invalid';
  if (item.errorCode?.startsWith('required')) kind = 'missing';
  if (
    /must NOT have additional properties|Unknown query parameter/.test(message) ||
    item.errorCode?.startsWith('additionalProperties')
  ) {
    kind = 'unknown';
  }
  // The validator reports a query parameter by name in its message, and an unknown field as the last segment.
  const quoted = /'([^']+)'/.exec(message);
  if (where === 'query' && quoted && segments.length === 0) segments = [quoted[1]];
  if (where === 'headers' && segments.length > 0) segments = [headerName(segments[0])];
  return violationError({ segments, kind, message, operationId });
}

/**
 * The failure to report: the validator's first, unless that only says the value is not of one form
 * of a union (`created` is one second, or a range) while a failure inside the form the client used
 * says what is wrong there (`created[gt]` below 0, the unknown `created[bogus]`). A type failure has
 * no failures below it but from another form of a union, so a deeper one always is that form's.
 */
function mostSpecific(items: ValidationItem[]): ValidationItem {
  const first = items[0] ?? {};
  if (!first.errorCode?.startsWith('type') || first.path === undefined) return first;
  return items.find((item) => item.path?.startsWith(`${first.path}/`)) ?? first;
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
    const body = new ApiError(
      'internal_error',
      'An unexpected error occurred. The request id identifies it in our logs.',
    );
    res
      .status(500)
      .type('application/json')
      .end(JSON.stringify({ error: body.toBody(requestId) }));
  };
}
