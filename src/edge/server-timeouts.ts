import type { Server } from 'node:http';

/** How long the HTTP server waits on a client (docs/operating.md#timeouts-and-limits). */
export interface HttpTimeouts {
  /** Time to send the request line and headers (`HTTP_HEADERS_TIMEOUT_SECONDS`): slow headers are cut off. */
  headersMs: number;
  /** Time to send the body once the headers are in (`HTTP_BODY_TIMEOUT_SECONDS`): then 408 `request_timeout`. */
  bodyMs: number;
  /** How long an idle keep-alive connection is kept open after a response (`HTTP_KEEP_ALIVE_TIMEOUT_SECONDS`). */
  keepAliveMs: number;
  /** Margin of Node's `requestTimeout` over the other two; default `BACKSTOP_MARGIN_MS` (tests with short timeouts: shorter too). */
  backstopMarginMs?: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 10_000,
  bodyMs: 10_000,
  keepAliveMs: 5_000,
};

/** Margin of Node's `requestTimeout` over the headers and body timeouts, so that the app's 408 always comes first. */
const BACKSTOP_MARGIN_MS = 5_000;

/**
 * Sets the server's timeouts against slow and idle clients. Call it before `listen()`: Node reads
 * `connectionsCheckingInterval` when listening starts.
 *
 * - `headersTimeout`: a client that has not sent its complete headers in time gets Node's bare
 *   408 and is disconnected (slowloris). No request exists yet, so there is no request id to give.
 * - The body has its own timer in the app (request-timeouts.ts), which answers 408 in the error
 *   envelope; `requestTimeout` (headers + body + 5 s) is only Node's backstop behind it.
 * - `keepAliveTimeout`: an idle keep-alive connection is closed (Node adds one second of slack).
 * - Node checks the first two every `connectionsCheckingInterval` (30 s by default, which would
 *   let a 10 s limit run to 40 s): here a quarter of the headers timeout, at most one second.
 * A WebSocket (GraphQL subscriptions) is not subject to any of them: once upgraded, the socket
 * leaves Node's HTTP connection tracking, and the `ws` library clears its idle timeout.
 */
export function applyServerTimeouts(server: Server, timeouts: HttpTimeouts): void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.headersMs + timeouts.bodyMs + (timeouts.backstopMarginMs ?? BACKSTOP_MARGIN_MS);
  server.keepAliveTimeout = timeouts.keepAliveMs;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(1000, Math.max(100, Math.floor(timeouts.headersMs / 4)));
}
