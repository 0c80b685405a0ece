import type { RequestContext } from '../../operations/operations.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { toRequestLogResource } from './request-logs.mapper.js';
import { listRequestLogRows } from './request-logs.repo.js';

/** A page of the account's request log, newest first (cursors and `created` as every list). */
export async function listRequestLogs(ctx: RequestContext, query: PageParams) {
  return listOf('/v1/request_logs', await readMayLag(ctx, (db) => listRequestLogRows(db, ctx.accountId, query)), toRequestLogResource);
}
