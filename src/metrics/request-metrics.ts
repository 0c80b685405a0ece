/**
 * `http_requests_total{operation,method,status}` and `http_request_duration_seconds{operation,method}`,
 * recorded for a few array writes per request.
 *
 * prom-client's `inc` and `observe` hash their label values into a string on every call (~0.75 µs
 * per request for a counter and a histogram, measured here); instead each (operation, method) has
 * plain counters, found by two Map lookups on strings the request already holds, and becomes
 * Prometheus samples only when scraped. Every label is bounded: the spec's operationIds, `graphql`
 * and `other`; the methods Node's HTTP parser accepts; the status codes the app sends.
 */
import type { Registry } from 'prom-client';
import { registerCollectedMetric, type Sample } from './collected-metric.js';

/** Upper bounds in seconds: API requests take milliseconds, so the buckets start at 1 ms. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The requests of one operation and method: how many per status, and how long they took. */
class RequestSeries {
  readonly labels: { operation: string; method: string };
  readonly statusCounts = new Map<number, number>();
  /** Per bucket, not cumulative; the last slot counts what exceeded every bound (`+Inf`). */
  readonly bucketCounts: number[] = new Array(REQUEST_DURATION_BUCKETS.length + 1).fill(0);
  sum = 0;
  count = 0;

  constructor(operation: string, method: string) {
    this.labels = { operation, method };
  }

  record(status: number, seconds: number): void {
    this.statusCounts.set(status, (this.statusCounts.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[bucket]) bucket++;
    this.bucketCounts[bucket]++;
    this.sum += seconds;
    this.count++;
  }

  reset(): void {
    this.statusCounts.clear();
    this.bucketCounts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** The request counters of one app, registered in the process's registry. */
export class RequestMetrics {
  private readonly byOperation = new Map<string, Map<string, RequestSeries>>();

  /**
   * `operations`: the spec's operations, whose duration series start at zero, so that a rate over
   * the first requests after a start is right.
   */
  constructor(registry: Registry, operations: ReadonlyArray<{ operationId: string; method: string }>) {
    for (const { operationId, method } of operations) this.seriesFor(operationId, method.toUpperCase());
    registerCollectedMetric(registry, {
      name: 'http_requests_total',
      help: 'HTTP requests answered, by operation (the spec operationId, graphql, or other), method and status.',
      type: 'counter',
      samples: () => this.requestSamples(),
      reset: () => this.reset(),
    });
    registerCollectedMetric(registry, {
      name: 'http_request_duration_seconds',
      help: 'Time from the request reaching the API pipeline to the last byte of the response being handed to the OS.',
      type: 'histogram',
      samples: () => this.durationSamples(),
      reset: () => this.reset(),
    });
  }

  /** Counts one answered request; `operation` and `method` must come from a bounded set. */
  record(operation: string, method: string, status: number, seconds: number): void {
    this.seriesFor(operation, method).record(status, seconds);
  }

  private seriesFor(operation: string, method: string): RequestSeries {
    let methods = this.byOperation.get(operation);
    if (!methods) this.byOperation.set(operation, (methods = new Map()));
    let series = methods.get(method);
    if (!series) methods.set(method, (series = new RequestSeries(operation, method)));
    return series;
  }

  private *allSeries(): Iterable<RequestSeries> {
    for (const methods of this.byOperation.values()) yield* methods.values();
  }

  private requestSamples(): Sample[] {
    const samples: Sample[] = [];
    for (const series of this.allSeries()) {
      for (const [status, value] of series.statusCounts) {
        samples.push({ labels: { ...series.labels, status: String(status) }, value });
      }
    }
    return samples;
  }

  private durationSamples(): Sample[] {
    const samples: Sample[] = [];
    const name = 'http_request_duration_seconds';
    for (const series of this.allSeries()) {
      let cumulative = 0;
      REQUEST_DURATION_BUCKETS.forEach((le, bucket) => {
        cumulative += series.bucketCounts[bucket];
        samples.push({ metricName: `${name}_bucket`, labels: { ...series.labels, le }, value: cumulative });
      });
      samples.push({ metricName: `${name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: series.count });
      samples.push({ metricName: `${name}_sum`, labels: series.labels, value: series.sum });
      samples.push({ metricName: `${name}_count`, labels: series.labels, value: series.count });
    }
    return samples;
  }

  private reset(): void {
    for (const series of this.allSeries()) series.reset();
  }
}
