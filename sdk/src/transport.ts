import type { Authorizer } from './credentials.js';

/**
 * The transport every generated SDK function calls (orval's fetch mutator): base URL, credentials,
 * automatic idempotency keys and retries. The client factory passes its settings in `init.client`.
 */
export interface TransportSettings {
  baseUrl: string;
  /** Adds the credentials to each attempt (an API key, an access token, or a signature). */
  authorizer: Authorizer;
  /** Retries after a network error, 409 `idempotency_key_in_use`, 429 or 5xx. */
  maxRetries: number;
  fetch: typeof fetch;
  /** Delay before retry `attempt` (1-based) when the server sent no `Retry-After`. */
  backoffMs: (attempt: number) => number;
}

export type TransportInit = RequestInit & { client?: TransportSettings };

const RETRYABLE = new Set([409, 429, 500, 502, 503, 504]);

/** Sends one operation and returns `{ data, status, headers }`, as the generated types declare. */
export async function transport<T>(url: string, init: TransportInit = {}): Promise<T> {
  const { client, ...request } = init;
  if (!client) throw new TypeError('payments-api SDK: call operations through createClient()');
  const headers = headersOf(request.headers);
  // One key for every attempt of this call, so that a retried POST can never act twice.
  if (request.method === 'POST' && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', crypto.randomUUID());
  const target = new URL(url, client.baseUrl);
  const body = typeof request.body === 'string' ? request.body : undefined;
  let renewedCredentials = false;

  for (let attempt = 0; ; attempt++) {
    // Credentials are added to every attempt afresh: a signature is never sent twice, a token is renewed.
    const attemptHeaders = new Headers(headers);
    await client.authorizer.authorize({ method: request.method ?? 'GET', url: target, headers: attemptHeaders, body });
    let response: Response;
    try {
      response = await client.fetch(target, { ...request, headers: attemptHeaders });
    } catch (error) {
      if (attempt >= client.maxRetries) throw error;
      await sleep(client.backoffMs(attempt + 1));
      continue;
    }
    // A refused access token (its client narrowed, the server's keys replaced): one retry with a new one.
    if (response.status === 401 && !renewedCredentials && client.authorizer.refused?.()) {
      renewedCredentials = true;
      await response.body?.cancel();
      attempt--;
      continue;
    }
    if (RETRYABLE.has(response.status) && attempt < client.maxRetries) {
      await response.body?.cancel();
      await sleep(retryAfterMs(response) ?? client.backoffMs(attempt + 1));
      continue;
    }
    const text = await response.text();
    return { data: text ? JSON.parse(text) : undefined, status: response.status, headers: response.headers } as T;
  }
}

/**
 * The request's headers without those given as `undefined`: the generated functions spread the
 * caller's headers argument into a plain object, and `Headers` would send such a value as the
 * text "undefined" (the client's types accept `undefined` for an optional header).
 */
function headersOf(init: RequestInit['headers']): Headers {
  if (init === undefined || init instanceof Headers || Array.isArray(init)) return new Headers(init);
  const given = Object.entries(init as Record<string, string | undefined>).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  return new Headers(given);
}

function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 60) * 1000 : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
