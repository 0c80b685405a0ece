import type { Queryable, SqlValue } from '../../db/database.js';
import { forUpdate, inJsonArray } from '../../db/dialect.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

/** A saved card: what the spec shows of it, and which test card it is. Never its number. */
export interface PaymentMethodRow {
  seq: number;
  id: string;
  account_id: string;
  customer_id: string | null;
  /** The test card's name (`visa`, `chargeDeclined`, …): how payments with it go. */
  test_card: string;
  card_brand: string;
  card_last4: string;
  card_fingerprint: string;
  card_exp_month: number;
  card_exp_year: number;
  card_cvc_check: string | null;
  /** JSON of the spec's BillingDetails. */
  billing_details: string;
  metadata: string;
  /** SQLite answers 0 or 1. */
  off_session_ready: boolean | number;
  created: number;
}

/** The columns an update of a payment method may write. */
export type PaymentMethodChanges = Partial<
  Pick<PaymentMethodRow, 'customer_id' | 'card_exp_month' | 'card_exp_year' | 'billing_details' | 'metadata' | 'off_session_ready'>
>;

const INSERTED_COLUMNS = [
  'id', 'account_id', 'customer_id', 'test_card', 'card_brand', 'card_last4', 'card_fingerprint', 'card_exp_month',
  'card_exp_year', 'card_cvc_check', 'billing_details', 'metadata', 'off_session_ready', 'created',
] as const;

/** Inserts the payment method (pipelined in a transaction: its row is known, nothing is read back). */
export async function insertPaymentMethod(db: Queryable, row: Omit<PaymentMethodRow, 'seq'>): Promise<Omit<PaymentMethodRow, 'seq'>> {
  await db.write(
    `INSERT INTO payment_methods (${INSERTED_COLUMNS.join(', ')}) VALUES (${INSERTED_COLUMNS.map(() => '?').join(', ')})`,
    INSERTED_COLUMNS.map((column) => row[column]),
  );
  return row;
}

export function findPaymentMethod(db: Queryable, accountId: string, id: string): Promise<PaymentMethodRow | undefined> {
  return db.one<PaymentMethodRow>('SELECT * FROM payment_methods WHERE account_id = ? AND id = ?', [accountId, id]);
}

/** The payment method, locked until the transaction ends (attach and detach read, decide, then write). */
export function findPaymentMethodForUpdate(db: Queryable, accountId: string, id: string): Promise<PaymentMethodRow | undefined> {
  return db.one<PaymentMethodRow>(`SELECT * FROM payment_methods WHERE account_id = ? AND id = ?${forUpdate(db.dialect)}`, [
    accountId,
    id,
  ]);
}

/** The account's payment methods among these ids, in one statement. */
export function findPaymentMethodsByIds(db: Queryable, accountId: string, ids: readonly string[]): Promise<PaymentMethodRow[]> {
  return db.all<PaymentMethodRow>(`SELECT * FROM payment_methods WHERE account_id = ? AND ${inJsonArray(db.dialect, 'id')}`, [
    accountId,
    JSON.stringify(ids),
  ]);
}

export async function updatePaymentMethodRow(
  db: Queryable,
  accountId: string,
  id: string,
  changes: PaymentMethodChanges,
): Promise<PaymentMethodRow> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  const [row] = await db.all<PaymentMethodRow>(
    `UPDATE payment_methods SET ${entries.map(([column]) => `${column} = ?`).join(', ')}
     WHERE account_id = ? AND id = ? RETURNING *`,
    [...entries.map(([, value]) => value as SqlValue), accountId, id],
  );
  return row;
}

/**
 * Attaches the payment method to the customer unless it is attached to another one: the
 * condition is in the UPDATE, so of two concurrent attaches to two customers only one changes
 * the row (the other finds it attached, whichever engine). Answers the row when it changed.
 */
export function attachPaymentMethodRow(db: Queryable, accountId: string, id: string, customerId: string): Promise<PaymentMethodRow | undefined> {
  return db.one<PaymentMethodRow>(
    `UPDATE payment_methods SET customer_id = ? WHERE account_id = ? AND id = ? AND customer_id IS NULL RETURNING *`,
    [customerId, accountId, id],
  );
}

export function listPaymentMethodRows(db: Queryable, accountId: string, customer: string | undefined, page: PageParams) {
  return fetchPage<PaymentMethodRow>(db, { table: 'payment_methods', accountId, filters: customer ? [['customer_id', customer]] : [] }, page);
}
