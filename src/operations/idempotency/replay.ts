import type { Queryable } from '../../db/database.js';
import { requestFingerprint, type IdempotentRequest } from './idempotent-request.js';
import { isLive, isSameRequest, readKey, responseJson, storedResponse } from './store.js';

/**
 * What the replay check found for a request before validation: its fingerprint, and whether the
 * key had no row then, which spares the claim stage a read.
 */
export interface KeyPrecheck {
  fingerprint: string;
  keyWasUnused: boolean;
}

/** A stored response with its body as JSON text, ready to send. */
export interface StoredJsonResponse {
  status: number;
  json: string;
}

/**
 * The stored response for a completed request with this key, method, path and body, if there is
 * one and it has not expired; no `replay` in every other case (no row, another body or path,
 * expired, a row of an earlier version), which `runIdempotent` then decides in full. Lets a
 * replay be answered before the request is validated: its identical twin was validated when it
 * first ran. Reads only, and claims nothing.
 */
export async function findReplay(
  db: Queryable,
  request: IdempotentRequest,
): Promise<{ replay?: StoredJsonResponse; precheck: KeyPrecheck }> {
  const row = await readKey(db, request);
  const precheck = { fingerprint: requestFingerprint(request), keyWasUnused: row === undefined };
  if (!row || !isLive(row, request) || !isSameRequest(row, request, precheck.fingerprint)) return { precheck };
  // A success is sent as stored, without a parse and a re-serialisation; an error names this request.
  const status = row.response_status!;
  const json = status < 400 ? responseJson(row, request) : JSON.stringify(storedResponse(row, request).body);
  return { replay: { status, json }, precheck };
}
