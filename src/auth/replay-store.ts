import type { Queryable } from '../db/database.js';
import {
  recordSeenSignatures,
  type SeenSignature,
} from '../resources/signing-keys/seen-signatures.repo.js';

/*
 * Where accepted message signatures are remembered, so that each is accepted at most once (RFC 9421
 * §7.2.2): the `seen_signatures` table, whose primary key decides between two requests carrying
 * the same signature, whichever API process each reaches, and which a restart does not forget.
 *
 * A signature is recorded before its request is answered, as one row, but not as one statement:
 * the signatures verified while a statement is running wait for it, and the next statement records
 * all of them at once (group commit). On SQLite that is one write transaction for many requests
 * instead of one each; on Postgres one round trip and one commit. A request's answer waits only for
 * the statement that holds its signature; under no load that is the next turn of the event loop.
 * Nothing is answered before it is committed, so the guarantee is the table's, unchanged: no window
 * in which a crash of the API process forgets an accepted signature.
 */

/** Remembers accepted signatures. */
export interface ReplayStore {
  /**
   * Records `digest` as used until `expires` (unix seconds). True when it is new; false when it was
   * recorded before (a replay), by this process or another, or is being recorded by another
   * request of this process right now.
   */
  record(digest: string, expires: number): Promise<boolean>;
}

/** A statement's worth of signatures at most (two parameters each). */
const MAX_BATCH = 64;

interface Pending extends SeenSignature {
  /** The first request carrying the digest learns whether it was new; later ones are replays. */
  settle: Array<{ resolve(fresh: boolean): void; reject(error: unknown): void }>;
}

/** The replay store over the database's `seen_signatures` table, written in batches. */
export function createReplayStore(db: Queryable): ReplayStore {
  /** Signatures waiting for the next statement, by digest. */
  let queued = new Map<string, Pending>();
  let writing = false;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || writing) return;
    scheduled = true;
    // After the other requests that arrived in this turn of the event loop, so that they join in.
    setImmediate(() => {
      scheduled = false;
      void flush();
    });
  };

  const flush = async () => {
    if (queued.size === 0) return;
    writing = true;
    let batch: Pending[];
    if (queued.size <= MAX_BATCH) {
      batch = [...queued.values()];
      queued = new Map();
    } else {
      batch = [...queued.values()].slice(0, MAX_BATCH);
      for (const { digest } of batch) queued.delete(digest);
    }
    try {
      const fresh = await recordSeenSignatures(db, batch);
      for (const { digest, settle } of batch)
        settle.forEach(({ resolve }, i) => resolve(i === 0 && fresh.has(digest)));
    } catch (error) {
      for (const { settle } of batch) for (const { reject } of settle) reject(error);
    } finally {
      writing = false;
      schedule();
    }
  };

  return {
    record(digest, expires) {
      return new Promise<boolean>((resolve, reject) => {
        const pending = queued.get(digest);
        if (pending) pending.settle.push({ resolve, reject });
        else queued.set(digest, { digest, expires, settle: [{ resolve, reject }] });
        schedule();
      });
    },
  };
}
