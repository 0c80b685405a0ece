import type { components } from '../../../generated/openapi.js';

/** An error of the token endpoint, as RFC 6749 §5.2 defines it (the spec's `OAuthError`). */
export type OAuthErrorBody = components['schemas']['OAuthError'];
export type OAuthErrorCode = OAuthErrorBody['error'];

/** The spec's error_description limit. */
const MAX_DESCRIPTION = 1024;

/**
 * A refusal of the token endpoint. It answers in RFC 6749's shape rather than the API's error
 * envelope (src/http/oauth-errors.ts writes it): 401 for `invalid_client`, 400 for the rest.
 */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  get status(): 400 | 401 {
    return this.code === 'invalid_client' ? 401 : 400;
  }

  toBody(): OAuthErrorBody {
    const description =
      this.message.length <= MAX_DESCRIPTION ? this.message : `${this.message.slice(0, MAX_DESCRIPTION - 1)}…`;
    return { error: this.code, error_description: description };
  }
}

export function isOAuthError(error: unknown): error is OAuthError {
  return error instanceof OAuthError;
}
