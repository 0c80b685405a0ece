import type { Queryable } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface OAuthClientRow {
  seq: number;
  /** The client's id (`client_…`), its `client_id` at the token endpoint. */
  id: string;
  account_id: string;
  name: string | null;
  /** SHA-256 (hex) of the client secret. */
  secret_hash: string;
  /** The scopes the client may ask for, as a JSON array; null for every scope. */
  scopes: string | null;
  created: number;
  /** When the client was deleted (unix seconds); null while it exists. */
  deleted: number | null;
}

export async function insertOAuthClient(db: Queryable, row: Omit<OAuthClientRow, 'seq' | 'deleted'>): Promise<void> {
  await db.run(
    'INSERT INTO oauth_clients (id, account_id, name, secret_hash, scopes, created) VALUES (?, ?, ?, ?, ?, ?)',
    [row.id, row.account_id, row.name, row.secret_hash, row.scopes, row.created],
  );
}

/** A client that has not been deleted, by its id (the token endpoint's `client_id`). */
export function findOAuthClient(
  db: Queryable,
  id: string,
): Promise<Pick<OAuthClientRow, 'id' | 'account_id' | 'secret_hash' | 'scopes'> | undefined> {
  return db.one('SELECT id, account_id, secret_hash, scopes FROM oauth_clients WHERE id = ? AND deleted IS NULL', [id]);
}

/** An account's clients, newest first, deleted ones left out. */
export function listOAuthClientRows(db: Queryable, accountId: string, page: PageParams) {
  return fetchPage<OAuthClientRow>(
    db,
    { table: 'oauth_clients', accountId, conditions: [{ sql: 'deleted IS NULL', params: [] }] },
    page,
  );
}

/** Marks a client deleted; undefined when the account has no such client, or it was deleted already. */
export function deleteOAuthClientRow(
  db: Queryable,
  accountId: string,
  id: string,
  deleted: number,
): Promise<{ id: string } | undefined> {
  return db.one(
    'UPDATE oauth_clients SET deleted = ? WHERE account_id = ? AND id = ? AND deleted IS NULL RETURNING id',
    [deleted, accountId, id],
  );
}
