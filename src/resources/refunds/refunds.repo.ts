import type { Queryable } from '../../db/database.js';
import { inJsonArray } from '../../db/dialect.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface RefundRow {
  seq: number;
  id: string;
  account_id: string;
  charge_id: string;
  amount: number;
  currency: string;
  reason: string | null;
  status: 'succeeded';
  metadata: string;
  created: number;
}

export async function insertRefund(db: Queryable, row: Omit<RefundRow, 'seq'>): Promise<RefundRow> {
  const [inserted] = await db.all<RefundRow>(
    `INSERT INTO refunds (id, account_id, charge_id, amount, currency, reason, status, metadata, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [row.id, row.account_id, row.charge_id, row.amount, row.currency, row.reason, row.status, row.metadata, row.created],
  );
  return inserted;
}

export function findRefund(db: Queryable, accountId: string, id: string): Promise<RefundRow | undefined> {
  return db.one<RefundRow>('SELECT * FROM refunds WHERE account_id = ? AND id = ?', [accountId, id]);
}

/** The account's refunds of these charges, newest first, in one statement. */
export function findRefundsOfCharges(
  db: Queryable,
  accountId: string,
  chargeIds: readonly string[],
): Promise<RefundRow[]> {
  return db.all<RefundRow>(
    `SELECT * FROM refunds WHERE account_id = ? AND ${inJsonArray(db.dialect, 'charge_id')} ORDER BY seq DESC`,
    [accountId, JSON.stringify(chargeIds)],
  );
}

export function listRefundRows(db: Queryable, accountId: string, chargeId: string | undefined, page: PageParams) {
  return fetchPage<RefundRow>(db, { table: 'refunds', accountId, filters: chargeId ? [['charge_id', chargeId]] : [] }, page);
}
