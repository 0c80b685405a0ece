/**
 * Idempotent POSTs (DESIGN §3), enforced by the database so that it holds across processes.
 *
 * Guarantees, for one account and one `Idempotency-Key`:
 * - the operation executes at most once, however many copies arrive and however concurrently:
 *   the key's row is inserted first in the operation's transaction, and the primary key
 *   `(account_id, key)` lets one insert win;
 * - the key, the operation's own writes and the stored response (status and body, a 402 decline
 *   included) commit together, so a stored response always matches the data, and a request that
 *   dies mid-way (its process crashed) leaves the key free;
 * - a copy that arrives while the first still runs gets 409 `idempotency_key_in_use`; one with
 *   another body or path gets 400 `idempotency_key_reused`; a later one gets the stored response;
 * - keys expire after the configured TTL (24 h by default).
 * Validation failures and 401s never reach this module, so they are never stored.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { ApiError, isApiError } from '../domain/errors.js';

/**
 * A committed "running" row can only come from an earlier version, which committed the key before
 * executing; after this long its request is presumed dead and the key may be taken over.
 */
const STALE_LOCK_MS = 60_000;

export interface IdempotentRequest {
  accountId: string;
  key: string;
  /** This request's id: stored with an error, and put in a replayed error body. */
  requestId: string;
  method: string;
  path: string;
  body: unknown;
  nowMs: number;
  ttlSeconds: number;
}

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface KeyRow {
  request_method: string;
  request_path: string;
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  created: number;
  locked_at: number;
}

/**
 * Runs `execute` once per key; returns its response, or the stored one with `replayed: true`.
 *
 * The key's row, the operation's writes and the stored response commit in one transaction, so a
 * crash at any point leaves either all of them or none. "Still running" is known without a
 * committed marker: in this process by a set of the keys being executed, across processes on
 * Postgres by a transaction-scoped advisory lock on the key (on SQLite a second process waits for
 * the database's write lock, then finds the response stored).
 */
export async function runIdempotent(
  db: Queryable,
  request: IdempotentRequest,
  execute: (tx: Queryable) => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const hash = requestHash(request);
  const running = keysRunningOn(db);
  const runningKey = `${request.accountId}\n${request.key}`;
  if (running.has(runningKey)) throw keyInUse();
  running.add(runningKey);
  let refusal: unknown;
  try {
    return await db.transaction(async (tx) => {
      await lockKeyAcrossProcesses(tx, request);
      const claimed = await claimKey(tx, request, hash);
      if (claimed !== true) return { response: claimed, replayed: true };
      let response: StoredResponse;
      try {
        response = await execute(tx);
      } catch (error) {
        refusal = error;
        throw error;
      }
      await storeResponse(tx, request, response);
      return { response, replayed: false };
    });
  } catch (error) {
    // The operation's writes were rolled back with the key. An expected refusal of the operation
    // is the answer to this key from now on; anything else leaves the key free for a retry.
    if (error === refusal && isApiError(error)) await storeRefusal(db, request, hash, error);
    throw error;
  } finally {
    running.delete(runningKey);
  }
}

/** Per database, the `account\nkey` pairs this process is executing right now. */
const runningKeys = new WeakMap<Queryable, Set<string>>();

function keysRunningOn(db: Queryable): Set<string> {
  let keys = runningKeys.get(db);
  if (!keys) runningKeys.set(db, (keys = new Set()));
  return keys;
}

/**
 * On Postgres, a key executing in another process holds an advisory lock until its transaction
 * ends: a copy answers 409 at once instead of queueing behind the key's uncommitted row.
 */
async function lockKeyAcrossProcesses(tx: Queryable, request: IdempotentRequest): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  const row = await tx.one<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS locked', [
    `idempotency\n${request.accountId}\n${request.key}`,
  ]);
  if (!row?.locked) throw keyInUse();
}

function keyInUse(): ApiError {
  return new ApiError(
    'idempotency_key_in_use',
    'There is currently another in-progress request using this Idempotency-Key (that probably means you ' +
      'submitted twice, and the other request is still going through). Please try again later.',
  );
}

/**
 * The stored response for a completed request with this key, method, path and body, if there is
 * one and it has not expired; undefined in every other case (no row, still running, another body
 * or path, expired), which {@link runIdempotent} then handles in full. Lets a replay be answered
 * before the request is validated: its identical twin was validated when it first ran.
 */
