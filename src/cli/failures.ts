/**
 * The CLI's expected failures, each with its exit code: main.ts prints them without a stack.
 * Anything else that escapes a command is a bug and keeps its stack.
 */
import { PaymentsError } from '../../sdk/src/index.js';

/** The command was used wrongly (a missing argument, an unknown event type, no API key): exit 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The API answered with an error (non-2xx): exit 1, and main.ts prints `body` (the error envelope
 * `{"error": {...}}`, or whatever the server sent) as JSON on stderr.
 */
export class ApiFailure extends Error {
  readonly exitCode = 1;
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The answer's body as sent: the error envelope for every error the API itself produces. */
  readonly body: unknown;
  /** The same answer as the SDK's typed error (`PaymentsCardError` for a 402, …). */
  readonly error: PaymentsError;

  constructor(status: number, body: unknown) {
    const error = PaymentsError.from(status, body);
    super(error.message);
    this.name = 'ApiFailure';
    this.status = status;
    this.body = body;
    this.error = error;
  }
}

/**
 * Something the CLI itself decided cannot be done (an event with no deliveries to resend):
 * exit 1 with `message` on stderr.
 */
export class CommandFailure extends Error {
  readonly exitCode = 1;
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/** The server could not be reached (refused, reset, DNS), after the SDK's retries: exit 1. */
export class NetworkFailure extends Error {
  readonly exitCode = 1;
  constructor(apiBase: string, cause: unknown) {
    super(`cannot reach ${apiBase}: ${reasonOf(cause)}`, { cause });
    this.name = 'NetworkFailure';
  }
}

/** The most telling part of a fetch failure: undici's `TypeError('fetch failed')` hides the socket error in `cause`. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** An SDK answer: `{ data, status, headers }`, as every client method resolves to. */
export interface Answer {
  status: number;
  data: unknown;
}

/** The 2xx member's data of an SDK answer type (`Charge` for `createCharge`'s answer). */
export type DataOf<R> = R extends { status: 200 | 201 | 202 | 204; data: infer D } ? D : never;

/**
 * The data of a 2xx answer; any other answer is thrown as an {@link ApiFailure}.
 *
 * ```ts
 * const charge = dataOrThrow(await client.createCharge({ amount: 2000, currency: 'usd', source: 'tok_visa' }));
 * ```
 */
export function dataOrThrow<R extends Answer>(answer: R): DataOf<R> {
  if (answer.status >= 200 && answer.status < 300) return answer.data as DataOf<R>;
  throw new ApiFailure(answer.status, answer.data);
}
