import type { Queryable } from '../../db/database.js';
import { forUpdate, inJsonArray } from '../../db/dialect.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface CustomerRow {
  seq: number;
  id: string;
  account_id: string;
  email: string | null;
  name: string | null;
  description: string | null;
  phone: string | null;
  metadata: string;
  /** `invoice_settings.default_payment_method`: a payment method attached to the customer. */
  default_payment_method_id: string | null;
  /** JSON of the spec's `Address`, or null. */
  address: string | null;
  /** JSON of the spec's `Shipping`, or null. */
  shipping: string | null;
  /** JSON list of locales. */
  preferred_locales: string;
  tax_exempt: 'none' | 'exempt' | 'reverse';
  /** JSON of `invoice_settings` beyond its default payment method (`InvoiceExtras`), or null when none was set. */
  invoice_settings: string | null;
  created: number;
}

/** The fields a create, replace or update writes. */
export type CustomerFields = Pick<
  CustomerRow,
  | 'email'
  | 'name'
  | 'description'
  | 'phone'
  | 'metadata'
  | 'default_payment_method_id'
  | 'address'
  | 'shipping'
  | 'preferred_locales'
  | 'tax_exempt'
  | 'invoice_settings'
>;

/** The columns a create, replace or update writes, in the order of the statements below. */
const WRITTEN = [
  'email', 'name', 'description', 'phone', 'metadata', 'default_payment_method_id',
  'address', 'shipping', 'preferred_locales', 'tax_exempt', 'invoice_settings',
] as const satisfies ReadonlyArray<keyof CustomerFields>;

export async function insertCustomer(db: Queryable, row: Omit<CustomerRow, 'seq'>): Promise<CustomerRow> {
  const [inserted] = await db.all<CustomerRow>(
    `INSERT INTO customers (id, account_id, ${WRITTEN.join(', ')}, created)
     VALUES (?, ?, ${WRITTEN.map(() => '?').join(', ')}, ?) RETURNING *`,
    [row.id, row.account_id, ...WRITTEN.map((column) => row[column]), row.created],
  );
  return inserted;
}

export function findCustomer(db: Queryable, accountId: string, id: string): Promise<CustomerRow | undefined> {
  return db.one<CustomerRow>('SELECT * FROM customers WHERE account_id = ? AND id = ?', [accountId, id]);
}

/** The account's customers among these ids, in one statement; ids of others' or deleted customers are absent. */
export function findCustomersByIds(db: Queryable, accountId: string, ids: readonly string[]): Promise<CustomerRow[]> {
  return db.all<CustomerRow>(`SELECT * FROM customers WHERE account_id = ? AND ${inJsonArray(db.dialect, 'id')}`, [
    accountId,
    JSON.stringify(ids),
  ]);
}

export async function updateCustomerRow(
  db: Queryable,
  accountId: string,
  id: string,
  fields: CustomerFields,
): Promise<CustomerRow | undefined> {
  return db.one<CustomerRow>(
    `UPDATE customers SET ${WRITTEN.map((column) => `${column} = ?`).join(', ')}
     WHERE account_id = ? AND id = ? RETURNING *`,
    [...WRITTEN.map((column) => fields[column]), accountId, id],
  );
}

/**
 * Whether the payment method is attached to the customer (what a default payment method must be).
 * The payment methods' rows are written by `payments/`, a layer above; this is their one read here.
 * The row is locked (Postgres) as a detach locks it, so a detach running meanwhile is waited for
 * and seen, and a default is never set to a payment method that was just detached.
 */
export async function isPaymentMethodOf(db: Queryable, accountId: string, customerId: string, paymentMethodId: string): Promise<boolean> {
  const row = await db.one<{ id: string }>(
    `SELECT id FROM payment_methods WHERE account_id = ? AND id = ? AND customer_id = ?${forUpdate(db.dialect)}`,
    [accountId, paymentMethodId, customerId],
  );
  return row !== undefined;
}

/** Unsets the customer's default payment method if it is this one (it was detached); the row when it was. */
export function clearDefaultPaymentMethod(
  db: Queryable,
  accountId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<CustomerRow | undefined> {
  return db.one<CustomerRow>(
    `UPDATE customers SET default_payment_method_id = NULL
     WHERE account_id = ? AND id = ? AND default_payment_method_id = ? RETURNING *`,
    [accountId, customerId, paymentMethodId],
  );
}

export async function deleteCustomerRow(db: Queryable, accountId: string, id: string): Promise<boolean> {
  return (await db.run('DELETE FROM customers WHERE account_id = ? AND id = ?', [accountId, id])) === 1;
}

export function listCustomerRows(db: Queryable, accountId: string, email: string | undefined, page: PageParams) {
  return fetchPage<CustomerRow>(db, { table: 'customers', accountId, filters: email ? [['email', email]] : [] }, page);
}