export async function findReplay(db: Queryable, request: IdempotentRequest): Promise<StoredJsonResponse | undefined> {
  const row = await readKey(db, request);
  if (!row || row.state !== 'done' || row.created * 1000 + request.ttlSeconds * 1000 <= request.nowMs) return undefined;
  if (row.request_method !== request.method || row.request_path !== request.path) return undefined;
  if (row.request_hash !== requestHash(request)) return undefined;
  // A success is sent as stored, without a parse and a re-serialisation; an error names this request.
  const status = row.response_status!;
  if (status < 400) return { status, json: row.response_body! };
  return { status, json: JSON.stringify(storedResponse(row, request.requestId).body) };
}

/** A stored response with its body as JSON text, ready to send. */
export interface StoredJsonResponse {
  status: number;
  json: string;
}

function readKey(db: Queryable, request: IdempotentRequest): Promise<KeyRow | undefined> {
  return db.one<KeyRow>(
    `SELECT request_method, request_path, request_hash, state, response_status, response_body, created, locked_at
     FROM idempotency_keys WHERE account_id = ? AND key = ?`,
    [request.accountId, request.key],
  );
}

/**
 * Inserts the key as running (true), or answers from the existing row, inside the operation's
 * transaction. The insert comes first (a replay that got this far is rare: exact repeats are
 * answered before validation, after one read) and uses `ON CONFLICT DO NOTHING`, so a taken key
 * raises no error: on Postgres a failed statement would abort the transaction.
 */
async function claimKey(db: Queryable, request: IdempotentRequest, hash: string): Promise<true | StoredResponse> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.run(
      `INSERT INTO idempotency_keys (account_id, key, request_method, request_path, request_hash, state, created, locked_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?) ON CONFLICT (account_id, key) DO NOTHING`,
      [request.accountId, request.key, request.method, request.path, hash, Math.floor(request.nowMs / 1000), request.nowMs],
    );
    if (inserted === 1) return true;
    const row = await readKey(db, request);
    if (!row) continue; // deleted meanwhile (expired): try again
    if (row.created * 1000 + request.ttlSeconds * 1000 <= request.nowMs) {
      await db.run('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND created = ?', [
        request.accountId,
        request.key,
        row.created,
      ]);
      continue;
    }
    if (row.request_method !== request.method || row.request_path !== request.path || row.request_hash !== hash) {
      throw new ApiError(
        'idempotency_key_reused',
        `Keys for idempotent requests can only be used with the same parameters they were first used with. ` +
          `Try using a key other than '${request.key}' if you meant to execute a different request.`,
      );
    }
    if (row.state === 'done') return storedResponse(row, request.requestId);
    if (row.locked_at + STALE_LOCK_MS > request.nowMs) throw keyInUse();
    const taken = await db.run(
      "UPDATE idempotency_keys SET locked_at = ? WHERE account_id = ? AND key = ? AND state = 'running' AND locked_at = ?",
      [request.nowMs, request.accountId, request.key, row.locked_at],
    );
    if (taken === 1) return true;
  }
  throw keyInUse();
}

/** The stored answer; an error body names the replaying request, like every error body. */
function storedResponse(row: KeyRow, requestId: string): StoredResponse {
  const body = JSON.parse(row.response_body!) as { error?: { request_id: string } };
  if (body.error) body.error.request_id = requestId;
  return { status: row.response_status!, body };
}

/**
 * Stores an operation's refusal (a 404 of a parameter, say) as the key's answer, in a transaction
 * of its own since the operation's was rolled back. If a copy took the key meanwhile, its answer
 * stands.
 */
async function storeRefusal(db: Queryable, request: IdempotentRequest, hash: string, error: ApiError): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys
       (account_id, key, request_method, request_path, request_hash, state, response_status, response_body, created, locked_at)
     VALUES (?, ?, ?, ?, ?, 'done', ?, ?, ?, ?) ON CONFLICT (account_id, key) DO NOTHING`,
    [
      request.accountId,
      request.key,
      request.method,
      request.path,
      hash,
      error.status,
      JSON.stringify({ error: error.toBody(request.requestId) }),
      Math.floor(request.nowMs / 1000),
      request.nowMs,
    ],
  );
}

async function storeResponse(
  db: Queryable,
  request: IdempotentRequest,
  response: StoredResponse,
): Promise<void> {
  await db.run(
    "UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE account_id = ? AND key = ?",
    [response.status, JSON.stringify(response.body), request.accountId, request.key],
  );
}

/** The request's fingerprint: method, path and the body with its keys in a fixed order. */
function requestHash(request: IdempotentRequest): string {
  return createHash('sha256').update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Deletes keys older than the TTL; run periodically so the table stays small. */
export async function purgeExpiredKeys(db: Queryable, nowMs: number, ttlSeconds: number): Promise<number> {
  return db.run('DELETE FROM idempotency_keys WHERE created < ?', [Math.floor(nowMs / 1000) - ttlSeconds]);
}
