import type { Queryable } from '../../db/database.js';

/**
 * Deletes the keys older than the TTL, whatever their state, and returns how many; run
 * periodically so that the table stays small. A key is free once expired whether or not its row
 * is still there: this only reclaims the space.
 */
export async function purgeExpiredKeys(db: Queryable, nowMs: number, ttlSeconds: number): Promise<number> {
  return db.run('DELETE FROM idempotency_keys WHERE created < ?', [Math.floor(nowMs / 1000) - ttlSeconds]);
}
