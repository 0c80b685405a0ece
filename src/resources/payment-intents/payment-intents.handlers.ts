import { ok, type Handlers, type RequestContext } from '../../operations/operations.js';
import { declineBody, type PaymentOutcome } from '../payments/payment-attempts.js';
import { withClientSecret, type PaymentIntent } from '../payments/payment-intents.mapper.js';
import { paymentIntentExpandableFields } from '../payments/payments.expansion.js';
import { listExpansion, objectExpansion, type ObjectExpansion } from '../shared/expansion.js';
import * as intents from './payment-intents.service.js';

// `expand` is checked before the service runs, so a path that cannot be expanded changes nothing.
const expandIntent = (paths?: string[]) => objectExpansion(paymentIntentExpandableFields, paths);

/** An intent as an API call answers it: with its client secret, and expanded as asked. */
const answer = async (ctx: RequestContext, expand: ObjectExpansion, intent: PaymentIntent) => expand(ctx, withClientSecret(ctx.secrets, intent));

/** A payment attempt's answer: the intent, or 402 for a decline (a committed outcome, replayed as such). */
async function paymentAnswer(ctx: RequestContext, expand: ObjectExpansion, outcome: PaymentOutcome) {
  if (!outcome.decline) return ok(await answer(ctx, expand, outcome.intent));
  return { status: 402 as const, body: { error: declineBody({ intent: outcome.intent, decline: outcome.decline }, ctx.requestId) } };
}

export const paymentIntentHandlers = {
  listPaymentIntents: async ({ query, ctx }) => {
    const expand = listExpansion(paymentIntentExpandableFields, query.expand);
    const page = await intents.listPaymentIntents(ctx, query);
    return ok(await expand(ctx, { ...page, data: page.data.map((intent) => withClientSecret(ctx.secrets, intent)) }));
  },
  createPaymentIntent: async ({ body, ctx }) => {
    const expand = expandIntent(body.expand);
    return paymentAnswer(ctx, expand, await intents.createPaymentIntent(ctx, body));
  },
  retrievePaymentIntent: async ({ path, query, ctx }) => {
    const expand = expandIntent(query.expand);
    return ok(await answer(ctx, expand, await intents.retrievePaymentIntent(ctx, path.id, query)));
  },
  updatePaymentIntent: async ({ path, body, ctx }) => {
    const expand = expandIntent(body.expand);
    return ok(await answer(ctx, expand, await intents.updatePaymentIntent(ctx, path.id, body)));
  },
  updatePaymentIntentByPost: async ({ path, body, ctx }) => {
    const expand = expandIntent(body.expand);
    return ok(await answer(ctx, expand, await intents.updatePaymentIntent(ctx, path.id, body)));
  },
  confirmPaymentIntent: async ({ path, body, ctx }) => {
    const expand = expandIntent(body.expand);
    return paymentAnswer(ctx, expand, await intents.confirmPaymentIntent(ctx, path.id, body));
  },
  capturePaymentIntent: async ({ path, body, ctx }) => {
    const expand = expandIntent(body.expand);
    return ok(await answer(ctx, expand, await intents.capturePaymentIntent(ctx, path.id, body)));
  },
  cancelPaymentIntent: async ({ path, body, ctx }) => {
    const expand = expandIntent(body.expand);
    return ok(await answer(ctx, expand, await intents.cancelPaymentIntent(ctx, path.id, body)));
  },
  authenticatePaymentIntent: async ({ path, body, ctx }) => {
    const expand = expandIntent(body.expand);
    return ok(await answer(ctx, expand, await intents.authenticatePaymentIntent(ctx, path.id, body)));
  },
} satisfies Pick<
  Handlers,
  | 'listPaymentIntents'
  | 'createPaymentIntent'
  | 'retrievePaymentIntent'
  | 'updatePaymentIntent'
  | 'updatePaymentIntentByPost'
  | 'confirmPaymentIntent'
  | 'capturePaymentIntent'
  | 'cancelPaymentIntent'
  | 'authenticatePaymentIntent'
>;
