import type { Queryable } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface OrderRow {
  seq: number;
  id: string;
  account_id: string;
  user_id: string;
  amount: number;
  currency: string;
  description: string | null;
  status: 'pending' | 'paid' | 'cancelled';
  metadata: string;
  created: number;
}

export type OrderFields = Pick<OrderRow, 'amount' | 'currency' | 'description' | 'status' | 'metadata'>;

export async function insertOrder(db: Queryable, row: Omit<OrderRow, 'seq'>): Promise<OrderRow> {
  const [inserted] = await db.all<OrderRow>(
    `INSERT INTO orders (id, account_id, user_id, amount, currency, description, status, metadata, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [row.id, row.account_id, row.user_id, row.amount, row.currency, row.description, row.status, row.metadata, row.created],
  );
  return inserted;
}

/** An order of this user of this account; an order of another user is not found. */
export function findOrder(db: Queryable, accountId: string, userId: string, id: string): Promise<OrderRow | undefined> {
  return db.one<OrderRow>('SELECT * FROM orders WHERE account_id = ? AND user_id = ? AND id = ?', [accountId, userId, id]);
}

export function updateOrderRow(db: Queryable, accountId: string, id: string, fields: OrderFields): Promise<OrderRow | undefined> {
  return db.one<OrderRow>(
    `UPDATE orders SET amount = ?, currency = ?, description = ?, status = ?, metadata = ?
     WHERE account_id = ? AND id = ? RETURNING *`,
    [fields.amount, fields.currency, fields.description, fields.status, fields.metadata, accountId, id],
  );
}

export async function deleteOrderRow(db: Queryable, accountId: string, id: string): Promise<boolean> {
  return (await db.run('DELETE FROM orders WHERE account_id = ? AND id = ?', [accountId, id])) === 1;
}

export function listOrderRows(db: Queryable, accountId: string, userId: string, status: string | undefined, page: PageParams) {
  const filters: Array<[string, string]> = [['user_id', userId]];
  if (status) filters.push(['status', status]);
  return fetchPage<OrderRow>(db, { table: 'orders', accountId, filters }, page);
}
