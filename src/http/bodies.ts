import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
import { ApiError } from '../domain/errors.js';
import { findNul, nulError } from '../domain/nul-guard.js';
import { createFormCoercion } from './form-bodies.js';
import { parseForm } from './form-parser.js';
import type { RouteOperation } from '../operations/routes.js';
import './request-state.js';

const BODY_LIMIT = '1mb';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Reads a request body, JSON or form-encoded (bracket notation, coerced strictly by the operation's
 * schema), up to 1 MB. A string holding U+0000 anywhere in it, keys included, is a 400 naming the
 * field, before anything else looks at the body. Requests without a body (GET, most DELETEs) skip
 * it in one check. A signed request's body must match its covered `Content-Digest` (401
 * `signature_invalid`, before the body is parsed: see `checkContentDigest`).
 */
export function createBodyReader(routes: readonly RouteOperation[]): RequestHandler {
  const json = express.json({ limit: BODY_LIMIT, verify: checkContentDigest });
  // Read as text and parsed here rather than by qs, which merges and drops fields (see form-parser.ts).
  const formText = express.text({ type: FORM_TYPE, limit: BODY_LIMIT, verify: checkContentDigest });
  const coerceForm = createFormCoercion(routes);
  return (req, res, next) => {
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return next();
    json(req, res, (jsonError?: unknown) => {
      if (jsonError) return next(asDigestRefusal(jsonError));
      if (req.is(FORM_TYPE) && !isUtf8(req.headers['content-type'])) {
        return next(new ApiError('unsupported_media_type', 'Send the body as UTF-8 JSON or form data.'));
      }
      formText(req, res, (formError?: unknown) => {
        if (formError) return next(asDigestRefusal(formError));
        try {
          const isForm = typeof req.body === 'string';
          if (isForm) req.body = parseForm(req.body as string);
          const nul = findNul(req.body);
          if (nul) throw nulError(nul);
          if (isForm) req.body = coerceForm(req.method, req.path, req.body) ?? req.body;
          next();
        } catch (error) {
          next(error);
        }
      });
    });
  };
}

/** Form data is percent-encoded UTF-8 (WHATWG); another declared charset would be misread. */
function isUtf8(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8' || charset === 'us-ascii';
}

/**
 * A body reader's `verify` hook (body-parser's, called with the raw bytes before they are parsed):
 * throws when the request was signed over a `Content-Digest` (src/auth/message-signatures.ts left
 * its SHA-256 on the request) and the body that arrived has another digest, i.e. the body changed
 * after it was signed. Requests that were not signed pass at the cost of one property read.
 */
export function checkContentDigest(req: IncomingMessage, _res: unknown, body: Buffer): void {
  const expected = (req as Request).expectedContentDigest;
  if (expected === undefined) return;
  if (!createHash('sha256').update(body).digest().equals(expected)) throw new ContentDigestMismatch();
}

/** What `checkContentDigest` throws (body-parser passes it on as the reader's error). */
class ContentDigestMismatch extends Error {
  constructor() {
    super(CONTENT_DIGEST_MISMATCH);
    this.name = 'ContentDigestMismatch';
  }
}

/** The message of the 401 for a signed body that does not match its `Content-Digest`. */
export const CONTENT_DIGEST_MISMATCH = 'The body does not match its Content-Digest.';

/** Whether a body reader failed because the body does not match its signed `Content-Digest`. */
export function isContentDigestMismatch(error: unknown): boolean {
  return error instanceof ContentDigestMismatch;
}

/** A reader's error as the client gets it: a digest mismatch is a 401 `signature_invalid`, anything else as it is. */
function asDigestRefusal(error: unknown): unknown {
  return isContentDigestMismatch(error) ? new ApiError('signature_invalid', CONTENT_DIGEST_MISMATCH) : error;
}
