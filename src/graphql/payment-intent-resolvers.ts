import type { MutationResolvers, QueryResolvers, Resolvers } from '../../generated/graphql.js';
import { listPaymentIntents, retrievePaymentIntent } from '../resources/payment-intents/payment-intents.service.js';
import { expandableId } from '../resources/shared/expansion.js';
import { toConnection, toPageParams } from './connections.js';
import { toGraphQLEnum, toRestEnum } from './enums.js';
import { restBody, SHIPPING_FIELDS, type RestFields } from './rest-bodies.js';
import { callRestOperation } from './rest-operations.js';

/** The fields of the intent inputs that REST names or spells differently. */
const INTENT_FIELDS: RestFields = {
  renames: {
    paymentMethod: 'payment_method',
    captureMethod: 'capture_method',
    receiptEmail: 'receipt_email',
    amountToCapture: 'amount_to_capture',
    offSession: 'off_session',
    setupFutureUsage: 'setup_future_usage',
    automaticPaymentMethods: 'automatic_payment_methods',
    confirmationMethod: 'confirmation_method',
    errorOnRequiresAction: 'error_on_requires_action',
    paymentMethodTypes: 'payment_method_types',
    statementDescriptor: 'statement_descriptor',
    statementDescriptorSuffix: 'statement_descriptor_suffix',
  },
  enums: ['capture_method', 'setup_future_usage', 'confirmation_method'],
  objects: {
    shipping: SHIPPING_FIELDS,
    automatic_payment_methods: { renames: { allowRedirects: 'allow_redirects' }, enums: ['allow_redirects'] },
  },
};

/**
 * The reads of payment intents, through the service REST's retrieve and list call. A list of
 * `statuses` is the intents in any of them, as `charges(states)` is.
 */
export const paymentIntentQueries = {
  paymentIntent: (_, { id }, ctx) => retrievePaymentIntent(ctx.request, id),
  paymentIntents: async (_, args, ctx) => {
    const params = toPageParams(args);
    const statuses = args.statuses?.map(toRestEnum);
    const page = await listPaymentIntents(ctx.request, { ...params, customer: args.customer ?? undefined, statuses });
    return toConnection(page, params);
  },
} satisfies QueryResolvers;

/**
 * The changes of payment intents, each the REST operation itself (see `callRestOperation`): a
 * decline is the 402's error (card_declined, with `charge` and `paymentIntent` in its extensions),
 * a refused move keeps its code, payment_intent_unexpected_state. An optional argument left null
 * is left out, so that REST applies its default.
 */
export const paymentIntentMutations = {
  createPaymentIntent: (_, { input, idempotencyKey }, ctx, info) =>
    callRestOperation(ctx, info, 'createPaymentIntent', { body: restBody(input, INTENT_FIELDS), idempotencyKey }),
  updatePaymentIntent: (_, { id, input }, ctx, info) =>
    callRestOperation(ctx, info, 'updatePaymentIntent', { id, body: restBody(input, INTENT_FIELDS) }),
  confirmPaymentIntent: (_, { id, input, idempotencyKey }, ctx, info) =>
    callRestOperation(ctx, info, 'confirmPaymentIntent', { id, body: restBody(input ?? {}, INTENT_FIELDS), idempotencyKey }),
  capturePaymentIntent: (_, { id, idempotencyKey, ...args }, ctx, info) =>
    callRestOperation(ctx, info, 'capturePaymentIntent', {
      id,
      // A null argument is left out, so that REST applies its default (capture all of it).
      body: restBody(Object.fromEntries(Object.entries(args).filter(([, value]) => value != null)), INTENT_FIELDS),
      idempotencyKey,
    }),
  cancelPaymentIntent: (_, { id, cancellationReason, idempotencyKey }, ctx, info) =>
    callRestOperation(ctx, info, 'cancelPaymentIntent', {
      id,
      body: cancellationReason == null ? {} : { cancellation_reason: toRestEnum(cancellationReason) },
      idempotencyKey,
    }),
} satisfies MutationResolvers;

/**
 * `PaymentIntent` and its `PaymentError`: the REST resources, renamed field by field; the intent's
 * customer and latest charge, and an error's charge, through the loaders (one statement a page).
 */
export const paymentIntentTypes = {
  PaymentIntent: {
    amountCapturable: (intent) => intent.amount_capturable,
    amountReceived: (intent) => intent.amount_received,
    canceledAt: (intent) => intent.canceled_at,
    cancellationReason: (intent) => intent.cancellation_reason && toGraphQLEnum(intent.cancellation_reason),
    captureMethod: (intent) => toGraphQLEnum(intent.capture_method),
    customer: (intent, _, ctx) => (intent.customer ? ctx.loaders.customer.load(expandableId(intent.customer)) : null),
    lastPaymentError: (intent) => intent.last_payment_error,
    latestCharge: (intent, _, ctx) =>
      intent.latest_charge ? ctx.loaders.charge.load(expandableId(intent.latest_charge)) : null,
    nextAction: ({ next_action: action }) =>
      action && { type: action.type, url: action.type === 'authenticate' ? action.authenticate.url : action.redirect_to_url.url },
    paymentMethod: (intent) => (intent.payment_method ? expandableId(intent.payment_method) : null),
    setupFutureUsage: (intent) => intent.setup_future_usage && toGraphQLEnum(intent.setup_future_usage),
    status: (intent) => toGraphQLEnum(intent.status),
    receiptEmail: (intent) => intent.receipt_email,
    automaticPaymentMethods: (intent) => intent.automatic_payment_methods,
    confirmationMethod: (intent) => toGraphQLEnum(intent.confirmation_method),
    paymentMethodTypes: (intent) => intent.payment_method_types,
    statementDescriptor: (intent) => intent.statement_descriptor,
    statementDescriptorSuffix: (intent) => intent.statement_descriptor_suffix,
  },
  AutomaticPaymentMethods: {
    allowRedirects: (automatic) => (automatic.allow_redirects ? toGraphQLEnum(automatic.allow_redirects) : null),
  },
  PaymentError: {
    declineCode: (error) => error.decline_code ?? null,
    charge: (error, _, ctx) => (error.charge ? ctx.loaders.charge.load(error.charge) : null),
    paymentMethod: (error) => error.payment_method?.id ?? null,
  },
} satisfies Resolvers;
