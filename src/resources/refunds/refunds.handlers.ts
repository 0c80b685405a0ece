import { ok, type Handlers } from '../../operations/operations.js';
import { listExpansion, objectExpansion } from '../shared/expansion.js';
import { refundExpandableFields } from './refunds.expansion.js';
import * as refunds from './refunds.service.js';

// `expand` is checked before the service runs, so a path that cannot be expanded changes nothing.
export const refundHandlers = {
  listRefunds: async ({ query, ctx }) => {
    const expand = listExpansion(refundExpandableFields, query.expand);
    return ok(await expand(ctx, await refunds.listRefunds(ctx, query)));
  },
  createRefund: async ({ body, ctx }) => {
    const expand = objectExpansion(refundExpandableFields, body.expand);
    return ok(await expand(ctx, await refunds.createRefund(ctx, body)));
  },
  retrieveRefund: async ({ path, query, ctx }) => {
    const expand = objectExpansion(refundExpandableFields, query.expand);
    return ok(await expand(ctx, await refunds.retrieveRefund(ctx, path.id)));
  },
  updateRefund: async ({ path, body, ctx }) => {
    const expand = objectExpansion(refundExpandableFields, body.expand);
    return ok(await expand(ctx, await refunds.updateRefund(ctx, path.id, body)));
  },
  updateRefundByPost: async ({ path, body, ctx }) => {
    const expand = objectExpansion(refundExpandableFields, body?.expand);
    return ok(await expand(ctx, await refunds.updateRefund(ctx, path.id, body ?? {})));
  },
  listChargeRefunds: async ({ path, query, ctx }) => {
    const expand = listExpansion(refundExpandableFields, query.expand);
    return ok(await expand(ctx, await refunds.listRefundsOfCharge(ctx, path.id, query)));
  },
} satisfies Pick<
  Handlers,
  'listRefunds' | 'createRefund' | 'retrieveRefund' | 'updateRefund' | 'updateRefundByPost' | 'listChargeRefunds'
>;
