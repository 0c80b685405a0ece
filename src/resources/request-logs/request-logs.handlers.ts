import { ok, type Handlers } from '../../operations/operations.js';
import * as requestLogs from './request-logs.service.js';

export const requestLogHandlers = {
  listRequestLogs: async ({ query, ctx }) => ok(await requestLogs.listRequestLogs(ctx, query)),
} satisfies Pick<Handlers, 'listRequestLogs'>;
