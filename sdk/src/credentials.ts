/**
 * How the SDK authenticates each request: an API key, an OAuth 2.0 access token it fetches and
 * refreshes itself (client credentials grant), or an HTTP message signature (RFC 9421,
 * `hmac-sha256`) over the method, the URL and the body's digest. Web Crypto only, so it runs in
 * Node 20+, browsers and edge runtimes alike.
 */

/** An OAuth client of the account, made by the operator (`POST /admin/accounts/{id}/oauth_clients`). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** The scopes to ask for; default: every scope of the client. */
  scopes?: string[];
}

/** A signing key of the account, made by the operator (`POST /admin/accounts/{id}/signing_keys`). */
export interface SigningKey {
  /** The key's id, `hmk_…` (the signature's `keyid`). */
  keyId: string;
  /** The key's secret, `hmsec_…` (the HMAC key is the whole string). */
  secret: string;
}

/** What a request looks like to the code that authenticates it. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

/** Adds credentials to a request; called again for every attempt (a signature is never sent twice). */
export interface Authorizer {
  authorize(request: OutgoingRequest): Promise<void>;
  /** Called when the server refused the credentials (401); true when a retry may succeed (a fresh token). */
  refused?(): boolean;
}

/** `Authorization: Bearer <key>`. */
export function apiKeyAuthorizer(apiKey: string): Authorizer {
  return {
    async authorize({ headers }) {
      headers.set('Authorization', `Bearer ${apiKey}`);
    },
  };
}

/** Seconds before its expiry at which a token is replaced, so that none expires in flight. */
const TOKEN_REFRESH_MARGIN_S = 60;

/**
 * Access tokens from `POST /oauth/token`, fetched on first use and again shortly before they
 * expire; concurrent requests share one token request. When the server refuses a token (its client
 * narrowed, or the server's keys replaced), the token is dropped and the request retried once.
 */
export function clientCredentialsAuthorizer(credentials: ClientCredentials, baseUrl: string, fetcher: typeof fetch): Authorizer {
  let token: { value: string; renewAtMs: number } | undefined;
  let pending: Promise<string> | undefined;

  const fetchToken = async (): Promise<string> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (credentials.scopes) form.set('scope', credentials.scopes.join(' '));
    const basic = btoa(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`);
    const response = await fetcher(new URL('/oauth/token', baseUrl), {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const body = (await response.json()) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (!response.ok || !body.access_token) {
      throw new TokenRequestError(response.status, body.error ?? 'invalid_response', body.error_description);
    }
    const lifetime = Math.max((body.expires_in ?? 0) - TOKEN_REFRESH_MARGIN_S, 0);
    token = { value: body.access_token, renewAtMs: Date.now() + lifetime * 1000 };
    return body.access_token;
  };

  const current = async (): Promise<string> => {
    if (token && Date.now() < token.renewAtMs) return token.value;
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  return {
    async authorize({ headers }) {
      headers.set('Authorization', `Bearer ${await current()}`);
    },
    refused() {
      const hadToken = token !== undefined;
      token = undefined;
      return hadToken;
    },
  };
}

/** The token endpoint refused the client's credentials or scopes (RFC 6749 §5.2 `error`). */
export class TokenRequestError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description?: string,
  ) {
    super(`payments-api SDK: the token request failed (${status} ${error}${description ? `: ${description}` : ''})`);
    this.name = 'TokenRequestError';
  }
}

/**
 * Signs every request (RFC 9421): `@method`, `@target-uri` and, with a body, its `Content-Digest`
 * (RFC 9530, sha-256), with `created`, a fresh `nonce`, the `keyid` and `alg="hmac-sha256"`.
 */
export function signingAuthorizer(key: SigningKey): Authorizer {
  const encoder = new TextEncoder();
  const hmacKey = crypto.subtle.importKey('raw', encoder.encode(key.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return {
    async authorize({ method, url, headers, body }) {
      const components: Array<[string, string]> = [
        ['"@method"', method.toUpperCase()],
        ['"@target-uri"', url.href],
      ];
      if (body !== undefined && body !== '') {
        const digest = await crypto.subtle.digest('SHA-256', encoder.encode(body));
        headers.set('Content-Digest', `sha-256=:${base64(digest)}:`);
        components.push(['"content-digest"', headers.get('Content-Digest')!]);
      }
      const created = Math.floor(Date.now() / 1000);
      const nonce = base64(crypto.getRandomValues(new Uint8Array(16)).buffer);
      const params = `(${components.map(([name]) => name).join(' ')});created=${created};keyid="${key.keyId}";alg="hmac-sha256";nonce="${nonce}"`;
      const base = [...components.map(([name, value]) => `${name}: ${value}`), `"@signature-params": ${params}`].join('\n');
      const signature = await crypto.subtle.sign('HMAC', await hmacKey, encoder.encode(base));
      headers.set('Signature-Input', `sig1=${params}`);
      headers.set('Signature', `sig1=:${base64(signature)}:`);
    },
  };
}

function base64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
