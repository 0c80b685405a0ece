import * as generated from './generated/payments.js';
import {
  apiKeyAuthorizer,
  clientCredentialsAuthorizer,
  signingAuthorizer,
  type Authorizer,
  type ClientCredentials,
  type SigningKey,
} from './credentials.js';
import { createRawRequest, type RawRequest } from './raw-request.js';
import type { TransportSettings } from './transport.js';

/** The generated operations (the URL builders `get…Url` and constants left out). */
type OperationName = {
  [K in keyof typeof generated]: K extends `get${string}Url`
    ? never
    : (typeof generated)[K] extends (...args: never[]) => Promise<unknown>
      ? K
      : never;
}[keyof typeof generated];

/** The keys of `T` that may be left out. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/**
 * `T` whose optional properties also accept `undefined`, so that `{ starting_after: after }` with
 * `after: string | undefined` compiles under `exactOptionalPropertyTypes`. The request is the same
 * as when the property is left out: the URL builders skip `undefined` query values, JSON drops
 * them from bodies, and the transport drops them from headers.
 */
export type AcceptingUndefined<T> = T extends object
  ? { [K in keyof T]: K extends OptionalKeys<T> ? T[K] | undefined : T[K] }
  : T;

/** A generated operation as the client exposes it: the same parameters (names, order, optionality) and answer. */
type ClientOperation<F> = F extends (...args: infer A) => infer R
  ? (...args: { [I in keyof A]: AcceptingUndefined<A[I]> }) => R
  : never;

/**
 * The API's operations, one method each, named by operationId (`listCharges`, `createCharge`, …),
 * and `rawRequest` for any method and path.
 */
export type PaymentsClient = { [K in OperationName]: ClientOperation<(typeof generated)[K]> } & {
  /** Sends any method and path with form or query parameters, through the same credentials and retries. */
  rawRequest: RawRequest;
};

/** Authenticate with an API key: a secret key `sk_test_…` or a restricted key `rk_test_…`. */
export interface ApiKeyOption {
  apiKey: string;
  clientCredentials?: never;
  signingKey?: never;
}

/** Authenticate with an OAuth client's id and secret: the client fetches access tokens and renews them before they expire. */
export interface ClientCredentialsOption {
  clientCredentials: ClientCredentials;
  apiKey?: never;
  signingKey?: never;
}

/** Authenticate by signing every request (RFC 9421, hmac-sha256) with a signing key. */
export interface SigningKeyOption {
  signingKey: SigningKey;
  apiKey?: never;
  clientCredentials?: never;
}

/** How the client authenticates: exactly one of an API key, client credentials, or a signing key. */
export type ClientCredentialOptions = ApiKeyOption | ClientCredentialsOption | SigningKeyOption;

export type ClientOptions = ClientCredentialOptions & {
  /** Where the server is; default `http://127.0.0.1:4242`. */
  baseUrl?: string;
  /** Retries after network errors, 409 (key in use), 429 and 5xx; default 2. */
  maxRetries?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
};

/**
 * A client whose methods are the API's operations, typed from the spec: each resolves to
 * `{ data, status, headers }`, a union over the operation's declared statuses.
 *
 * ```ts
 * const payments = createClient({ apiKey: process.env.API_KEY! });
 * const res = await payments.createCharge({ amount: 2000, currency: 'usd', source: 'tok_visa' });
 * if (res.status === 200) console.log(res.data.id);
 * ```
 */
export function createClient(options: ClientOptions): PaymentsClient {
  const baseUrl = options.baseUrl ?? 'http://127.0.0.1:4242';
  const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  const settings: TransportSettings = {
    baseUrl,
    authorizer: authorizerFor(options, baseUrl, fetcher),
    maxRetries: options.maxRetries ?? 2,
    fetch: fetcher,
    backoffMs: (attempt) => Math.min(500 * 2 ** (attempt - 1), 8000) * (0.8 + Math.random() * 0.4),
  };
  const client: Record<string, unknown> = { rawRequest: createRawRequest(settings) };
  for (const [name, value] of Object.entries(generated)) {
    if (typeof value !== 'function' || /^get\w+Url$/.test(name)) continue;
    const operation = value as (...args: unknown[]) => Promise<unknown>;
    // The generated functions take `options: RequestInit` last; the settings travel in it.
    const optionsIndex = operation.length - 1;
    client[name] = (...args: unknown[]) => {
      const callArgs = [...args];
      callArgs[optionsIndex] = { ...(callArgs[optionsIndex] as object), client: settings };
      return operation(...callArgs);
    };
  }
  return client as PaymentsClient;
}

function authorizerFor(options: ClientCredentialOptions, baseUrl: string, fetcher: typeof fetch): Authorizer {
  const given = [options.apiKey, options.clientCredentials, options.signingKey].filter((c) => c !== undefined);
  if (given.length !== 1) throw new TypeError('payments-api SDK: pass exactly one of apiKey, clientCredentials or signingKey');
  if (options.apiKey !== undefined) return apiKeyAuthorizer(options.apiKey);
  if (options.clientCredentials) return clientCredentialsAuthorizer(options.clientCredentials, baseUrl, fetcher);
  return signingAuthorizer(options.signingKey!);
}
