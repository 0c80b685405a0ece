import type { Queryable } from '../../db/database.js';
import { inJsonArray } from '../../db/dialect.js';
import { fetchFirstPages, fetchPage, type PageParams } from '../shared/pagination.js';

export interface RefundRow {
  seq: number;
  id: string;
  account_id: string;
  charge_id: string;
  /** The intent of the refunded charge (null for charges made before intents existed). */
  payment_intent_id: string | null;
  /** The customer and payment method of the refunded charge (the charge's customer is set on it later, too). */
  customer_id: string | null;
  payment_method_id: string | null;
  amount: number;
  currency: string;
  reason: string | null;
  status: 'succeeded';
  metadata: string;
  created: number;
}

export async function insertRefund(db: Queryable, row: Omit<RefundRow, 'seq'>): Promise<RefundRow> {
  const [inserted] = await db.all<RefundRow>(
    `INSERT INTO refunds (id, account_id, charge_id, payment_intent_id, customer_id, payment_method_id, amount, currency, reason,
       status, metadata, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [
      row.id, row.account_id, row.charge_id, row.payment_intent_id, row.customer_id, row.payment_method_id, row.amount, row.currency,
      row.reason, row.status, row.metadata, row.created,
    ],
  );
  return inserted;
}

/** Gives the refunds of a charge the customer just set on it. */
export async function setRefundsCustomer(db: Queryable, accountId: string, chargeId: string, customerId: string): Promise<void> {
  await db.run('UPDATE refunds SET customer_id = ? WHERE account_id = ? AND charge_id = ? AND customer_id IS NULL', [
    customerId,
    accountId,
    chargeId,
  ]);
}

/** Sets a refund's metadata (JSON); undefined when there is no such refund. */
export function updateRefundMetadata(db: Queryable, accountId: string, id: string, metadata: string): Promise<RefundRow | undefined> {
  return db.one<RefundRow>('UPDATE refunds SET metadata = ? WHERE account_id = ? AND id = ? RETURNING *', [metadata, accountId, id]);
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

/** The first page (`limit` newest) of each charge's refunds, in one statement whatever their number. */
export function firstRefundsOfCharges(db: Queryable, accountId: string, chargeIds: readonly string[], limit: number) {
  return fetchFirstPages<RefundRow>(
    db,
    { table: 'refunds', accountId, column: 'charge_id' },
    chargeIds.map((value) => ({ value, limit })),
  );
}

/** A page of the account's refunds, optionally of one charge or of one intent's charges. */
export function listRefundRows(
  db: Queryable,
  accountId: string,
  filters: { charge?: string; paymentIntent?: string },
  page: PageParams,
) {
  const equal: Array<[string, string]> = [];
  if (filters.charge) equal.push(['charge_id', filters.charge]);
  if (filters.paymentIntent) equal.push(['payment_intent_id', filters.paymentIntent]);
  return fetchPage<RefundRow>(db, { table: 'refunds', accountId, filters: equal }, page);
}
