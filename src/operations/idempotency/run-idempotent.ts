import type { Queryable } from '../../db/database.js';
import { isKeyClaimedElsewhere } from '../../db/key-locks.js';
import { isApiError } from '../../domain/errors.js';
import { claimAcrossProcesses, claimInProcess, keyInUse } from './claim.js';
import { requestFingerprint, type IdempotentRequest } from './idempotent-request.js';
import type { KeyPrecheck } from './replay.js';
import { answerOfKey, isKeyStoredElsewhere, storeAnswer, storeAnswerInTransaction, type StoredResponse } from './store.js';

/** The request's transaction may share its commit with others' (group commit): what it claims is held until then. */
const GROUPED = { grouped: true } as const;

/**
 * Runs `execute` once per key; returns its response, or the stored one with `replayed: true`.
 *
 * Claims the key in this process, then, in one transaction, claims it across processes, reads it
 * (a stored answer is replayed), executes and stores the answer: the operation's writes and the
 * key's row commit together or not at all. The claim and the row's INSERT are pipelined on
 * Postgres (a POST costs the round trips of the reads its operation needs, and the commit): a
 * claim held by another transaction fails this one, answered 409. The row is written once, after
 * the operation, by an INSERT that only one transaction can make: if another made it first (a
 * copy that committed after this one's read), this one's writes are rolled back and the stored
 * answer is given instead.
 * `precheck`, from the replay stage (`findReplay`) on the same request, spares the fingerprint
 * and, for a key that had no row, the read.
 */
export async function runIdempotent(
  db: Queryable,
  request: IdempotentRequest,
  execute: (tx: Queryable) => Promise<StoredResponse>,
  precheck?: KeyPrecheck,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const fingerprint = precheck?.fingerprint ?? requestFingerprint(request);
  const release = claimInProcess(db, request);
  let refusal: unknown;
  try {
    return await db.transaction(async (tx) => {
      await claimAcrossProcesses(tx, request);
      const stored = precheck?.keyWasUnused ? undefined : await answerOfKey(tx, request, fingerprint);
      if (stored) return { response: stored, replayed: true };
      let executed: StoredResponse;
      try {
        executed = await execute(tx);
      } catch (error) {
        refusal = error;
        throw error;
      }
      // Serialised once: stored, and sent as it is by a door that can.
      const response = { ...executed, json: JSON.stringify(executed.body) };
      await storeAnswerInTransaction(tx, request, fingerprint, response);
      return { response, replayed: false };
    }, GROUPED);
  } catch (error) {
    // The operation's writes were rolled back. A key that another request took meanwhile holds
    // that request's answer; an expected refusal of the operation is the answer to this key from
    // now on; anything else leaves the key free for a retry.
    if (isKeyStoredElsewhere(error)) {
      const stored = await answerOfKey(db, request, fingerprint);
      if (stored) return { response: stored, replayed: true };
      throw keyInUse();
    }
    if (isKeyClaimedElsewhere(error)) throw keyInUse();
    // A 5xx (the database away) is no answer: the key stays free for the retry it asks for.
    if (error === refusal && isApiError(error) && error.status < 500) {
      await storeAnswer(db, request, fingerprint, { status: error.status, body: { error: error.toBody(request.requestId) } });
    }
    throw error;
  } finally {
    release();
  }
}
