/**
 * Idempotent POSTs (DESIGN §3), enforced by the database so that it holds across processes.
 *
 * Guarantees, for one account and one `Idempotency-Key`:
 * - the operation executes at most once, however many copies arrive and however concurrently:
 *   the key's row is inserted at the end of the operation's transaction, the primary key
 *   `(account_id, key)` lets one insert win, and a loser's writes are rolled back;
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
 * What the replay check found for this request before validation (src/http/idempotent-replay.ts):
 * its fingerprint, and whether the key had no row then, which spares the idempotency layer a read.
 */
export interface KeyPrecheck {
  fingerprint: string;
  keyWasUnused: boolean;
}

/**
 * Runs `execute` once per key; returns its response, or the stored one with `replayed: true`.
 *
 * The operation's writes and the key's row, with the response, commit in one transaction, so a
 * crash at any point leaves either all of them or none. "Still running" is known without a
 * committed marker: in this process by a set of the keys being executed, across processes on
 * Postgres by a transaction-scoped advisory lock on the key (on SQLite a second process waits for
 * the database's write lock). The key's row is written once, after the operation, by an INSERT
 * that only one transaction can make: if another made it first (a copy that committed after this
 * one's read), this one's writes are rolled back and the stored answer is given instead.
 */
export async function runIdempotent(
  db: Queryable,
  request: IdempotentRequest,
  execute: (tx: Queryable) => Promise<StoredResponse>,
  precheck?: KeyPrecheck,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const hash = precheck?.fingerprint ?? requestHash(request);
  const running = keysRunningOn(db);
  const runningKey = `${request.accountId}\n${request.key}`;
  if (running.has(runningKey)) throw keyInUse();
  running.add(runningKey);
  let refusal: unknown;
  try {
    return await db.transaction(async (tx) => {
      await lockKeyAcrossProcesses(tx, request);
      if (!precheck?.keyWasUnused) {
        const stored = await answerFromKey(tx, request, hash);
        if (stored) return { response: stored, replayed: true };
      }
      let response: StoredResponse;
      try {
        response = await execute(tx);
      } catch (error) {
        refusal = error;
        throw error;
      }
      if (!(await storeAnswer(tx, request, hash, response))) throw KEY_TAKEN;
      return { response, replayed: false };
    });
  } catch (error) {
    // The operation's writes were rolled back. A key that another request took meanwhile holds
    // that request's answer; an expected refusal of the operation is the answer to this key from
    // now on; anything else leaves the key free for a retry.
    if (error === KEY_TAKEN) {
      const stored = await answerFromKey(db, request, hash);
      if (stored) return { response: stored, replayed: true };
      throw keyInUse();
    }
    if (error === refusal && isApiError(error)) {
      await storeAnswer(db, request, hash, { status: error.status, body: { error: error.toBody(request.requestId) } });
    }
    throw error;
  } finally {
    running.delete(runningKey);
  }
}

/** Thrown inside the transaction when another request stored this key first; never leaves this module. */
const KEY_TAKEN = Symbol('idempotency key taken');

/** Per database, the `account\nkey` pairs this process is executing right now. */
const runningKeys = new WeakMap<Queryable, Set<string>>();

function keysRunningOn(db: Queryable): Set<string> {
  let keys = runningKeys.get(db);
  if (!keys) runningKeys.set(db, (keys = new Set()));
  return keys;
}

/**
 * On Postgres, a key executing in another process holds an advisory lock until its transaction
 * ends: a copy answers 409 at once instead of executing behind it.
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
export async function findReplay(
  db: Queryable,
  request: IdempotentRequest,
): Promise<{ replay?: StoredJsonResponse; precheck: KeyPrecheck }> {
  const row = await readKey(db, request);
  const precheck = { fingerprint: requestHash(request), keyWasUnused: row === undefined };
  if (!row || row.state !== 'done' || hasExpired(row, request) || !isSameRequest(row, request, precheck.fingerprint)) {
    return { precheck };
  }
  // A success is sent as stored, without a parse and a re-serialisation; an error names this request.
  const status = row.response_status!;
  const json = status < 400 ? row.response_body! : JSON.stringify(storedResponse(row, request.requestId).body);
  return { replay: { status, json }, precheck };
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
 * The answer the key already holds (undefined: the key is free, and this request may run). An
 * expired key is deleted first; a key used with another method, path or body is refused.
 */
async function answerFromKey(db: Queryable, request: IdempotentRequest, hash: string): Promise<StoredResponse | undefined> {
  const row = await readKey(db, request);
  if (!row) return undefined;
  const expired = hasExpired(row, request);
  // A committed "running" row comes from an earlier version, which committed the key before
  // executing: while it is fresh its request may still run; after that it is presumed dead.
  const abandoned = row.state === 'running' && row.locked_at + STALE_LOCK_MS <= request.nowMs;
  if (expired || abandoned) {
    await db.run('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND created = ? AND locked_at = ?', [
      request.accountId,
      request.key,
      row.created,
      row.locked_at,
    ]);
    return undefined;
  }
  if (!isSameRequest(row, request, hash)) {
    throw new ApiError(
      'idempotency_key_reused',
      `Keys for idempotent requests can only be used with the same parameters they were first used with. ` +
        `Try using a key other than '${request.key}' if you meant to execute a different request.`,
    );
  }
  if (row.state === 'done') return storedResponse(row, request.requestId);
  throw keyInUse();
}

function hasExpired(row: KeyRow, request: IdempotentRequest): boolean {
  return row.created * 1000 + request.ttlSeconds * 1000 <= request.nowMs;
}

/** Whether the key's row was stored for this method, path and body (by its fingerprint). */
function isSameRequest(row: KeyRow, request: IdempotentRequest, hash: string): boolean {
  return row.request_method === request.method && row.request_path === request.path && row.request_hash === hash;
}

/** The stored answer; an error body names the replaying request, like every error body. */
function storedResponse(row: KeyRow, requestId: string): StoredResponse {
  const body = JSON.parse(row.response_body!) as { error?: { request_id: string } };
  if (body.error) body.error.request_id = requestId;
  return { status: row.response_status!, body };
}

/**
 * Stores the key with its answer (the operation's response, or its refusal, e.g. a 404 of a
 * parameter). False when the key already has a row: another request stored it first, and its
 * answer stands.
 */
async function storeAnswer(db: Queryable, request: IdempotentRequest, hash: string, response: StoredResponse): Promise<boolean> {
  const inserted = await db.run(
    `INSERT INTO idempotency_keys
       (account_id, key, request_method, request_path, request_hash, state, response_status, response_body, created, locked_at)
     VALUES (?, ?, ?, ?, ?, 'done', ?, ?, ?, ?) ON CONFLICT (account_id, key) DO NOTHING`,
    [
      request.accountId,
      request.key,
      request.method,
      request.path,
      hash,
      response.status,
      JSON.stringify(response.body),
      Math.floor(request.nowMs / 1000),
      request.nowMs,
    ],
  );
  return inserted === 1;
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
