import type { components } from '../../generated/openapi.js';

export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorType = components['schemas']['ErrorType'];
export type DeclineCode = components['schemas']['DeclineCode'];
/** An error response's `error` object: one of the spec's kinds of error (`AnyError`). */
export type ErrorBody = components['schemas']['AnyError'];
/** The `error` of a 402: a declined card, with the decline, the failed charge and the intent. */
export type CardErrorBody = components['schemas']['CardError'];
type PaymentIntent = components['schemas']['PaymentIntent'];
type SetupIntent = components['schemas']['SetupIntent'];

/** Every field an error's body may have, whatever its kind: what readers of any error look at. */
export interface ErrorFields {
  type: ErrorType;
  code: ErrorCode;
  message: string;
  param?: string;
  decline_code?: DeclineCode;
  charge?: string;
  payment_intent?: PaymentIntent;
  setup_intent?: SetupIntent;
  request_id: string;
}

/**
 * The error catalog: every code of the spec's `ErrorCode`, with its HTTP status and type.
 * Typed as a complete record, so a code added to or removed from the spec fails `tsc` here.
 */
export const ERROR_CATALOG: Record<ErrorCode, { status: number; type: ErrorType }> = {
  parameter_invalid: { status: 400, type: 'invalid_request_error' },
  parameter_missing: { status: 400, type: 'invalid_request_error' },
  parameter_unknown: { status: 400, type: 'invalid_request_error' },
  body_invalid: { status: 400, type: 'invalid_request_error' },
  amount_too_large: { status: 400, type: 'invalid_request_error' },
  charge_not_refundable: { status: 400, type: 'invalid_request_error' },
  charge_already_refunded: { status: 400, type: 'invalid_request_error' },
  charge_already_captured: { status: 400, type: 'invalid_request_error' },
  charge_expired_for_capture: { status: 400, type: 'invalid_request_error' },
  payment_intent_unexpected_state: { status: 400, type: 'invalid_request_error' },
  payment_method_unexpected_state: { status: 400, type: 'invalid_request_error' },
  setup_intent_unexpected_state: { status: 400, type: 'invalid_request_error' },
  resource_missing: { status: 404, type: 'invalid_request_error' },
  url_not_found: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  version_not_supported: { status: 406, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  request_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  api_key_missing: { status: 401, type: 'authentication_error' },
  api_key_invalid: { status: 401, type: 'authentication_error' },
  admin_credentials_invalid: { status: 401, type: 'authentication_error' },
  access_token_invalid: { status: 401, type: 'authentication_error' },
  signature_invalid: { status: 401, type: 'authentication_error' },
  client_certificate_missing: { status: 401, type: 'authentication_error' },
  client_certificate_invalid: { status: 401, type: 'authentication_error' },
  insufficient_scope: { status: 403, type: 'permission_error' },
  card_declined: { status: 402, type: 'card_error' },
  authentication_required: { status: 402, type: 'card_error' },
  idempotency_key_reused: { status: 400, type: 'idempotency_error' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
};

/** Extra fields an error may carry besides type, code and message. */
export interface ApiErrorDetails {
  param?: string;
  declineCode?: DeclineCode;
  charge?: string;
  /** The payment intent as it is now (a decline while confirming, a refused transition). */
  paymentIntent?: PaymentIntent;
  /** The setup intent as it is now (a refused transition). */
  setupIntent?: SetupIntent;
  /** Response headers that belong to this error (`Allow`, `Retry-After`). */
  headers?: Record<string, string>;
}

/**
 * An expected failure, thrown by services and middleware and rendered by the one error mapper.
 * Its status and type come from the catalog, never from the thrower.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ApiErrorDetails;

  constructor(code: ErrorCode, message: string, details: ApiErrorDetails = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_CATALOG[this.code].status;
  }

  /**
   * The body's `error` object. The catalog gives the code its type, and the thrower gives the
   * fields its kind requires (a decline its `decline_code`, `charge` and `payment_intent`), so the
   * object is the member of the spec's `AnyError` union for its code; the response validation of
   * the test suite checks every one against the spec.
   */
  toBody(requestId: string): ErrorBody {
    const body: ErrorFields = {
      type: ERROR_CATALOG[this.code].type,
      code: this.code,
      message: this.message,
      request_id: requestId,
    };
    if (this.details.param !== undefined) body.param = this.details.param;
    if (this.details.declineCode !== undefined) body.decline_code = this.details.declineCode;
    if (this.details.charge !== undefined) body.charge = this.details.charge;
    if (this.details.paymentIntent !== undefined) body.payment_intent = this.details.paymentIntent;
    if (this.details.setupIntent !== undefined) body.setup_intent = this.details.setupIntent;
    return body as ErrorBody;
  }
}

/**
 * A declined card's 402 body, with the fields the spec's `CardError` requires; `code` is
 * `card_declined` unless an off-session payment needed authentication (`authentication_required`).
 */
export function cardErrorBody(
  decline: { code?: CardErrorBody['code']; declineCode: DeclineCode; message: string; charge: string; paymentIntent: PaymentIntent },
  requestId: string,
): CardErrorBody {
  return {
    type: 'card_error',
    code: decline.code ?? 'card_declined',
    message: decline.message,
    decline_code: decline.declineCode,
    charge: decline.charge,
    payment_intent: decline.paymentIntent,
    request_id: requestId,
  };
}

/** `resource_missing` for `id`; `detail` adds what the client should know (e.g. how long such objects are kept). */
export function notFound(kind: string, id: string, param = 'id', detail?: string): ApiError {
  return new ApiError('resource_missing', `No such ${kind}: '${id}'${detail ? `; ${detail}` : ''}`, { param });
}

/** How long a client is asked to wait before retrying a request the database could not serve. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * The database could not be reached, or its connection broke under the request (a restart, a cut
 * network, a terminated session): a 503 `service_unavailable` with `Retry-After`. The driver's
 * error is its `cause`, for the log; the client learns only that it may retry.
 */
export class DatabaseUnavailableError extends ApiError {
  constructor(cause: unknown) {
    super('service_unavailable', `The service is briefly unavailable; retry after ${DATABASE_RETRY_AFTER_SECONDS} s.`, {
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    });
    this.name = 'DatabaseUnavailableError';
    this.cause = cause;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
