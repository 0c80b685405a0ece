import type { Metric, Registry } from 'prom-client';

/** One sample line: `name{labels} value`. */
export interface Sample {
  /** The sample's own name when it differs from the metric's (`…_bucket`, `…_sum`, `…_count`). */
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** A metric whose samples are computed from the caller's own state when the registry is scraped. */
export interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  samples(): Sample[];
  /** Zeroes the underlying state (`registry.resetMetrics()`). */
  reset(): void;
}

/**
 * Registers a metric that prom-client renders but does not count: its samples come from
 * `samples()` at scrape time. prom-client's registry renders any object with a name, help, type
 * and `get()` in the shape its own metrics return; its types only list its own classes, hence the
 * one cast here.
 */
export function registerCollectedMetric(registry: Registry, metric: CollectedMetric): void {
  const rendered = {
    name: metric.name,
    help: metric.help,
    type: metric.type,
    aggregator: 'sum',
    get: async () => ({ name: rendered.name, help: metric.help, type: metric.type, aggregator: 'sum', values: metric.samples() }),
    reset: () => metric.reset(),
  };
  registry.registerMetric(rendered as unknown as Metric);
}
