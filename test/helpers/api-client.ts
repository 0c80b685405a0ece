/** A response as tests look at it. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  /** Send the body form-encoded with bracket notation instead of JSON. */
  form?: boolean;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** A thin HTTP client for tests: real requests to the real server, nothing mocked. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey?: string,
  ) {}

  get<T = any>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, undefined, options);
  }

  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, body, options);
  }

  put<T = any>(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('PUT', path, body, options);
  }

  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('PATCH', path, body, options);
  }

  delete<T = any>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('DELETE', path, undefined, options);
  }

  async request<T>(method: string, path: string, body: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    let payload: string | undefined;
    if (body !== undefined) {
      if (options.form) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        payload = toForm(body as Record<string, unknown>);
      } else {
        headers['Content-Type'] = 'application/json';
        payload = JSON.stringify(body);
      }
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body: payload });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }
}

/** `{ metadata: { order: '6735' }, expand: ['customer'] }` → `metadata[order]=6735&expand[0]=customer`. */
export function toForm(body: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    } else {
      pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(value === null || value === undefined ? '' : String(value))}`);
    }
  };
  for (const [key, value] of Object.entries(body)) add(key, value);
  return pairs.join('&');
}
