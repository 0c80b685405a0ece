/**
 * The transport every generated SDK function calls (orval's fetch mutator): base URL, API key,
 * automatic idempotency keys and retries. The client factory passes its settings in `init.client`.
 */
export interface TransportSettings {
  baseUrl: string;
  apiKey?: string;
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
  const headers = new Headers(request.headers);
  if (client.apiKey) headers.set('Authorization', `Bearer ${client.apiKey}`);
  // One key for every attempt of this call, so that a retried POST can never act twice.
  if (request.method === 'POST' && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', crypto.randomUUID());

  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await client.fetch(new URL(url, client.baseUrl), { ...request, headers });
    } catch (error) {
      if (attempt >= client.maxRetries) throw error;
      await sleep(client.backoffMs(attempt + 1));
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

function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 60) * 1000 : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
