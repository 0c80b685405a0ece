import { Gauge, type Registry } from 'prom-client';
import type { Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import { BACKLOG_COUNT_CAP, countDeliveriesInStatus, earliestPendingDueAt } from './webhook-backlog.repo.js';

/**
 * Gauges of the webhook outbox, read from the database when scraped, so that any process (API or
 * worker) shows the backlog of all workers: `webhook_deliveries{status}` (pending, failed) and
 * `webhook_oldest_pending_delivery_age_seconds`. Three indexed statements per scrape.
 */
export function registerWebhookBacklogGauges(registry: Registry, db: Queryable, clock: Clock): void {
  new Gauge({
    name: 'webhook_deliveries',
    help: `Webhook deliveries by status: pending (waiting for an attempt or a retry) and failed (retries exhausted); counted up to ${BACKLOG_COUNT_CAP}.`,
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const [pending, failed] = await Promise.all([countDeliveriesInStatus(db, 'pending'), countDeliveriesInStatus(db, 'failed')]);
      this.set({ status: 'pending' }, pending);
      this.set({ status: 'failed' }, failed);
    },
  });
  new Gauge({
    name: 'webhook_oldest_pending_delivery_age_seconds',
    help: 'How long the longest-waiting pending delivery has been due (since its event, or its retry time): the workers\' lag; 0 when none is due.',
    registers: [registry],
    async collect() {
      const dueAt = await earliestPendingDueAt(db);
      this.set(dueAt === null ? 0 : Math.max(0, clock.nowMs() - dueAt) / 1000);
    },
  });
}
