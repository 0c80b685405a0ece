import type { Queryable } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';
import type { AccountRow, ApiKeyRow } from './accounts.repo.js';

export function findAccount(db: Queryable, id: string): Promise<AccountRow | undefined> {
  return db.one('SELECT * FROM accounts WHERE id = ?', [id]);
}

/** An account's keys, newest first, revoked ones included. */
export function listApiKeyRows(db: Queryable, accountId: string, page: PageParams) {
  return fetchPage<ApiKeyRow>(db, { table: 'api_keys', accountId }, page);
}

/** One of the account's keys, whatever its state; undefined when the account has no such key. */
export function findApiKeyRow(db: Queryable, accountId: string, id: string): Promise<ApiKeyRow | undefined> {
  return db.one('SELECT * FROM api_keys WHERE account_id = ? AND id = ?', [accountId, id]);
}

/**
 * Ends a working key (neither revoked nor expired at `now`) at `expires`, or sooner if it was
 * rolled before with a shorter overlap; undefined when the account has no such working key.
 */
export function expireApiKeyRow(db: Queryable, accountId: string, id: string, now: number, expires: number): Promise<ApiKeyRow | undefined> {
  return db.one(
    `UPDATE api_keys SET expires = CASE WHEN expires IS NOT NULL AND expires < ? THEN expires ELSE ? END
     WHERE account_id = ? AND id = ? AND revoked IS NULL AND (expires IS NULL OR expires > ?) RETURNING *`,
    [expires, expires, accountId, id, now],
  );
}

/** Marks a working key revoked; undefined when the account has no such key, or it was revoked already. */
export function revokeApiKeyRow(db: Queryable, accountId: string, id: string, revoked: number): Promise<ApiKeyRow | undefined> {
  return db.one('UPDATE api_keys SET revoked = ? WHERE account_id = ? AND id = ? AND revoked IS NULL RETURNING *', [
    revoked,
    accountId,
    id,
  ]);
}
