import type { Queryable } from '../../db/database.js';
import { forUpdate, inJsonArray } from '../../db/dialect.js';
import { fetchFirstPages, fetchPage, type PageParams } from '../shared/pagination.js';

export interface ChargeRow {
  seq: number;
  id: string;
  account_id: string;
  customer_id: string | null;
  amount: number;
  amount_refunded: number;
  currency: string;
  description: string | null;
  metadata: string;
  status: 'succeeded' | 'failed';
  failure_code: string | null;
  failure_message: string | null;
  card_brand: string;
  card_last4: string;
  created: number;
}

export async function insertCharge(db: Queryable, row: Omit<ChargeRow, 'seq'>): Promise<ChargeRow> {
  const [inserted] = await db.all<ChargeRow>(
    `INSERT INTO charges (id, account_id, customer_id, amount, amount_refunded, currency, description, metadata,
       status, failure_code, failure_message, card_brand, card_last4, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [
      row.id, row.account_id, row.customer_id, row.amount, row.amount_refunded, row.currency, row.description,
      row.metadata, row.status, row.failure_code, row.failure_message, row.card_brand, row.card_last4, row.created,
    ],
  );
  return inserted;
}

export function findCharge(db: Queryable, accountId: string, id: string): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>('SELECT * FROM charges WHERE account_id = ? AND id = ?', [accountId, id]);
}

/** The account's charges among these ids, in one statement. */
export function findChargesByIds(db: Queryable, accountId: string, ids: readonly string[]): Promise<ChargeRow[]> {
  return db.all<ChargeRow>(`SELECT * FROM charges WHERE account_id = ? AND ${inJsonArray(db.dialect, 'id')}`, [
    accountId,
    JSON.stringify(ids),
  ]);
}

/** The charge, locked against concurrent refunds until the transaction ends. */
export function findChargeForUpdate(db: Queryable, accountId: string, id: string): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>(`SELECT * FROM charges WHERE account_id = ? AND id = ?${forUpdate(db.dialect)}`, [accountId, id]);
}

export function updateChargeDetails(
  db: Queryable,
  accountId: string,
  id: string,
  fields: Pick<ChargeRow, 'description' | 'metadata'>,
): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>(
    'UPDATE charges SET description = ?, metadata = ? WHERE account_id = ? AND id = ? RETURNING *',
    [fields.description, fields.metadata, accountId, id],
  );
}

export function addRefundedAmount(db: Queryable, accountId: string, id: string, amount: number): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>(
    `UPDATE charges SET amount_refunded = amount_refunded + ?
     WHERE account_id = ? AND id = ? AND amount_refunded + ? <= amount RETURNING *`,
    [amount, accountId, id, amount],
  );
}

/** A page of the account's charges, optionally of one customer and of some statuses only. */
export function listChargeRows(
  db: Queryable,
  accountId: string,
  customerId: string | undefined,
  page: PageParams,
  statuses?: readonly ChargeRow['status'][],
) {
  return fetchPage<ChargeRow>(
    db,
    {
      table: 'charges',
      accountId,
      filters: customerId ? [['customer_id', customerId]] : [],
      conditions: statuses?.length
        ? [{ sql: `status IN (${statuses.map(() => '?').join(', ')})`, params: [...statuses] }]
        : [],
    },
    page,
  );
}

/** The first page of one customer's charges: `limit` newest. */
export interface CustomerChargesPageKey {
  customerId: string;
  limit: number;
}

/** The first page of each customer's charges, newest first, in one statement whatever their number. */
export function firstChargesOfCustomers(db: Queryable, accountId: string, pages: readonly CustomerChargesPageKey[]) {
  return fetchFirstPages<ChargeRow>(
    db,
    { table: 'charges', accountId, column: 'customer_id' },
    pages.map((page) => ({ value: page.customerId, limit: page.limit })),
  );
}
