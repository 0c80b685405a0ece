/**
 * Forwards events to a local URL as the webhook worker delivers them: the same JSON body, the same
 * headers (`Service-Signature` and the Standard Webhooks headers, signed afresh with the current
 * time by the worker's own signing code), so that a handler verified here works unchanged when
 * the server delivers to it.
 */
import { signatureHeaders } from '../webhooks/signing.js';
import type { PaymentsEvent } from '../../sdk/src/generated/events.js';

/** What the local URL answered, or why it could not. */
export interface ForwardResult {
  status?: number;
  durationMs: number;
  error?: string;
}

/** The worker's own limit for one attempt. */
const FORWARD_TIMEOUT_MS = 15_000;
/** The worker's `User-Agent`, so that a handler sees the same request. */
const USER_AGENT = 'payments-api-webhooks/1';

/** A function that POSTs one event to `url`, signed with `secret`. */
export function createForwarder(url: string, secret: string): (event: PaymentsEvent) => Promise<ForwardResult> {
  return async (event) => {
    const body = JSON.stringify(event);
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      ...signatureHeaders(body, event.id, [secret], Math.floor(Date.now() / 1000)),
    };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      // Redirects are not followed, as the worker does not follow them.
      const response = await fetch(url, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
      await response.arrayBuffer();
      return { status: response.status, durationMs: elapsed() };
    } catch (error) {
      return { durationMs: elapsed(), error: describe(error) };
    }
  };
}

/** fetch's errors hide the reason in `cause` (ECONNREFUSED, …). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return `timed out after ${FORWARD_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

/**
 * Accepts what a developer types: `localhost:3000/webhooks` is `http://localhost:3000/webhooks`.
 * Returns undefined when it is not an http(s) URL.
 */
export function forwardUrl(given: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`;
  try {
    const url = new URL(withScheme);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
