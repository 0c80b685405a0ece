import type { Queryable } from '../../db/database.js';
import { withoutCommitWait } from '../../db/dialect.js';

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
  // Every signed request writes one row: its commit does not wait for the disk (see
  // withoutCommitWait). A crash of Postgres could forget the signatures of its last moment, whose
  // replay would then be accepted until they are 300 s old; a wait for the disk on every signed
  // request would cost a third of their throughput.
  const inserted = await db.run(
    `INSERT INTO seen_signatures (digest, expires) SELECT CAST(? AS TEXT), CAST(? AS BIGINT) ${withoutCommitWait(db.dialect)}
     WHERE true ON CONFLICT (digest) DO NOTHING`,
    [digest, expires],
  );
  return inserted === 1;
}

/** Forgets the signatures that are too old to be accepted anyway (their `expires` is before `now`, unix seconds). */
export async function purgeSeenSignatures(db: Queryable, now: number): Promise<number> {
  return db.run('DELETE FROM seen_signatures WHERE expires < ?', [now]);
}
