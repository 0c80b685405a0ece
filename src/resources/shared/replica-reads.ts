/**
 * Reads that tolerate replica lag. With `DATABASE_READ_URL` set, lists and events are read from a
 * streaming replica, which may not have replayed the latest commits yet. Such a read can show a
 * page without the newest objects (what lag means), but must never deny that something exists: a
 * webhook consumer that retrieves the `evt_…` it was just sent, or a client that pages from the
 * id it just created, would get a 404 or a 400 for an object it holds. So a miss on the replica is
 * read again on the primary before it is answered. So is a read the replica could not answer at
 * all (down, restarting, or a query cancelled by the WAL it replays): the primary serves the lists
 * while the replica is away, and the replica reports its failures (src/db/read-replica.ts).
 */
import type { Queryable } from '../../db/database.js';
import { isApiError } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';

/** The cursor parameters whose unknown id `fetchPage` refuses with a 400 naming them. */
const CURSOR_PARAMS: ReadonlySet<string | undefined> = new Set(['starting_after', 'ending_before']);

/**
 * Whether an error says that something was not found: a 404 `resource_missing` (the object, or the
 * parent of a nested list), or a cursor naming no object.
 */
function isMiss(error: unknown): boolean {
  if (!isApiError(error)) return false;
  return error.code === 'resource_missing' || (error.code === 'parameter_invalid' && CURSOR_PARAMS.has(error.details.param));
}

/**
 * Runs `read` on `ctx.readDb` (the replica, when there is one); if it fails because something
 * was not found there, or with anything but a refusal of the request (the replica failed, or did
 * not answer: a 503), runs it again on `ctx.db`, the primary, whose answer or error stands. Without a replica, and inside a write (where
 * both are its transaction), `read` runs once.
 */
export async function readMayLag<T>(ctx: Pick<RequestContext, 'db' | 'readDb'>, read: (db: Queryable) => Promise<T>): Promise<T> {
  if (ctx.readDb === ctx.db) return read(ctx.db);
  try {
    return await read(ctx.readDb);
  } catch (error) {
    if (isApiError(error) && error.status < 500 && !isMiss(error)) throw error;
    return read(ctx.db);
  }
}
