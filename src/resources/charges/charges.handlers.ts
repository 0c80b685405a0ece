import { ok, type Handlers } from '../../operations/operations.js';
import { listExpansion, objectExpansion } from '../shared/expansion.js';
import { declineBody } from '../payments/payment-attempts.js';
import { chargeExpandableFields } from '../payments/payments.expansion.js';
import * as charges from './charges.service.js';

// `expand` is checked before the service runs, so a path that cannot be expanded changes nothing.
const expandCharge = (paths?: string[]) => objectExpansion(chargeExpandableFields, paths);

export const chargeHandlers = {
  listCharges: async ({ query, ctx }) => {
    const expand = listExpansion(chargeExpandableFields, query.expand);
    return ok(await expand(ctx, await charges.listCharges(ctx, query)));
  },
  createCharge: async ({ body, ctx }) => {
    const expand = expandCharge(body.expand);
    const { charge, intent, decline } = await charges.createCharge(ctx, body);
    if (!decline) return ok(await expand(ctx, charge));
    // A decline is a committed outcome, answered (and replayed) as 402, as confirming an intent answers.
    return { status: 402, body: { error: declineBody({ intent, decline }, ctx.requestId) } };
  },
  retrieveCharge: async ({ path, query, ctx }) => {
    const expand = expandCharge(query.expand);
    return ok(await expand(ctx, await charges.retrieveCharge(ctx, path.id)));
  },
  updateCharge: async ({ path, body, ctx }) => {
    const expand = expandCharge(body.expand);
    return ok(await expand(ctx, await charges.updateCharge(ctx, path.id, body)));
  },
  updateChargeByPost: async ({ path, body, ctx }) => {
    const expand = expandCharge(body.expand);
    return ok(await expand(ctx, await charges.updateCharge(ctx, path.id, body)));
  },
  captureCharge: async ({ path, body, ctx }) => {
    const expand = expandCharge(body.expand);
    return ok(await expand(ctx, await charges.captureCharge(ctx, path.id, body)));
  },
  listCustomerCharges: async ({ path, query, ctx }) => {
    const expand = listExpansion(chargeExpandableFields, query.expand);
    return ok(await expand(ctx, await charges.listChargesOfCustomer(ctx, path.id, query)));
  },
} satisfies Pick<
  Handlers,
  'listCharges' | 'createCharge' | 'retrieveCharge' | 'updateCharge' | 'updateChargeByPost' | 'captureCharge' | 'listCustomerCharges'
>;
