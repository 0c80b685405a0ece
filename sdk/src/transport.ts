/**
 * The transport every generated SDK function calls (orval's fetch mutator).
 *
 * The client factory passes its settings through `init.client`; see `client.ts`.
 */
export interface TransportSettings {
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

export type TransportInit = RequestInit & { client?: TransportSettings };

/** Sends one request and returns `{ data, status, headers }` as the generated types expect. */
export async function transport<T>(url: string, init: TransportInit = {}): Promise<T> {
  const { client, ...request } = init;
  if (!client) throw new TypeError('payments-api SDK: call operations through createClient()');
  const headers = new Headers(request.headers);
  if (client.apiKey) headers.set('Authorization', `Bearer ${client.apiKey}`);
  const doFetch = client.fetch ?? fetch;
  const response = await doFetch(new URL(url, client.baseUrl), { ...request, headers });
  const text = await response.text();
  const data = text ? JSON.parse(text) : undefined;
  return { data, status: response.status, headers: response.headers } as T;
}
