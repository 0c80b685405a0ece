/**
 * Idempotent POSTs (docs/conventions.md), enforced by the database so that they hold across
 * processes, through either door. A POST with an `Idempotency-Key` goes through these stages, one
 * file each in `idempotency/`:
 *
 * 1. **Replay before validation** (`replay.ts`, `findReplay`): the REST door asks first, before
 *    it validates the request (src/http/idempotent-replay.ts); an exact repeat of a completed
 *    request (same account, key, path and body) is answered from its stored response at the cost
 *    of one read. Its identical twin was validated when it ran. Anything else goes on, with what
 *    was found (the fingerprint, whether the key had a row) so that it is not looked up twice.
 * 2. **Claim** (`claim.ts`): in this process, a set of the keys being executed; across processes,
 *    a lock on the key held until the request's transaction ends (src/db/key-locks.ts), which on
 *    Postgres is when its group commits (src/db/postgres-group-commit.ts). A copy that finds the
 *    key claimed gets 409 `idempotency_key_in_use` at once.
 * 3. **Store** (`store.ts`, driven by `run-idempotent.ts`): in the same transaction, the key's
 *    row is read (a stored answer is replayed; another body or path gets 400
 *    `idempotency_key_reused`), the operation executes, and the row, with the response, is
 *    inserted. The primary key `(account_id, key)` lets one insert win; a loser's writes are
 *    rolled back and it answers the winner's response.
 * 4. **Purge** (`purge.ts`): keys older than the TTL (24 h by default) are free, and deleted
 *    by the worker's purges (src/composition.ts).
 *
 * Guarantees, for one account and one key:
 * - the operation executes at most once, however many copies arrive and however concurrently;
 * - the key, the operation's writes and the stored response (status and body, a 402 decline
 *   included) commit together, so a stored response always matches the data, and a request that
 *   dies mid-way (its process crashed) leaves the key free;
 * - an expected refusal the operation throws (an `ApiError`, e.g. a 404 of a parameter) rolls its
 *   writes back and is then stored as the key's answer; an unexpected error leaves the key free;
 * - validation failures and 401s never reach the claim, so they are never stored: a corrected
 *   retry with the same key runs.
 * The key's own rule (length, characters) is the spec's `Idempotency-Key` parameter, applied by
 * the REST validator and, for GraphQL's keys, by `key-rule.ts`.
 *
 * Rows in the legacy `running` state, which earlier versions committed before executing, are
 * treated as free keys: nothing writes that state any more, and such a row's request is long
 * dead. Once the key is claimed, such a row is deleted like an expired one. The table keeps its
 * `state` and `locked_at` columns (a migration dropping them would break a rolling upgrade, whose
 * older processes still write them): this version writes `done` and the store time.
 */
export { findReplay, type KeyPrecheck, type StoredJsonResponse } from './idempotency/replay.js';
export { runIdempotent } from './idempotency/run-idempotent.js';
export { purgeExpiredKeys } from './idempotency/purge.js';
export { assertValidIdempotencyKey } from './idempotency/key-rule.js';
export type { StoredResponse } from './idempotency/store.js';
export {
  idempotentPost,
  requestFingerprint,
  type IdempotencySettings,
  type IdempotentPost,
  type IdempotentRequest,
} from './idempotency/idempotent-request.js';
