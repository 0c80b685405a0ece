import type { Queryable } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface UserRow {
  seq: number;
  id: string;
  account_id: string;
  email: string;
  name: string | null;
  metadata: string;
  created: number;
}

export type UserFields = Pick<UserRow, 'email' | 'name' | 'metadata'>;

export async function insertUser(db: Queryable, row: Omit<UserRow, 'seq'>): Promise<UserRow> {
  const [inserted] = await db.all<UserRow>(
    'INSERT INTO users (id, account_id, email, name, metadata, created) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
    [row.id, row.account_id, row.email, row.name, row.metadata, row.created],
  );
  return inserted;
}

export function findUser(db: Queryable, accountId: string, id: string): Promise<UserRow | undefined> {
  return db.one<UserRow>('SELECT * FROM users WHERE account_id = ? AND id = ?', [accountId, id]);
}

export function updateUserRow(db: Queryable, accountId: string, id: string, fields: UserFields): Promise<UserRow | undefined> {
  return db.one<UserRow>('UPDATE users SET email = ?, name = ?, metadata = ? WHERE account_id = ? AND id = ? RETURNING *', [
    fields.email,
    fields.name,
    fields.metadata,
    accountId,
    id,
  ]);
}

/** Removes the user and its orders. */
export async function deleteUserRow(db: Queryable, accountId: string, id: string): Promise<boolean> {
  await db.run('DELETE FROM orders WHERE account_id = ? AND user_id = ?', [accountId, id]);
  return (await db.run('DELETE FROM users WHERE account_id = ? AND id = ?', [accountId, id])) === 1;
}

export function listUserRows(db: Queryable, accountId: string, page: PageParams) {
  return fetchPage<UserRow>(db, { table: 'users', accountId }, page);
}
