import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Request } from 'express';
import { ApiError } from '../domain/errors.js';

/** The largest body any operation accepts (REST and GraphQL alike). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Whether the request announces a body (`Content-Length` above zero, or a chunked one). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The 413 of a declared `Content-Length` over 1 MB, given before a byte of the body is read
 * (a chunked body over the limit is refused by the body reader once 1 MB has arrived). Whatever
 * of the body the client still sends is read and discarded so that the connection can be
 * reused; a client that stops sending it is disconnected by the body timer (request-timeouts.ts).
 */
export function oversizedBody(req: Request): ApiError | undefined {
  const length = req.headers['content-length'];
  // Seven digits at least: the common case costs a length test.
  if (length === undefined || length.length < 7 || !(Number(length) > MAX_BODY_BYTES)) return;
  return new ApiError('request_too_large', 'The request body is larger than 1 MB.');
}

/** Headers a request may send once at most, by lower-case name, and as they are named in errors. */
const SINGLE_HEADERS = ['authorization', 'idempotency-key'] as const;
const HEADER_NAMES = {
  authorization: 'Authorization',
  'idempotency-key': 'Idempotency-Key',
} as const;

/**
 * The 400 `parameter_invalid` of a request that sends `Authorization` or `Idempotency-Key` more
 * than once, naming the header: Node's parser would keep the first `Authorization`
 * (which one the client meant is anyone's guess) and join two `Idempotency-Key`s into one key
 * that neither copy of the request would match. Read from the raw headers, which keep every copy.
 */
export function repeatedHeader(req: Request): ApiError | undefined {
  const raw = req.rawHeaders;
  const counts = [0, 0];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    // A length test first: most headers are neither.
    if (name.length !== 13 && name.length !== 15) continue;
    const which = SINGLE_HEADERS.indexOf(name.toLowerCase() as (typeof SINGLE_HEADERS)[number]);
    if (which < 0 || ++counts[which] < 2) continue;
    const header = HEADER_NAMES[SINGLE_HEADERS[which]];
    const message = `Send one ${header} header: this request has ${countOf(raw, SINGLE_HEADERS[which])}.`;
    return new ApiError('parameter_invalid', message, { param: header });
  }
}

function countOf(raw: string[], lowerName: string): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === lowerName) count++;
  return count;
}

/**
 * Lets the app decide `Expect: 100-continue` (RFC 9110 §10.1.1) instead of Node, which would
 * invite every body at once: requests that ask are handed to the app like any other, and
 * the edge's last step, after the checks that refuse a request unread (size, repeated headers,
 * credentials, rate limits), sends the `100 Continue` (`inviteExpectedBody`). A refused client is told so without having
 * sent its body.
 */
export function serveExpectContinue(server: Server, app: RequestListener): void {
  server.on('checkContinue', app);
}

/** Sends `100 Continue` to a request that waits for it (see `serveExpectContinue`). */
export function inviteExpectedBody(req: Request, res: ServerResponse): void {
  if (req.headers.expect?.toLowerCase() === '100-continue' && !res.headersSent) res.writeContinue();
}
