import https from 'node:https';
import type { ApiResponse } from './api-client.js';
import type { ClientCredentials } from './test-certificates.js';

/**
 * A client of the mutual-TLS listener: trusts the test CA and presents `credentials` (or no
 * certificate). Each request opens its own connection (`agent: false`), so that one test's
 * certificate is never carried over to another's request on a pooled connection.
 * (`fetch` cannot present a client certificate without undici's `Agent`, which is not a dependency.)
 */
export class TlsClient {
  constructor(
    readonly baseUrl: string,
    private readonly ca: string,
    private readonly credentials?: ClientCredentials,
  ) {}

  get<T = any>(path: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, undefined, headers);
  }

  post<T = any>(
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, body, headers);
  }

  delete<T = any>(path: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  /** `body`: JSON of a value, or a string sent as it is (with the `Content-Type` in `headers`). */
  request<T>(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const raw = typeof body === 'string';
    const payload = body === undefined || raw ? body : JSON.stringify(body);
    const sent =
      payload === undefined || raw ? headers : { ...headers, 'Content-Type': 'application/json' };
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, this.baseUrl),
        {
          method,
          headers: sent,
          agent: false,
          ca: this.ca,
          cert: this.credentials?.cert,
          key: this.credentials?.key,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined)
                responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            resolve({
              status: res.statusCode!,
              body: text ? JSON.parse(text) : undefined,
              headers: responseHeaders,
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}
