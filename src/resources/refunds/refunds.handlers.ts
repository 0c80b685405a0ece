import { ok, type Handlers } from '../../http/operations.js';
import * as refunds from './refunds.service.js';

export const refundHandlers = {
  listRefunds: async ({ query, ctx }) => ok(await refunds.listRefunds(ctx, query)),
  createRefund: async ({ body, ctx }) => ok(await refunds.createRefund(ctx, body)),
  retrieveRefund: async ({ path, ctx }) => ok(await refunds.retrieveRefund(ctx, path.id)),
} satisfies Pick<Handlers, 'listRefunds' | 'createRefund' | 'retrieveRefund'>;
