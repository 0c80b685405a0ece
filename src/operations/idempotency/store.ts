import type { Queryable, SqlValue } from '../../db/database.js';
import { isUniqueViolationOn } from '../../db/dialect.js';
import { ApiError } from '../../domain/errors.js';
import type { SealedPlace } from '../../domain/secret-box.js';
import type { IdempotentRequest } from './idempotent-request.js';

/** A key's answer: the status and body the request got. */
export interface StoredResponse {
  status: number;
  body: unknown;
  /** `body` as JSON text, when it was serialised to be stored: the same text can be sent as it is. */
  json?: string;
}

/**
 * The key's row. `state` and `locked_at` are kept for the table's shape: this version writes
 * `done` and the time, and reads only `done` rows; see the module's header for `running`.
 */
export interface KeyRow {
  request_method: string;
  request_path: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  created: number;
  locked_at: number;
}

/**
 * The stored response as JSON text: opened when it was stored sealed (the answer of an operation
 * that shows a credential once, `IdempotentRequest.sealsResponse`).
 */
export function responseJson(row: KeyRow, request: IdempotentRequest): string {
  return request.secrets.open(row.response_body!, responsePlace(request));
}

/** Where a stored response lives, bound into its sealing: it opens for its own account and key only. */
function responsePlace(request: IdempotentRequest): SealedPlace {
  return { table: 'idempotency_keys', column: 'response_body', row: `${request.accountId}/${request.key}` };
}

/** The one state this version writes: the row holds a completed request's response. */
const COMPLETED = 'done';

/** The key's row, if any, whatever its age or state. */
export function readKey(db: Queryable, request: IdempotentRequest): Promise<KeyRow | undefined> {
  return db.one<KeyRow>(
    `SELECT request_method, request_path, request_hash, state, response_status, response_body, created, locked_at
     FROM idempotency_keys WHERE account_id = ? AND key = ?`,
    [request.accountId, request.key],
  );
}

/** Whether the row still binds its key: a completed request's, within the TTL. Otherwise the key is free. */
export function isLive(row: KeyRow, request: IdempotentRequest): boolean {
  return row.state === COMPLETED && row.created * 1000 + request.ttlSeconds * 1000 > request.nowMs;
}

/** Whether the key's row was stored for this method, path and body (by its fingerprint). */
export function isSameRequest(row: KeyRow, request: IdempotentRequest, fingerprint: string): boolean {
  return row.request_method === request.method && row.request_path === request.path && row.request_hash === fingerprint;
}

/**
 * The answer the key already holds (undefined: the key is free, and this request may run). Called
 * with the key claimed: a row that no longer binds it (expired, or left by an earlier version) is
 * deleted first; a key used with another method, path or body is refused.
 */
export async function answerOfKey(
  db: Queryable,
  request: IdempotentRequest,
  fingerprint: string,
): Promise<StoredResponse | undefined> {
  const row = await readKey(db, request);
  if (!row) return undefined;
  if (!isLive(row, request)) {
    // Matching the row read, so that a row stored meanwhile by another request is not deleted.
    await db.run('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND created = ? AND locked_at = ?', [
      request.accountId,
      request.key,
      row.created,
      row.locked_at,
    ]);
    return undefined;
  }
  if (!isSameRequest(row, request, fingerprint)) {
    throw new ApiError(
      'idempotency_key_reused',
      `Keys for idempotent requests can only be used with the same parameters they were first used with. ` +
        `Try using a key other than '${request.key}' if you meant to execute a different request.`,
    );
  }
  return storedResponse(row, request);
}

/** The stored answer of a live row; an error body names the replaying request, like every error body. */
export function storedResponse(row: KeyRow, request: IdempotentRequest): StoredResponse {
  const body = JSON.parse(responseJson(row, request)) as { error?: { request_id: string } };
  if (body.error) body.error.request_id = request.requestId;
  return { status: row.response_status!, body };
}

/**
 * Stores the key with its answer (the operation's response, or its refusal, e.g. a 404 of a
 * parameter). False when the key already has a row: another request stored it first, and its
 * answer stands.
 */
export async function storeAnswer(
  db: Queryable,
  request: IdempotentRequest,
  fingerprint: string,
  response: StoredResponse,
): Promise<boolean> {
  const inserted = await db.run(`${INSERT_KEY} ON CONFLICT (account_id, key) DO NOTHING`, keyRow(request, fingerprint, response));
  return inserted === 1;
}

/**
 * Stores the key with its answer in `tx`, the transaction that executed the request, without
 * waiting for the answer (`Queryable.write`): if another request stored the key first, the
 * transaction fails with a unique violation that `isKeyStoredElsewhere` recognises.
 */
export async function storeAnswerInTransaction(
  tx: Queryable,
  request: IdempotentRequest,
  fingerprint: string,
  response: StoredResponse & { json: string },
): Promise<void> {
  await tx.write(INSERT_KEY, keyRow(request, fingerprint, response));
}

/** Whether a transaction failed because `storeAnswerInTransaction` found the key already stored. */
export function isKeyStoredElsewhere(error: unknown): boolean {
  return isUniqueViolationOn(error, 'idempotency_keys');
}

const INSERT_KEY = `INSERT INTO idempotency_keys
   (account_id, key, request_method, request_path, request_hash, state, response_status, response_body, created, locked_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function keyRow(request: IdempotentRequest, fingerprint: string, response: StoredResponse): SqlValue[] {
  const json = response.json ?? JSON.stringify(response.body);
  return [
    request.accountId,
    request.key,
    request.method,
    request.path,
    fingerprint,
    COMPLETED,
    response.status,
    request.sealsResponse ? request.secrets.seal(json, responsePlace(request)) : json,
    Math.floor(request.nowMs / 1000),
    request.nowMs,
  ];
}
