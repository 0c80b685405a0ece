/** The server's own access tokens. */
export interface AccessTokenSettings {
  /** `OAUTH_ISSUER` (default `payments-api`): the tokens' `iss`, and their `aud`. */
  issuer: string;
  /** `ACCESS_TOKEN_TTL_SECONDS` (default 900, at most 86400): how long a token is valid. */
  ttlSeconds: number;
  /**
   * `TOKEN_KEY_ROTATION_SECONDS` (default 30 days): how old the signing key may grow before a new
   * one takes over; the old one stays published while tokens it signed may still be valid.
   */
  keyRotationSeconds: number;
}

/** An external issuer whose access tokens are accepted. */
export interface ExternalJwtIssuer {
  issuer: string;
  audience: string;
  jwksUrl: URL;
}
