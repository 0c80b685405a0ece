export type { AccessTokenSettings } from '../operations/operations.js';

/** An external issuer whose access tokens are accepted. */
export interface ExternalJwtIssuer {
  issuer: string;
  audience: string;
  jwksUrl: URL;
  /** How long a fetch of the JWKS may take (`JWT_JWKS_TIMEOUT_MS`); default 5 s. */
  jwksTimeoutMs?: number;
}

/** How long a fetch of an external issuer's JWKS may take, unless `JWT_JWKS_TIMEOUT_MS` says otherwise. */
export const DEFAULT_JWKS_TIMEOUT_MS = 5000;
