import { transport, type TransportSettings } from './transport.js';

/**
 * Calls to any path of the API by method and path, for what the typed operations do not cover
 * (a path the SDK predates, a command-line tool, exploring). They go through the same transport
 * as the typed operations: credentials, retries, and an automatic `Idempotency-Key` on POST.
 */

/** The HTTP methods the API uses. */
export type RawMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A value of a raw request's parameters: nested objects and arrays are sent in bracket notation. */
export type RawParamValue = string | number | boolean | null | undefined | RawParamValue[] | { [key: string]: RawParamValue };

/** A raw request's parameters: form fields as given, or a plain object encoded in bracket notation. */
export type RawParams = URLSearchParams | { [key: string]: RawParamValue };

/** Per-call options of a raw request. */
export interface RawRequestOptions {
  /** The `Idempotency-Key` of a POST (default: a random UUID, the same for every retry). */
  idempotencyKey?: string | undefined;
  /** Aborts the request (and its retries). */
  signal?: AbortSignal | undefined;
}

/** A raw request's answer, shaped like the typed operations': the body as parsed JSON, status and headers. */
export interface RawResponse {
  data: unknown;
  status: number;
  headers: Headers;
}

/**
 * Sends `method path` with `params`: as a form body (`application/x-www-form-urlencoded`) for
 * POST, PUT and PATCH, as the query string for GET and DELETE.
 *
 * ```ts
 * const res = await payments.rawRequest('POST', '/v1/customers', { email: 'jenny@example.com', metadata: { order: '6735' } });
 * ```
 */
export type RawRequest = (method: RawMethod, path: string, params?: RawParams, options?: RawRequestOptions) => Promise<RawResponse>;

/** The `rawRequest` method of a client with these transport settings. */
export function createRawRequest(settings: TransportSettings): RawRequest {
  return async (method, path, params, options = {}) => {
    // A full URL would send the credentials to whatever host it names: only paths of this server.
    if (!path.startsWith('/') || path.startsWith('//')) {
      throw new TypeError(`payments-api SDK: rawRequest takes a path starting with "/", got ${JSON.stringify(path)}`);
    }
    const fields = params instanceof URLSearchParams ? params : encodeParams(params ?? {});
    const headers: Record<string, string> = {};
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    const init = { method, headers, client: settings, ...(options.signal ? { signal: options.signal } : {}) };
    if (method === 'GET' || method === 'DELETE') return transport<RawResponse>(withQuery(path, fields), init);
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    return transport<RawResponse>(path, { ...init, body: fields.toString() });
  };
}

/**
 * `params` as form fields in bracket notation, as the API reads them: `{ metadata: { order: '6735' } }`
 * → `metadata[order]=6735`, `{ expand: ['customer'] }` → `expand[0]=customer`. `undefined` is left
 * out; `null` is sent empty, which the API reads as "unset".
 */
export function encodeParams(params: { [key: string]: RawParamValue }): URLSearchParams {
  const fields = new URLSearchParams();
  const add = (name: string, value: RawParamValue): void => {
    if (value === undefined) return;
    if (value === null) fields.append(name, '');
    else if (Array.isArray(value)) value.forEach((item, index) => add(`${name}[${index}]`, item));
    else if (typeof value === 'object') for (const [key, item] of Object.entries(value)) add(`${name}[${key}]`, item);
    else fields.append(name, String(value));
  };
  for (const [key, value] of Object.entries(params)) add(key, value);
  return fields;
}

/** `path` with `fields` added to whatever query it already has. */
function withQuery(path: string, fields: URLSearchParams): string {
  const query = fields.toString();
  if (query === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}
