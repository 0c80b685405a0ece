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
      /** What the replay check found for an idempotent POST's key before validation. */
      idempotencyPrecheck?: KeyPrecheck;
    }
  }
}
