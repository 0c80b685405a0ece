import type { OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import '../edge/request-state.js';
import type { KeyPrecheck } from '../operations/idempotency.js';

/** What the REST door's steps before a handler leave on the request (the edge's: edge/request-state.ts). */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The operation the validator matched, with its decoded path parameters. */
      openapi?: OpenApiRequestMetadata;
      /**
       * The SHA-256 the body must have: a signed request's covered `Content-Digest` (RFC 9530), left by
       * the signature check (src/auth/message-signatures.ts) and compared by the body readers with the bytes read.
       */
      expectedContentDigest?: Buffer;
      /** What the replay check found for an idempotent POST's key before validation. */
      idempotencyPrecheck?: KeyPrecheck;
    }
  }
}
