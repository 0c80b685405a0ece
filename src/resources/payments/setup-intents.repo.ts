import type { Queryable } from '../../db/database.js';
import { forUpdate, inJsonArray } from '../../db/dialect.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export type SetupIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'succeeded'
  | 'canceled';

export interface SetupIntentRow {
  seq: number;
  id: string;
  account_id: string;
  customer_id: string | null;
  status: SetupIntentStatus;
  payment_method: string | null;
  usage: 'off_session' | 'on_session';
  /** JSON of the spec's PaymentMethodTypes. */
  payment_method_types: string;
  /** JSON of the spec's AutomaticPaymentMethods, or null. */
  automatic_payment_methods: string | null;
  /** JSON of the spec's SetupError, or null. */
  last_setup_error: string | null;
  description: string | null;
  metadata: string;
  cancellation_reason: string | null;
  /** Sealed (payments/client-secrets.ts). */
  client_secret: string;
  /** Where the authentication page sends the customer back (the last `return_url` given). */
  return_url: string | null;
  created: number;
}

/** The columns a change of a setup intent may write. */
export type SetupIntentChanges = Partial<
  Omit<SetupIntentRow, 'seq' | 'id' | 'account_id' | 'created' | 'client_secret'>
>;

const INSERTED_COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'status',
  'payment_method',
  'usage',
  'payment_method_types',
  'automatic_payment_methods',
  'last_setup_error',
  'description',
  'metadata',
  'cancellation_reason',
  'client_secret',
  'return_url',
  'created',
] as const;

/** Inserts the setup intent (its row is known, nothing is read back). */
export async function insertSetupIntent(
  db: Queryable,
  row: Omit<SetupIntentRow, 'seq'>,
): Promise<Omit<SetupIntentRow, 'seq'>> {
  await db.write(
    `INSERT INTO setup_intents (${INSERTED_COLUMNS.join(', ')}) VALUES (${INSERTED_COLUMNS.map(() => '?').join(', ')})`,
    INSERTED_COLUMNS.map((column) => row[column]),
  );
  return row;
}

/** The setup intent of any account, by its id alone: for the authentication page, which checks the client secret itself. */
export function findSetupIntentAnyAccount(
  db: Queryable,
  id: string,
): Promise<SetupIntentRow | undefined> {
  return db.one<SetupIntentRow>('SELECT * FROM setup_intents WHERE id = ?', [id]);
}

export function findSetupIntent(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SetupIntentRow | undefined> {
  return db.one<SetupIntentRow>('SELECT * FROM setup_intents WHERE account_id = ? AND id = ?', [
    accountId,
    id,
  ]);
}

/** The setup intent, locked until the transaction ends, so that two changes of it run one after the other. */
export function findSetupIntentForUpdate(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SetupIntentRow | undefined> {
  return db.one<SetupIntentRow>(
    `SELECT * FROM setup_intents WHERE account_id = ? AND id = ?${forUpdate(db.dialect)}`,
    [accountId, id],
  );
}

/** The account's setup intents among these ids, in one statement. */
export function findSetupIntentsByIds(
  db: Queryable,
  accountId: string,
  ids: readonly string[],
): Promise<SetupIntentRow[]> {
  return db.all<SetupIntentRow>(
    `SELECT * FROM setup_intents WHERE account_id = ? AND ${inJsonArray(db.dialect, 'id')}`,
    [accountId, JSON.stringify(ids)],
  );
}

/** Writes the changed columns of a setup intent (held locked by the caller) and answers it as it now is. */
export async function updateSetupIntentRow(
  db: Queryable,
  accountId: string,
  id: string,
  changes: SetupIntentChanges,
): Promise<SetupIntentRow> {
  const columns = Object.keys(changes) as Array<keyof SetupIntentChanges>;
  const updated = await db.one<SetupIntentRow>(
    `UPDATE setup_intents SET ${columns.map((column) => `${column} = ?`).join(', ')}
     WHERE account_id = ? AND id = ? RETURNING *`,
    [...columns.map((column) => changes[column] ?? null), accountId, id],
  );
  return updated!;
}

/** A page of the account's setup intents, optionally of one customer or one payment method. */
export function listSetupIntentRows(
  db: Queryable,
  accountId: string,
  filters: { customer?: string; paymentMethod?: string },
  page: PageParams,
) {
  const equal: Array<readonly [string, string]> = [];
  if (filters.customer) equal.push(['customer_id', filters.customer]);
  if (filters.paymentMethod) equal.push(['payment_method', filters.paymentMethod]);
  return fetchPage<SetupIntentRow>(db, { table: 'setup_intents', accountId, filters: equal }, page);
}
