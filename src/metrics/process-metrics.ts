import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import { registerWebhookBacklogGauges } from './webhook-backlog-gauges.js';

/**
 * The registry of one process, with what every role shows: Node's process metrics (CPU, memory,
 * event-loop lag, GC, handles) and the webhook backlog read from the database. The app adds its
 * request metrics (`RequestMetrics`), the worker its attempt metrics (`createWebhookAttemptMetrics`).
 * A registry of its own rather than prom-client's global one, so that tests can run several.
 */
export function createProcessMetrics(db: Queryable, clock: Clock): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerWebhookBacklogGauges(registry, db, clock);
  return registry;
}
