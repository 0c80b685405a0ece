import type { Queryable } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

/** A row of `signing_keys`: an account's HMAC key for HTTP message signatures. */
export interface SigningKeyRow {
  seq: number;
  /** `hmk_…`, the `keyid` of the key's signatures. */
  id: string;
  account_id: string;
  /** `hmsec_…`, sealed (shared/sealed-secrets.ts): the server computes HMACs with it, so it is not only hashed. */
  secret: string;
  /** The key's scopes as a JSON array; null for every scope. */
  scopes: string | null;
  created: number;
  /** When the key was revoked (unix seconds); null while it works. */
  revoked: number | null;
}

/** What the signature verifier needs of a working key. */
export type VerifyingKeyRow = Pick<SigningKeyRow, 'account_id' | 'secret' | 'scopes'>;

export async function insertSigningKey(db: Queryable, row: Omit<SigningKeyRow, 'seq' | 'revoked'>): Promise<void> {
  await db.run('INSERT INTO signing_keys (id, account_id, secret, scopes, created) VALUES (?, ?, ?, ?, ?)', [
    row.id,
    row.account_id,
    row.secret,
    row.scopes,
    row.created,
  ]);
}

/** An account's signing keys, newest first, revoked ones included. */
export function listSigningKeyRows(db: Queryable, accountId: string, page: PageParams) {
  return fetchPage<SigningKeyRow>(db, { table: 'signing_keys', accountId }, page);
}

/** Marks a working key revoked; undefined when the account has no such key, or it was revoked already. */
export function revokeSigningKeyRow(
  db: Queryable,
  accountId: string,
  id: string,
  revoked: number,
): Promise<SigningKeyRow | undefined> {
  return db.one('UPDATE signing_keys SET revoked = ? WHERE account_id = ? AND id = ? AND revoked IS NULL RETURNING *', [
    revoked,
    accountId,
    id,
  ]);
}

/** The account, secret and scopes of a key that is not revoked, by its id (a signature's `keyid`). */
export function findWorkingSigningKey(db: Queryable, id: string): Promise<VerifyingKeyRow | undefined> {
  return db.one('SELECT account_id, secret, scopes FROM signing_keys WHERE id = ? AND revoked IS NULL', [id]);
}
