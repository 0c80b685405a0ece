export type { AccessTokenSettings } from '../operations/operations.js';

/** An external issuer whose access tokens are accepted. */
export interface ExternalJwtIssuer {
  issuer: string;
  audience: string;
  jwksUrl: URL;
}
