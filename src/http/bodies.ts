import express, { type RequestHandler } from 'express';
import { ApiError } from '../domain/errors.js';
import { findNul, nulError } from '../domain/nul-guard.js';
import { createFormCoercion } from './form-bodies.js';
import { parseForm } from './form-parser.js';
import type { RouteOperation } from '../operations/routes.js';

const BODY_LIMIT = '1mb';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Reads a request body, JSON or form-encoded (bracket notation, coerced strictly by the operation's
 * schema), up to 1 MB. A string holding U+0000 anywhere in it, keys included, is a 400 naming the
 * field, before anything else looks at the body. Requests without a body (GET, most DELETEs) skip
 * it in one check.
 */
export function createBodyReader(routes: readonly RouteOperation[]): RequestHandler {
  const json = express.json({ limit: BODY_LIMIT });
  // Read as text and parsed here rather than by qs, which merges and drops fields (see form-parser.ts).
  const formText = express.text({ type: FORM_TYPE, limit: BODY_LIMIT });
  const coerceForm = createFormCoercion(routes);
  return (req, res, next) => {
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return next();
    json(req, res, (jsonError?: unknown) => {
      if (jsonError) return next(jsonError);
      if (req.is(FORM_TYPE) && !isUtf8(req.headers['content-type'])) {
        return next(new ApiError('unsupported_media_type', 'Send the body as UTF-8 JSON or form data.'));
      }
      formText(req, res, (formError?: unknown) => {
        if (formError) return next(formError);
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
