import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

/** One kind of request to fire at a server. */
export interface Scenario {
  name: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Send a new `Idempotency-Key` with every request. */
  freshIdempotencyKey?: boolean;
  /** Headers made afresh for every request (a message signature, which may be sent only once). */
  signHeaders?: () => Record<string, string>;
}

/** How hard and how long to load. */
export interface LoadSettings {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

/** What one measured run gave. */
export interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses other than 2xx plus connection errors (timeouts included): should be 0. */
  failures: number;
  statusCodes: Record<string, number>;
}

/** Loads `baseUrl` with the scenario: a warm-up run (discarded), then the measured run. */
export async function measure(
  baseUrl: string,
  scenario: Scenario,
  settings: LoadSettings,
): Promise<Measurement> {
  const request: autocannon.Request = {
    method: scenario.method ?? 'GET',
    path: scenario.path,
    headers: scenario.headers ?? {},
    body: scenario.body,
  };
  if (scenario.freshIdempotencyKey || scenario.signHeaders) {
    request.setupRequest = (req) => {
      const fresh: Record<string, string> = scenario.freshIdempotencyKey ? { 'Idempotency-Key': `bench_${randomUUID()}` } : {};
      req.headers = { ...req.headers, ...fresh, ...scenario.signHeaders?.() };
      return req;
    };
  }
  const options: autocannon.Options = {
    url: baseUrl,
    connections: settings.connections,
    timeout: 10,
    requests: [request],
  };
  if (settings.warmupSeconds > 0)
    await autocannon({ ...options, duration: settings.warmupSeconds });
  const result = await autocannon({ ...options, duration: settings.seconds });
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]),
  );
  return {
    name: scenario.name,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors,
    statusCodes,
  };
}
