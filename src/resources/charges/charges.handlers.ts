import { ApiError } from '../../domain/errors.js';
import { ok, type Handlers } from '../../http/operations.js';
import * as charges from './charges.service.js';

export const chargeHandlers = {
  listCharges: async ({ query, ctx }) => ok(await charges.listCharges(ctx, query)),
  createCharge: async ({ body, ctx }) => {
    const { charge, decline } = await charges.createCharge(ctx, body);
    if (!decline) return ok(charge);
    // A decline is a committed outcome, answered (and replayed) as 402 with the failed charge's id.
    const error = new ApiError('card_declined', decline.message, { declineCode: decline.code, charge: charge.id });
    return { status: 402, body: { error: error.toBody(ctx.requestId) } };
  },
  retrieveCharge: async ({ path, ctx }) => ok(await charges.retrieveCharge(ctx, path.id)),
  updateCharge: async ({ path, body, ctx }) => ok(await charges.updateCharge(ctx, path.id, body)),
  updateChargeByPost: async ({ path, body, ctx }) => ok(await charges.updateCharge(ctx, path.id, body)),
} satisfies Pick<Handlers, 'listCharges' | 'createCharge' | 'retrieveCharge' | 'updateCharge' | 'updateChargeByPost'>;
