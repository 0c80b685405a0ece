/**
 * The worker's claim (`claimDueDeliveries`) timed by direct calls on two databases: the empty one
 * (bench/event-growth.ts: the events of its short run, no delivery) with a few due deliveries, one grown by the bulk events (bench/event-store.ts) with the same few
 * due. Every call leases the same deliveries with a lease already run out, so the next call finds
 * them due again and each call does the same work. Rounds alternate between the two databases, so
 * that a noisy machine slows both.
 */
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../src/db/open-database.js';
import type { Database } from '../src/db/database.js';
import { claimDueDeliveries } from '../src/resources/webhook-deliveries/webhook-deliveries.repo.js';
import { BULK_ENDPOINT_ID } from './event-store.js';
import type { Store } from './store.js';

/** Due deliveries in each database, and the claim's limit (the worker's batch is of this order). */
const DUE = 10;
const ROUNDS = 5;

/** Mean and p99 of one database's claims, in microseconds. */
export interface ClaimTimes {
  meanUs: number;
  p99Us: number;
  calls: number;
}

/** Both databases' claim times, and the grown one's mean over the empty one's. */
export interface ClaimResult {
  empty: ClaimTimes;
  grown: ClaimTimes;
  ratio: number;
}

/** Inserts the due deliveries (their events need not exist: the claim reads deliveries alone). */
async function addDueDeliveries(db: Database, nowMs: number): Promise<string[]> {
  const ids = Array.from({ length: DUE }, () => `whd_benchdue${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  for (const id of ids) {
    await db.run(
      `INSERT INTO webhook_deliveries (id, account_id, event_id, endpoint_id, status, attempts, next_attempt_at, created)
       VALUES (?, 'acct_benchclaim', ?, ?, 'pending', 0, ?, ?)`,
      [id, `evt_benchdue_${id}`, BULK_ENDPOINT_ID, nowMs - 1000, Math.floor(nowMs / 1000)],
    );
  }
  return ids;
}

function summary(samples: number[]): ClaimTimes {
  const sorted = [...samples].sort((a, b) => a - b);
  const meanUs = (samples.reduce((sum, s) => sum + s, 0) / samples.length) * 1000;
  return { meanUs, p99Us: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] * 1000, calls: samples.length };
}

/** `calls` claims on each database (in {@link ROUNDS} alternating rounds); nothing else may claim meanwhile. */
export async function measureClaims(empty: Store, grown: Store, calls: number): Promise<ClaimResult> {
  const databases = [await openDatabase(empty), await openDatabase(grown)];
  const samples: number[][] = [[], []];
  try {
    const nowMs = Date.now();
    const due = [];
    for (const db of databases) due.push(await addDueDeliveries(db, nowMs));
    const claim = { owner: 'bench-claim', nowMs, leaseUntil: nowMs - 1, limit: DUE };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, db] of databases.entries()) {
        for (let call = 0; call < Math.ceil(calls / ROUNDS); call++) {
          const started = performance.now();
          const claimed = await claimDueDeliveries(db, claim);
          samples[i].push(performance.now() - started);
          if (claimed.length !== DUE) throw new Error(`A claim leased ${claimed.length} deliveries, not ${DUE}`);
        }
      }
    }
    for (const [i, db] of databases.entries()) {
      await db.run(`DELETE FROM webhook_deliveries WHERE id IN (${due[i].map(() => '?').join(', ')})`, due[i]);
    }
  } finally {
    for (const db of databases) await db.close();
  }
  const [emptyTimes, grownTimes] = samples.map(summary);
  return { empty: emptyTimes, grown: grownTimes, ratio: grownTimes.meanUs / emptyTimes.meanUs };
}
