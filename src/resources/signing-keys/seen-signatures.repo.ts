import type { Queryable } from '../../db/database.js';
import { withoutCommitWait } from '../../db/dialect.js';

/*
 * The signatures already accepted, for replay protection (RFC 9421 §7.2.2). A signature is known by
 * a digest of its key and its nonce (or its value, without a nonce); the digest is the table's
 * primary key, so of two requests carrying the same signature only one can record it, whichever
 * process each reaches. A row is needed only while its signature could still be accepted.
 */

/** A signature to record: its digest, and until when (unix seconds) it must be remembered. */
export interface SeenSignature {
  digest: string;
  expires: number;
}

/**
 * Records signatures as used, in one statement; answers the digests that were new. A digest left
 * out of the answer was recorded before (a replay), by this process or another. The digests must
 * be distinct.
 */
export async function recordSeenSignatures(db: Queryable, signatures: readonly SeenSignature[]): Promise<Set<string>> {
  // Every signed request writes one row: its commit does not wait for the disk (see
  // withoutCommitWait). A crash of Postgres could forget the signatures of its last moment, whose
  // replay would then be accepted until they are 300 s old; a wait for the disk on every signed
  // request would cost a third of their throughput.
  const values = `(VALUES ${signatures.map(() => '(CAST(? AS TEXT), CAST(? AS BIGINT))').join(', ')}) AS seen`;
  const commitWait = withoutCommitWait(db.dialect);
  const rows = await db.all<{ digest: string }>(
    `INSERT INTO seen_signatures (digest, expires) SELECT seen.column1, seen.column2
     ${commitWait ? `${commitWait}, ${values}` : `FROM ${values}`}
     WHERE true ON CONFLICT (digest) DO NOTHING RETURNING digest`,
    signatures.flatMap(({ digest, expires }) => [digest, expires]),
  );
  return new Set(rows.map((row) => row.digest));
}

/** Forgets the signatures that are too old to be accepted anyway (their `expires` is before `now`, unix seconds). */
export async function purgeSeenSignatures(db: Queryable, now: number): Promise<number> {
  return db.run('DELETE FROM seen_signatures WHERE expires < ?', [now]);
}
