import { ok, type Handlers } from '../../operations/operations.js';
import * as accounts from './accounts.service.js';

export const accountHandlers = {
  createAccount: async ({ body, ctx }) => ok(await accounts.createAccount(ctx.db, ctx.clock, body)),
} satisfies Pick<Handlers, 'createAccount'>;
