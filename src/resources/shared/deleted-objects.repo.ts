import type { Queryable } from '../../db/database.js';

/**
 * A tombstone: what is kept of a deleted object (table `deleted_objects`), so that retrieving it
 * still answers `{"id", "object", "deleted": true}` to the account that owned it, and 404 to others.
 */
export interface DeletedObjectRow {
  id: string;
  account_id: string;
  /** The resource's `object` name (`customer`). */
  object: string;
  /** Unix seconds of the deletion. */
  deleted: number;
}

/** Records a deletion; call it on the connection (so in the transaction) that deletes the object. */
export async function insertDeletedObject(db: Queryable, row: DeletedObjectRow): Promise<void> {
  await db.run('INSERT INTO deleted_objects (id, account_id, object, deleted) VALUES (?, ?, ?, ?)', [
    row.id,
    row.account_id,
    row.object,
    row.deleted,
  ]);
}

/** The account's tombstone of an object of this kind, or undefined (never deleted, or another account's). */
export function findDeletedObject(
  db: Queryable,
  accountId: string,
  object: string,
  id: string,
): Promise<DeletedObjectRow | undefined> {
  return db.one<DeletedObjectRow>('SELECT * FROM deleted_objects WHERE id = ? AND account_id = ? AND object = ?', [
    id,
    accountId,
    object,
  ]);
}
