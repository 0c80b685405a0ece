import type { Queryable } from './database.js';

/**
 * Locks `key` until `tx`, an open transaction, ends, without waiting: true when this transaction
 * now holds the lock, false when another transaction holds it.
 *
 * On Postgres this is a transaction-scoped advisory lock on the key's 64-bit hash, so it holds
 * across processes and is released by commit, rollback or a dropped connection alike; two keys
 * that share a hash merely exclude each other. SQLite has a single writer: a write transaction
 * holds the database's lock from its start (`BEGIN IMMEDIATE`), so no other process's transaction
 * runs at the same time, and the answer is always true. (Transactions of one process may share a
 * write transaction on SQLite: a caller running several at once tells them apart itself.)
 */
export async function tryLockKeyForTransaction(tx: Queryable, key: string): Promise<boolean> {
  if (tx.dialect !== 'postgres') return true;
  const row = await tx.one<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS locked', [key]);
  return row?.locked === true;
}

/**
 * Locks `key` until `tx`, an open transaction, ends, or fails the transaction if another
 * transaction holds it: the same lock as `tryLockKeyForTransaction`, taken without waiting for
 * the answer. On Postgres the statement is pipelined (`Queryable.write`): the refusal arrives as
 * the transaction's failure, at its next awaited statement or at its commit, and
 * `isKeyClaimedElsewhere` recognises it. SQLite's write transaction already excludes every other.
 */
export async function claimKeyForTransaction(tx: Queryable, key: string): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  // payments_claim_key: migration 0010.
  await tx.write('SELECT payments_claim_key(?)', [key]);
}

/** Whether a transaction failed because `claimKeyForTransaction` found its key held by another. */
export function isKeyClaimedElsewhere(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '55P03';
}
