import type {
  AnyError,
  AuthenticationError,
  CardError,
  HttpRequestError,
  IdempotencyError,
  InternalError,
  InvalidRequestError,
  NotFoundError,
  PaymentIntent,
  PaymentIntentStateError,
  PermissionError,
  RateLimitError,
  ServiceUnavailableError,
  SetupIntent,
  SetupIntentCardError,
  SetupIntentStateError,
} from './generated/payments.js';

/**
 * The error object of any error answer: a union discriminated by `type`, then by `code`. A setup
 * intent's decline (`SetupIntentCardError`, with `setup_intent` and no charge) is the one kind that
 * only its own operations answer, so it stands beside the spec's `AnyError`.
 */
export type PaymentsErrorObject = AnyError | SetupIntentCardError;

/**
 * A non-2xx answer as an exception: what `autoPaginate` and `unwrap` throw. Each error `type` has
 * its subclass (`PaymentsCardError` for `card_error`, …), so `instanceof` narrows as `switch`
 * does on the error object; `error` is that object as the server sent it.
 */
export class PaymentsError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The error object of the envelope, or undefined when the body was not one (a proxy's page). */
  readonly error: PaymentsErrorObject | undefined;
  readonly type: PaymentsErrorObject['type'] | undefined;
  readonly code: PaymentsErrorObject['code'] | undefined;
  /** The parameter at fault, in form notation (`metadata[order]`). */
  readonly param: string | undefined;
  /** The request's id, to quote when asking about it (its `Request-Id` header). */
  readonly requestId: string | undefined;

  constructor(status: number, body: unknown) {
    const error = envelopeError(body);
    super(error?.message ?? `Request failed with status ${status}`);
    this.name = new.target.name;
    this.status = status;
    this.error = error;
    this.type = error?.type;
    this.code = error?.code;
    this.param = error?.param;
    this.requestId = error?.request_id;
  }

  /** The error of an answer, as the subclass of its `type` (a plain `PaymentsError` if it has none). */
  static from(status: number, body: unknown): PaymentsError {
    const type = envelopeError(body)?.type;
    const Subclass = type === undefined ? PaymentsError : SUBCLASSES[type];
    return new Subclass(status, body);
  }
}

/** 400, 404, 405, 406, 408, 413, 415: the request cannot be done as sent. */
export class PaymentsInvalidRequestError extends PaymentsError {
  declare readonly error: InvalidRequestError | PaymentIntentStateError | SetupIntentStateError | NotFoundError | HttpRequestError;
  declare readonly type: 'invalid_request_error';
  /** The payment intent as it is now, when the request acted on one. */
  get paymentIntent(): PaymentIntent | undefined {
    return 'payment_intent' in this.error ? this.error.payment_intent : undefined;
  }
  /** The setup intent as it is now, when the request acted on one. */
  get setupIntent(): SetupIntent | undefined {
    return 'setup_intent' in this.error ? this.error.setup_intent : undefined;
  }
}

/**
 * 402: the card was declined. A payment's decline records the failed charge and carries the
 * payment intent; a setup's carries the setup intent (no charge is made).
 */
export class PaymentsCardError extends PaymentsError {
  declare readonly error: CardError | SetupIntentCardError;
  declare readonly type: 'card_error';
  /** Why the card was declined (`insufficient_funds`, …). */
  get declineCode(): CardError['decline_code'] {
    return this.error.decline_code;
  }
  /** The id of the failed charge (a payment's decline). */
  get charge(): string | undefined {
    return 'charge' in this.error ? this.error.charge : undefined;
  }
  /** The payment intent as it is now, back in `requires_payment_method` (a payment's decline). */
  get paymentIntent(): PaymentIntent | undefined {
    return 'payment_intent' in this.error ? this.error.payment_intent : undefined;
  }
  /** The setup intent as it is now, back in `requires_payment_method` (a setup's decline). */
  get setupIntent(): SetupIntent | undefined {
    return 'setup_intent' in this.error ? this.error.setup_intent : undefined;
  }
}

/** 401: no valid credentials were sent. */
export class PaymentsAuthenticationError extends PaymentsError {
  declare readonly error: AuthenticationError;
  declare readonly type: 'authentication_error';
}

/** 403: the credentials lack the scope the operation needs. */
export class PaymentsPermissionError extends PaymentsError {
  declare readonly error: PermissionError;
  declare readonly type: 'permission_error';
}

/** 400 `idempotency_key_reused`, 409 `idempotency_key_in_use`. */
export class PaymentsIdempotencyError extends PaymentsError {
  declare readonly error: IdempotencyError;
  declare readonly type: 'idempotency_error';
}

/** 429: too many requests (already retried by the client, `maxRetries` times). */
export class PaymentsRateLimitError extends PaymentsError {
  declare readonly error: RateLimitError;
  declare readonly type: 'rate_limit_error';
}

/**
 * 500: an unexpected error on the server (`internal_error`; `requestId` identifies it in the
 * server's log), or 503: a service the request depends on is out for now (`service_unavailable`;
 * already retried by the client, after `Retry-After`, `maxRetries` times).
 */
export class PaymentsApiError extends PaymentsError {
  declare readonly error: InternalError | ServiceUnavailableError;
  declare readonly type: 'api_error';
}

const SUBCLASSES: Record<PaymentsErrorObject['type'], new (status: number, body: unknown) => PaymentsError> = {
  invalid_request_error: PaymentsInvalidRequestError,
  card_error: PaymentsCardError,
  authentication_error: PaymentsAuthenticationError,
  permission_error: PaymentsPermissionError,
  idempotency_error: PaymentsIdempotencyError,
  rate_limit_error: PaymentsRateLimitError,
  api_error: PaymentsApiError,
};

/** The envelope's error object, if the body is the envelope of a known error type. */
function envelopeError(body: unknown): PaymentsErrorObject | undefined {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, message } = error as { type?: unknown; message?: unknown };
  if (typeof type !== 'string' || !(type in SUBCLASSES) || typeof message !== 'string') return undefined;
  return error as PaymentsErrorObject;
}

/** An answer of the client: `{ data, status, headers }`. */
interface Answer {
  status: number;
  data: unknown;
}

/** The object of an answer's 2xx member: `Charge` for `createCharge`. */
export type SuccessData<R> = R extends { status: 200 | 201 | 202 | 204; data: infer D } ? D : never;

/**
 * The object of a successful answer, or its error thrown as the `PaymentsError` subclass of its
 * type, for code that prefers exceptions to checking `status`:
 *
 * ```ts
 * try {
 *   const charge = await unwrap(payments.createCharge({ amount: 2000, currency: 'usd', source: 'tok_visa' }));
 * } catch (error) {
 *   if (error instanceof PaymentsCardError) console.log(error.declineCode, error.charge);
 * }
 * ```
 */
export async function unwrap<R extends Answer>(answer: R | Promise<R>): Promise<SuccessData<R>> {
  const { status, data } = await answer;
  if (status >= 200 && status < 300) return data as SuccessData<R>;
  throw PaymentsError.from(status, data);
}
