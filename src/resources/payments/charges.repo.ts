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
  /** The intent the charge belongs to (null for charges made before intents existed). */
  payment_intent_id: string | null;
  /** 0 while only authorised (and for a failed charge). */
  amount_captured: number;
  /** Unix seconds until which an authorisation may be captured; null once captured or released. */
  capture_before: number | null;
  /** Where the receipt is e-mailed, once the charge is paid and captured. */
  receipt_email: string | null;
  /** The number of the receipt sent (null until one is queued). */
  receipt_number: string | null;
  /** The secret part of the receipt page's address; null for a failed charge and for charges made before receipts. */
  receipt_token: string | null;
  statement_descriptor: string | null;
  statement_descriptor_suffix: string | null;
  /** What the card statement shows (see statement-descriptors.ts); null for charges made before it was kept. */
  calculated_statement_descriptor: string | null;
  /** JSON of the spec's `Shipping`, or null. */
  shipping: string | null;
  /** The card's expiry; null in charges made before it was kept. */
  card_exp_month: number | null;
  card_exp_year: number | null;
  /** JSON of the spec's `BillingDetails` of the payment method paid with; null for a token, and in charges made before it was kept. */
  billing_details: string | null;
  /** The payment method paid with; null for a token, and in charges made before it was kept. */
  payment_method_id: string | null;
  /** The payment method's card fingerprint and CVC check; null as `payment_method_id` is. */
  card_fingerprint: string | null;
  card_cvc_check: string | null;
  /** Why the card was declined (the outcome's `reason`); null for a paid charge, and in failed charges made before it was kept. */
  decline_code: string | null;
  /** Whether the customer authenticated the payment (3-D Secure). SQLite answers 0 or 1. */
  three_d_secure_authenticated: boolean | number;
}

const INSERTED_COLUMNS = [
  'id', 'account_id', 'customer_id', 'amount', 'amount_refunded', 'currency', 'description', 'metadata', 'status',
  'failure_code', 'failure_message', 'card_brand', 'card_last4', 'created', 'payment_intent_id', 'amount_captured',
  'capture_before', 'receipt_email', 'receipt_number', 'receipt_token', 'statement_descriptor',
  'statement_descriptor_suffix', 'calculated_statement_descriptor', 'shipping', 'card_exp_month', 'card_exp_year',
  'billing_details', 'payment_method_id', 'card_fingerprint', 'card_cvc_check', 'decline_code', 'three_d_secure_authenticated',
] as const satisfies ReadonlyArray<keyof ChargeRow>;

/** Inserts the charge (pipelined in a transaction: its row is known, nothing is read back). */
export async function insertCharge(db: Queryable, row: Omit<ChargeRow, 'seq'>): Promise<Omit<ChargeRow, 'seq'>> {
  await db.write(
    `INSERT INTO charges (${INSERTED_COLUMNS.join(', ')}) VALUES (${INSERTED_COLUMNS.map(() => '?').join(', ')})`,
    INSERTED_COLUMNS.map((column) => row[column]),
  );
  return row;
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
  fields: Pick<ChargeRow, 'customer_id' | 'description' | 'metadata' | 'receipt_email' | 'receipt_number' | 'shipping'>,
): Promise<ChargeRow | undefined> {
  // A customer is set only where there is none, so that of two concurrent updates one keeps it.
  return db.one<ChargeRow>(
    `UPDATE charges SET customer_id = COALESCE(customer_id, ?), description = ?, metadata = ?, receipt_email = ?,
       receipt_number = ?, shipping = ?
     WHERE account_id = ? AND id = ? RETURNING *`,
    [fields.customer_id, fields.description, fields.metadata, fields.receipt_email, fields.receipt_number, fields.shipping, accountId, id],
  );
}

/** Sets the statement descriptors of a charge (a capture given its own). */
export function setStatementDescriptorFields(
  db: Queryable,
  accountId: string,
  id: string,
  fields: Pick<ChargeRow, 'statement_descriptor' | 'statement_descriptor_suffix' | 'calculated_statement_descriptor'>,
): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>(
    `UPDATE charges SET statement_descriptor = ?, statement_descriptor_suffix = ?, calculated_statement_descriptor = ?
     WHERE account_id = ? AND id = ? RETURNING *`,
    [fields.statement_descriptor, fields.statement_descriptor_suffix, fields.calculated_statement_descriptor, accountId, id],
  );
}

/** Sets where a charge's receipt goes, and its number (captureCharge's `receipt_email`, a receipt queued). */
export function setReceiptFields(
  db: Queryable,
  accountId: string,
  id: string,
  fields: Pick<ChargeRow, 'receipt_email' | 'receipt_number'>,
): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>('UPDATE charges SET receipt_email = ?, receipt_number = ? WHERE account_id = ? AND id = ? RETURNING *', [
    fields.receipt_email,
    fields.receipt_number,
    accountId,
    id,
  ]);
}

/**
 * The charge behind a receipt page, of whichever account: the page's address names the charge and
 * carries its token, which the caller compares (no account is known to a receipt's reader).
 */
export function findChargeOfReceipt(db: Queryable, id: string): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>('SELECT * FROM charges WHERE id = ?', [id]);
}

export function addRefundedAmount(db: Queryable, accountId: string, id: string, amount: number): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>(
    `UPDATE charges SET amount_refunded = amount_refunded + ?
     WHERE account_id = ? AND id = ? AND amount_refunded + ? <= amount RETURNING *`,
    [amount, accountId, id, amount],
  );
}

/**
 * Captures `amount` of an authorised charge and releases the rest (counted as refunded, as the
 * widely used payments API shows a partial capture). Answers undefined when the charge is not an
 * authorisation any more (captured or released meanwhile).
 */
export function captureChargeRow(db: Queryable, accountId: string, id: string, amount: number): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>(
    `UPDATE charges SET amount_captured = ?, amount_refunded = amount - ?, capture_before = NULL
     WHERE account_id = ? AND id = ? AND capture_before IS NOT NULL AND ? <= amount RETURNING *`,
    [amount, amount, accountId, id, amount],
  );
}

/** Releases an authorised charge in full (canceled, refunded or expired uncaptured). */
export function releaseChargeRow(db: Queryable, accountId: string, id: string): Promise<ChargeRow | undefined> {
  return db.one<ChargeRow>(
    `UPDATE charges SET amount_refunded = amount, capture_before = NULL
     WHERE account_id = ? AND id = ? AND capture_before IS NOT NULL RETURNING *`,
    [accountId, id],
  );
}

/** Authorisations past their capture deadline, of any account, oldest first, at most `limit`. */
export function findExpiredAuthorizations(db: Queryable, nowSeconds: number, limit: number): Promise<ChargeRow[]> {
  return db.all<ChargeRow>(
    'SELECT * FROM charges WHERE capture_before IS NOT NULL AND capture_before <= ? ORDER BY capture_before LIMIT ?',
    [nowSeconds, limit],
  );
}

/** A page of the account's charges, optionally of one customer and of some statuses only. */
export function listChargeRows(
  db: Queryable,
  accountId: string,
  filters: { customer?: string; paymentIntent?: string },
  page: PageParams,
  statuses?: readonly ChargeRow['status'][],
) {
  const equal: Array<[string, string]> = [];
  if (filters.customer) equal.push(['customer_id', filters.customer]);
  if (filters.paymentIntent) equal.push(['payment_intent_id', filters.paymentIntent]);
  return fetchPage<ChargeRow>(
    db,
    {
      table: 'charges',
      accountId,
      filters: equal,
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
