import type { Queryable } from '../../db/database.js';

export interface AccountRow {
  seq: number;
  id: string;
  name: string;
  email: string;
  created: number;
}

export interface ApiKeyRow {
  seq: number;
  id: string;
  account_id: string;
  key_hash: string;
  last4: string;
  created: number;
  /** A restricted key's scopes as a JSON array; null for a secret key (every scope). */
  scopes: string | null;
  /** When the key was revoked (unix seconds); null while it works. */
  revoked: number | null;
  /** When a rolled key stops working (unix seconds); null for a key never rolled. */
  expires: number | null;
  /** When the key last authenticated a request (unix seconds, to the minute); null if never. */
  last_used: number | null;
  /** A publishable key in full (it is public); null for every other key. */
  publishable_key: string | null;
}

export async function insertAccount(db: Queryable, row: Omit<AccountRow, 'seq'>): Promise<void> {
  await db.run('INSERT INTO accounts (id, name, email, created) VALUES (?, ?, ?, ?)', [row.id, row.name, row.email, row.created]);
}

export async function insertApiKey(
  db: Queryable,
  row: Omit<ApiKeyRow, 'seq' | 'revoked' | 'expires' | 'last_used' | 'publishable_key'> & { publishable_key?: string },
): Promise<void> {
  await db.run('INSERT INTO api_keys (id, account_id, key_hash, last4, created, scopes, publishable_key) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    row.id,
    row.account_id,
    row.key_hash,
    row.last4,
    row.created,
    row.scopes,
    row.publishable_key ?? null,
  ]);
}

/** The account and scopes of a key that works at `now` (unix seconds: neither revoked nor expired), by the key's hash. */
export function findApiKeyByHash(
  db: Queryable,
  keyHash: string,
  now: number,
): Promise<Pick<ApiKeyRow, 'id' | 'account_id' | 'scopes' | 'last_used' | 'publishable_key'> | undefined> {
  return db.one('SELECT id, account_id, scopes, last_used, publishable_key FROM api_keys WHERE key_hash = ? AND revoked IS NULL AND (expires IS NULL OR expires > ?)', [
    keyHash,
    now,
  ]);
}

/** Records that a key authenticated a request at `now` (unix seconds). */
export async function recordApiKeyUse(db: Queryable, id: string, now: number): Promise<void> {
  await db.run('UPDATE api_keys SET last_used = ? WHERE id = ? AND (last_used IS NULL OR last_used < ?)', [now, id, now]);
}

export async function countAccounts(db: Queryable): Promise<number> {
  const row = await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM accounts');
  return Number(row?.n ?? 0);
}

/** An account by its id. */
export function findAccount(db: Queryable, id: string): Promise<AccountRow | undefined> {
  return db.one<AccountRow>('SELECT * FROM accounts WHERE id = ?', [id]);
}
