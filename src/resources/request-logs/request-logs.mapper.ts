import type { components } from '../../../generated/openapi.js';
import type { RequestLogRow } from './request-logs.repo.js';

/** One API request of the account, as the server answered it. */
export type RequestLog = components['schemas']['RequestLog'];
export type RequestLogMethod = RequestLog['method'];

/**
 * The entry as the API shows it. The recorder stores only the spec's methods (see
 * `isLoggedMethod`), so the column holds one of them.
 */
export function toRequestLogResource(row: RequestLogRow): RequestLog {
  return {
    id: row.id,
    object: 'request_log',
    created: row.created,
    livemode: false,
    method: row.method as RequestLogMethod,
    path: row.path,
    status: row.status,
    duration_ms: row.duration_ms,
    idempotency_key: row.idempotency_key,
  };
}

const METHODS: ReadonlySet<string> = new Set<RequestLogMethod>(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Whether a request's method is one the spec's `RequestLog.method` can show (an exotic one is not recorded). */
export function isLoggedMethod(method: string): method is RequestLogMethod {
  return METHODS.has(method);
}
