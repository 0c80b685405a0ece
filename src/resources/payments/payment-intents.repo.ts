import type { Queryable } from '../../db/database.js';
import { forUpdate, inJsonArray } from '../../db/dialect.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export type PaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'succeeded'
  | 'canceled';

export interface PaymentIntentRow {
  seq: number;
  id: string;
  account_id: string;
  customer_id: string | null;
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  capture_method: 'automatic' | 'manual';
  status: PaymentIntentStatus;
  payment_method: string | null;
  latest_charge_id: string | null;
  /** JSON of the spec's PaymentError, or null. */
  last_payment_error: string | null;
  description: string | null;
  metadata: string;
  canceled_at: number | null;
  cancellation_reason: string | null;
  setup_future_usage: 'off_session' | 'on_session' | null;
  created: number;
  /** Where the receipt of the payment is e-mailed; the charge carries it. */
  receipt_email: string | null;
  /** Sealed (payments/client-secrets.ts); null for an intent made before client secrets existed. */
  client_secret: string | null;
  /** Where a redirect page sends the customer back (the last `return_url` given); null without one. */
  return_url: string | null;
  /** JSON of the spec's `AutomaticPaymentMethods`, or null when not asked for. */
  automatic_payment_methods: string | null;
  /** JSON list of payment method types (`["card"]`). */
  payment_method_types: string;
  confirmation_method: 'automatic' | 'manual';
  /** With `confirmation_method=manual`: the payment method the customer authenticated, which the next confirmation pays with unasked. */
  authenticated_payment_method: string | null;
  /** JSON of the options sent (`{"card": {"capture_method": "manual"}}`), or null. */
  payment_method_options: string | null;
  /** JSON of the spec's `Shipping`, or null. */
  shipping: string | null;
  statement_descriptor: string | null;
  statement_descriptor_suffix: string | null;
}

/** The columns a change of an intent may write. */
export type PaymentIntentChanges = Partial<Omit<PaymentIntentRow, 'seq' | 'id' | 'account_id' | 'created' | 'client_secret'>>;

const INSERTED_COLUMNS = [
  'id', 'account_id', 'customer_id', 'amount', 'amount_capturable', 'amount_received', 'currency', 'capture_method',
  'status', 'payment_method', 'latest_charge_id', 'last_payment_error', 'description', 'metadata', 'canceled_at',
  'cancellation_reason', 'setup_future_usage', 'created', 'receipt_email', 'client_secret', 'return_url',
  'automatic_payment_methods', 'payment_method_types', 'confirmation_method', 'authenticated_payment_method',
  'payment_method_options', 'shipping', 'statement_descriptor', 'statement_descriptor_suffix',
] as const;

/** Inserts the intent (pipelined in a transaction: its row is known, nothing is read back). */
export async function insertPaymentIntent(
  db: Queryable,
  row: Omit<PaymentIntentRow, 'seq'>,
): Promise<Omit<PaymentIntentRow, 'seq'>> {
  await db.write(
    `INSERT INTO payment_intents (${INSERTED_COLUMNS.join(', ')}) VALUES (${INSERTED_COLUMNS.map(() => '?').join(', ')})`,
    INSERTED_COLUMNS.map((column) => row[column]),
  );
  return row;
}

/** The intent of any account, by its id alone: for the redirect page, which checks the client secret itself. */
export function findPaymentIntentAnyAccount(db: Queryable, id: string): Promise<PaymentIntentRow | undefined> {
  return db.one<PaymentIntentRow>('SELECT * FROM payment_intents WHERE id = ?', [id]);
}

export function findPaymentIntent(db: Queryable, accountId: string, id: string): Promise<PaymentIntentRow | undefined> {
  return db.one<PaymentIntentRow>('SELECT * FROM payment_intents WHERE account_id = ? AND id = ?', [accountId, id]);
}

/**
 * The intent, locked until the transaction ends: every change of an intent reads it this way, so
 * two concurrent changes (two captures) run one after the other and the second sees the first's
 * status. SQLite runs one writing transaction at a time, so the plain read is enough there.
 */
export function findPaymentIntentForUpdate(db: Queryable, accountId: string, id: string): Promise<PaymentIntentRow | undefined> {
  return db.one<PaymentIntentRow>(
    `SELECT * FROM payment_intents WHERE account_id = ? AND id = ?${forUpdate(db.dialect)}`,
    [accountId, id],
  );
}

/** The account's intents among these ids, in one statement. */
export function findPaymentIntentsByIds(db: Queryable, accountId: string, ids: readonly string[]): Promise<PaymentIntentRow[]> {
  return db.all<PaymentIntentRow>(
    `SELECT * FROM payment_intents WHERE account_id = ? AND ${inJsonArray(db.dialect, 'id')}`,
    [accountId, JSON.stringify(ids)],
  );
}

/** Writes the changed columns of an intent and answers it as it now is. */
export async function updatePaymentIntentRow(
  db: Queryable,
  accountId: string,
  id: string,
  changes: PaymentIntentChanges,
): Promise<PaymentIntentRow> {
  const columns = Object.keys(changes) as Array<keyof PaymentIntentChanges>;
  const updated = await db.one<PaymentIntentRow>(
    `UPDATE payment_intents SET ${columns.map((column) => `${column} = ?`).join(', ')}
     WHERE account_id = ? AND id = ? RETURNING *`,
    [...columns.map((column) => changes[column] ?? null), accountId, id],
  );
  // Callers hold the row locked (findPaymentIntentForUpdate): it cannot have gone.
  return updated!;
}

/** A page of the account's intents, optionally of one customer and in some statuses. */
export function listPaymentIntentRows(
  db: Queryable,
  accountId: string,
  filters: { customer?: string; statuses?: readonly PaymentIntentStatus[] },
  page: PageParams,
) {
  const statuses = filters.statuses ?? [];
  return fetchPage<PaymentIntentRow>(
    db,
    {
      table: 'payment_intents',
      accountId,
      filters: filters.customer ? [['customer_id', filters.customer]] : [],
      conditions: statuses.length ? [{ sql: `status IN (${statuses.map(() => '?').join(', ')})`, params: [...statuses] }] : [],
    },
    page,
  );
}
