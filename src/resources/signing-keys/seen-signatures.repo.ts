import type { Queryable } from '../../db/database.js';

/*
 * The signatures already accepted, for replay protection (RFC 9421 §7.2.2). A signature is known by
 * a digest of its key and its nonce (or its value, without a nonce); the digest is the table's
 * primary key, so of two requests carrying the same signature only one can record it, whichever
 * process each reaches. A row is needed only while its signature could still be accepted.
 */

/**
 * Records a signature as used until `expires` (unix seconds). False when it was recorded before
 * (a replay), by this process or another.
 */
export async function recordSeenSignature(db: Queryable, digest: string, expires: number): Promise<boolean> {
  const inserted = await db.run(
    'INSERT INTO seen_signatures (digest, expires) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING',
    [digest, expires],
  );
  return inserted === 1;
}

/** Forgets the signatures that are too old to be accepted anyway (their `expires` is before `now`, unix seconds). */
export async function purgeSeenSignatures(db: Queryable, now: number): Promise<number> {
  return db.run('DELETE FROM seen_signatures WHERE expires < ?', [now]);
}
