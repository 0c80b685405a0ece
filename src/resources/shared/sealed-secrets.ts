/**
 * Every stored secret the server must use again (not only compare), so kept sealed
 * (domain/secret-box.ts): webhook endpoints' secrets and previous secrets, HMAC signing keys'
 * secrets, the private keys that sign access tokens. API keys and OAuth client secrets are hashed
 * instead and are not here.
 *
 * `sealStoredSecrets` runs at every start, after the migrations: it seals the plain values (those
 * written before sealing, or by an older process) and refuses to go on when a value is sealed
 * under a key the ring lacks. `resealStoredSecrets` is the rotation: every value under another key
 * is sealed again under the current one. Both write a row only if it still holds the value read,
 * so processes doing it at once (or a request rotating a secret meanwhile) never undo each other.
 */
import type { Queryable } from '../../db/database.js';
import { SecretUnreadable, SEALED_PATTERN, sealedKeyId, sealedUnderPattern, type SecretBox, type SealedPlace } from '../../domain/secret-box.js';

/** A column of sealed values, and the column that names its rows. */
export interface SealedColumn {
  table: string;
  idColumn: string;
  column: string;
}

/** The sealed columns, one by one: webhook endpoints' secrets, signing keys' secrets, token-signing private JWKs, client secrets. */
export const WEBHOOK_SECRET: SealedColumn = { table: 'webhook_endpoints', idColumn: 'id', column: 'secret' };
export const WEBHOOK_PREVIOUS_SECRET: SealedColumn = { table: 'webhook_endpoints', idColumn: 'id', column: 'previous_secret' };
export const SIGNING_KEY_SECRET: SealedColumn = { table: 'signing_keys', idColumn: 'id', column: 'secret' };
export const TOKEN_PRIVATE_KEY: SealedColumn = { table: 'token_signing_keys', idColumn: 'kid', column: 'private_jwk' };
/** Payment intents' client secrets (payments/client-secrets.ts). */
export const PAYMENT_INTENT_CLIENT_SECRET: SealedColumn = { table: 'payment_intents', idColumn: 'id', column: 'client_secret' };
/** Setup intents' client secrets. */
export const SETUP_INTENT_CLIENT_SECRET: SealedColumn = { table: 'setup_intents', idColumn: 'id', column: 'client_secret' };

/** Every column of sealed values. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  WEBHOOK_SECRET,
  WEBHOOK_PREVIOUS_SECRET,
  SIGNING_KEY_SECRET,
  TOKEN_PRIVATE_KEY,
  PAYMENT_INTENT_CLIENT_SECRET,
  SETUP_INTENT_CLIENT_SECRET,
];

/** Rows read per statement, so that a large table is never held in memory at once. */
const PAGE = 500;

/** How many values a pass sealed. */
export interface SealingReport {
  sealed: number;
}

/** The place of a column's value in the row `row` names, as the additional data of its sealing. */
export function placeOf(column: SealedColumn, row: string): SealedPlace {
  return { table: column.table, column: column.column, row };
}

/**
 * Seals every plain stored secret under the current key. Throws `SecretUnreadable` when a value is
 * sealed under a key the ring does not hold (a lost or wrong `SECRETS_KEY`): nothing could use it.
 */
export async function sealStoredSecrets(db: Queryable, box: SecretBox): Promise<SealingReport> {
  let sealed = 0;
  for (const column of SEALED_COLUMNS) {
    await assertEveryKeyHeld(db, box, column);
    sealed += await sealRows(db, box, column, `${column.column} NOT LIKE ?`, [SEALED_PATTERN]);
  }
  return { sealed };
}

/** Seals again under the current key every value sealed under another one (or not sealed). */
export async function resealStoredSecrets(db: Queryable, box: SecretBox): Promise<SealingReport> {
  let sealed = 0;
  for (const column of SEALED_COLUMNS) {
    await assertEveryKeyHeld(db, box, column);
    sealed += await sealRows(db, box, column, `${column.column} NOT LIKE ?`, [sealedUnderPattern(box.currentKeyId)]);
  }
  return { sealed };
}

/** How many values of each key id are stored, over every sealed column (`plain` for unsealed ones). */
export async function countStoredSecretsByKey(db: Queryable): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const column of SEALED_COLUMNS) {
    let after = '';
    for (;;) {
      const rows = await pageOf(db, column, '1 = 1', [], after);
      for (const row of rows) {
        const keyId = sealedKeyId(row.value) ?? 'plain';
        counts.set(keyId, (counts.get(keyId) ?? 0) + 1);
      }
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1].id;
    }
  }
  return counts;
}

async function assertEveryKeyHeld(db: Queryable, box: SecretBox, column: SealedColumn): Promise<void> {
  const held = box.keyIds.map(() => `${column.column} NOT LIKE ?`).join(' AND ');
  const [stray] = await pageOf(db, column, `${column.column} LIKE ? AND ${held}`, [SEALED_PATTERN, ...box.keyIds.map(sealedUnderPattern)], '', 1);
  if (!stray) return;
  throw new SecretUnreadable(
    `${column.table}.${column.column} of ${stray.id} is sealed under secrets key ${sealedKeyId(stray.value)}, ` +
      `which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS (their ids: ${box.keyIds.join(', ')})`,
  );
}

async function sealRows(db: Queryable, box: SecretBox, column: SealedColumn, where: string, params: string[]): Promise<number> {
  let sealed = 0;
  let after = '';
  for (;;) {
    const rows = await pageOf(db, column, where, params, after);
    for (const row of rows) {
      const value = box.reseal(row.value, placeOf(column, row.id));
      sealed += await db.run(`UPDATE ${column.table} SET ${column.column} = ? WHERE ${column.idColumn} = ? AND ${column.column} = ?`, [
        value,
        row.id,
        row.value,
      ]);
    }
    if (rows.length < PAGE) return sealed;
    after = rows[rows.length - 1].id;
  }
}

/** The rows of a column matching `where`, by id after `after`, at most `limit`; null values left out. */
function pageOf(
  db: Queryable,
  column: SealedColumn,
  where: string,
  params: string[],
  after: string,
  limit = PAGE,
): Promise<Array<{ id: string; value: string }>> {
  const { table, idColumn, column: name } = column;
  return db.all(
    `SELECT ${idColumn} AS id, ${name} AS value FROM ${table}
     WHERE ${name} IS NOT NULL AND ${where} AND ${idColumn} > ? ORDER BY ${idColumn} LIMIT ?`,
    [...params, after, limit],
  );
}
