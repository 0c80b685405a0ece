import type { AccessTokenSettings, ServiceSettings } from '../../operations/operations.js';

/** What issuing access tokens reads (`OAUTH_ISSUER`, `ACCESS_TOKEN_TTL_SECONDS`, `TOKEN_KEY_ROTATION_SECONDS`). */
export type TokenSettings = AccessTokenSettings;

/** `OAUTH_ISSUER`, `ACCESS_TOKEN_TTL_SECONDS` and `TOKEN_KEY_ROTATION_SECONDS` left unset. */
export const DEFAULT_TOKEN_SETTINGS: TokenSettings = {
  issuer: 'payments-api',
  ttlSeconds: 900,
  keyRotationSeconds: 30 * 86_400,
};

/**
 * The token settings handed to the services with the others (`ServiceSettings.accessTokens`), or
 * the defaults when the composition root hands none: the verifier (src/auth/access-tokens.ts) must
 * be given the same ones, or the tokens issued here are refused there.
 */
export function tokenSettingsOf(settings: ServiceSettings): TokenSettings {
  return settings.accessTokens ?? DEFAULT_TOKEN_SETTINGS;
}
