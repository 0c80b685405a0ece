import type { OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import type { AuthFailure, Principal } from '../auth/authenticator.js';
import type { KeyPrecheck } from '../operations/idempotency.js';

/** What the steps before a handler leave on the request. */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The operation the validator matched, with its decoded path parameters. */
      openapi?: OpenApiRequestMetadata;
      /** Who the credentials belong to, once the security step accepted them. */
      principal?: Principal;
      /** Why the security step refused the credentials. */
      authFailure?: AuthFailure;
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
