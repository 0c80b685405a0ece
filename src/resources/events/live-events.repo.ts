import type { Queryable } from '../../db/database.js';
import { inJsonArray } from '../../db/dialect.js';
import type { EventRow } from './events.repo.js';

/** The `seq` of the newest committed event (0 when there is none). */
export async function newestEventSeq(db: Queryable): Promise<number> {
  const row = await db.one<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM events');
  return Number(row?.seq ?? 0);
}

/** The events with these ids, whatever their order (the caller knows the order it wants). */
export function eventsByIds(db: Queryable, ids: readonly string[]): Promise<EventRow[]> {
  return db.all<EventRow>(`SELECT * FROM events WHERE ${inJsonArray(db.dialect, 'id')}`, [JSON.stringify(ids)]);
}

/** The events of these accounts with `after < seq <= upTo`, oldest first. */
export function eventsInSeqRange(
  db: Queryable,
  range: { after: number; upTo: number },
  accountIds: readonly string[],
): Promise<EventRow[]> {
  return db.all<EventRow>(
    `SELECT * FROM events WHERE seq > ? AND seq <= ? AND ${inJsonArray(db.dialect, 'account_id')} ORDER BY seq`,
    [range.after, range.upTo, JSON.stringify(accountIds)],
  );
}
