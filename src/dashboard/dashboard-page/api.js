/* global window, sessionStorage, fetch, URL, crypto */
/*
 * The dashboard's only way out: requests to this server's REST API, authenticated by the key the
 * person typed in. The key is kept in sessionStorage (this tab only, gone when it closes), sent
 * only in the Authorization header of same-origin requests, and never put in a URL.
 */

const KEY_STORAGE = 'payments-api.dashboard.api-key';

/** The key typed in this tab, or null. */
export function storedKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function storeKey(key) {
  sessionStorage.setItem(KEY_STORAGE, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY_STORAGE);
}

/** A refused request, carrying the API's error envelope (`message`, `code`, `request_id`). */
export class ApiError extends Error {
  constructor(message, { status = 0, code = null, requestId = null } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

/**
 * Calls the REST API: `path` is a `/v1/…` path, `query` a flat object (undefined and '' values are
 * left out; an array is sent as `name[]` once per item, the API's list notation), `body` sent as
 * JSON, `idempotencyKey` sent as `Idempotency-Key`. Resolves with the parsed body; rejects with an
 * ApiError whose message is the one a person should read.
 */
export async function api(method, path, { query = {}, body, idempotencyKey } = {}) {
  const key = storedKey();
  if (!key) throw new ApiError('Enter an API key first.', { status: 401 });
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(`${name}[]`, String(item));
    else if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  }
  const headers = { Authorization: `Bearer ${key}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
  let response;
  try {
    // The API never redirects; refusing to follow one keeps the key from being replayed elsewhere.
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      redirect: 'error',
    });
  } catch (error) {
    throw new ApiError(`The server could not be reached: ${error.message}`);
  }
  const text = await response.text();
  const parsed = parseJson(text);
  if (response.ok && parsed !== undefined) return parsed;
  throw errorOf(response, parsed, text);
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The error envelope's message when there is one, else the status and the start of the body. */
function errorOf(response, parsed, text) {
  const envelope = parsed && parsed.error;
  if (envelope && typeof envelope.message === 'string') {
    return new ApiError(envelope.message, {
      status: response.status,
      code: envelope.code ?? null,
      requestId: envelope.request_id ?? response.headers.get('Request-Id'),
    });
  }
  return new ApiError(`HTTP ${response.status}: ${text.slice(0, 200)}`, {
    status: response.status,
    requestId: response.headers.get('Request-Id'),
  });
}

/**
 * A new `Idempotency-Key`: 128 random bits. getRandomValues rather than randomUUID, which only a
 * secure context has (a server reached by a LAN name over plain HTTP is not one).
 */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dashboard-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** A readable line for any failure: the API's message, its code and the request id to look up in the logs. */
export function describeError(error) {
  if (!(error instanceof ApiError)) return `Something went wrong in the page: ${error && error.message}`;
  const details = [error.code, error.requestId && `request ${error.requestId}`].filter(Boolean);
  return details.length > 0 ? `${error.message} (${details.join(', ')})` : error.message;
}

/** The most pages listAll() reads of one list: 1,000 objects, far more than one payment has. */
const MAX_PAGES = 10;

/**
 * Every object of a list (newest first, as the API lists them), read page by page with
 * `starting_after`. Resolves with `{ data, complete }`: `complete` is false when the list was
 * longer than MAX_PAGES pages and only its newest objects were read.
 */
export async function listAll(path, query = {}) {
  const data = [];
  let cursor = {};
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await api('GET', path, { query: { ...query, limit: 100, ...cursor } });
    data.push(...list.data);
    if (!list.has_more || list.data.length === 0) return { data, complete: true };
    cursor = { starting_after: list.data[list.data.length - 1].id };
  }
  return { data, complete: false };
}
