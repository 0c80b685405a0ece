import type { Queryable } from '../../db/database.js';
import { claimKeyForTransaction } from '../../db/key-locks.js';
import { ApiError } from '../../domain/errors.js';
import type { IdempotentRequest } from './idempotent-request.js';

/** Per database, the `account\nkey` pairs this process is executing right now. */
const claimedKeys = new WeakMap<Queryable, Set<string>>();

/**
 * Claims the key in this process for as long as the request runs; throws 409
 * `idempotency_key_in_use` if a request of this process holds it. Returns the release, to be
 * called once the request's transaction has ended, however it ended.
 */
export function claimInProcess(db: Queryable, request: IdempotentRequest): () => void {
  const keys = keysClaimedOn(db);
  const claimed = `${request.accountId}\n${request.key}`;
  if (keys.has(claimed)) throw keyInUse();
  keys.add(claimed);
  return () => keys.delete(claimed);
}

function keysClaimedOn(db: Queryable): Set<string> {
  let keys = claimedKeys.get(db);
  if (!keys) claimedKeys.set(db, (keys = new Set()));
  return keys;
}

/**
 * Claims the key across processes until `tx` ends, without waiting for the answer: if a
 * transaction of another process holds it, `tx` fails (rather than executing behind it) with an
 * error that `isKeyClaimedElsewhere` recognises, to be answered with 409 `idempotency_key_in_use`.
 */
export async function claimAcrossProcesses(tx: Queryable, request: IdempotentRequest): Promise<void> {
  // The lock's name is part of the contract with running processes of other versions: keep it.
  await claimKeyForTransaction(tx, `idempotency\n${request.accountId}\n${request.key}`);
}

/** The refusal of a copy that arrives while a request with the same key runs. */
export function keyInUse(): ApiError {
  return new ApiError(
    'idempotency_key_in_use',
    'There is currently another in-progress request using this Idempotency-Key (that probably means you ' +
      'submitted twice, and the other request is still going through). Please try again later.',
  );
}
