import type {
  CreateSetupIntentInput,
  MutationResolvers,
  QueryResolvers,
  Resolvers,
} from '../../generated/graphql.js';
import {
  listSetupIntents,
  retrieveSetupIntent,
} from '../resources/setup-intents/setup-intents.service.js';
import { expandableId } from '../resources/shared/expansion.js';
import { toConnection, toPageParams } from './connections.js';
import { toGraphQLEnum, toRestEnum } from './enums.js';
import { restBody, type RestFields } from './rest-bodies.js';
import { callRestOperation } from './rest-operations.js';

/** The fields of the setup intent inputs that REST names or spells differently. */
const SETUP_FIELDS: RestFields = {
  renames: {
    paymentMethod: 'payment_method',
    paymentMethodTypes: 'payment_method_types',
  },
  enums: ['usage'],
};

/** Automatic payment methods, as the payment intent inputs read them too. */
const AUTOMATIC_FIELDS: RestFields = { renames: { allowRedirects: 'allow_redirects' }, enums: ['allow_redirects'] };

/** A setup intent's creation as its REST body: the nested automatic payment methods renamed too. */
function createBody(input: CreateSetupIntentInput | null | undefined): Record<string, unknown> {
  const { automaticPaymentMethods, ...fields } = input ?? {};
  const body = restBody(fields, SETUP_FIELDS);
  if (automaticPaymentMethods !== undefined) {
    body.automatic_payment_methods =
      automaticPaymentMethods && restBody(automaticPaymentMethods, AUTOMATIC_FIELDS);
  }
  return body;
}

/** The reads of setup intents, through the service REST's retrieve and list call. */
export const setupIntentQueries = {
  setupIntent: (_, { id }, ctx) => retrieveSetupIntent(ctx.request, id),
  setupIntents: async (_, args, ctx) => {
    const params = toPageParams(args);
    const filters = {
      customer: args.customer ?? undefined,
      payment_method: args.paymentMethod ?? undefined,
    };
    return toConnection(await listSetupIntents(ctx.request, { ...params, ...filters }), params);
  },
} satisfies QueryResolvers;

/**
 * The changes of setup intents, each the REST operation itself (see `callRestOperation`): a
 * decline is the 402's error (card_declined, with `setupIntent` in its extensions), a refused move
 * keeps its code, setup_intent_unexpected_state.
 */
export const setupIntentMutations = {
  createSetupIntent: (_, { input, idempotencyKey }, ctx, info) =>
    callRestOperation(ctx, info, 'createSetupIntent', { body: createBody(input), idempotencyKey }),
  updateSetupIntent: (_, { id, input }, ctx, info) =>
    callRestOperation(ctx, info, 'updateSetupIntent', { id, body: restBody(input, SETUP_FIELDS) }),
  confirmSetupIntent: (_, { id, input, idempotencyKey }, ctx, info) =>
    callRestOperation(ctx, info, 'confirmSetupIntent', {
      id,
      body: restBody(input ?? {}, SETUP_FIELDS),
      idempotencyKey,
    }),
  cancelSetupIntent: (_, { id, cancellationReason, idempotencyKey }, ctx, info) =>
    callRestOperation(ctx, info, 'cancelSetupIntent', {
      id,
      body:
        cancellationReason == null ? {} : { cancellation_reason: toRestEnum(cancellationReason) },
      idempotencyKey,
    }),
} satisfies MutationResolvers;

/** `SetupIntent`, its `SetupError` and automatic payment methods: the REST resources, renamed field by field. */
export const setupIntentTypes = {
  SetupIntent: {
    automaticPaymentMethods: (intent) => intent.automatic_payment_methods,
    cancellationReason: (intent) =>
      intent.cancellation_reason && toGraphQLEnum(intent.cancellation_reason),
    customer: (intent, _, ctx) =>
      intent.customer ? ctx.loaders.customer.load(expandableId(intent.customer)) : null,
    lastSetupError: (intent) => intent.last_setup_error,
    nextAction: ({ next_action: action }) =>
      action && { type: action.type, url: action.redirect_to_url.url },
    paymentMethod: (intent) => (intent.payment_method ? expandableId(intent.payment_method) : null),
    paymentMethodTypes: (intent) => intent.payment_method_types,
    status: (intent) => toGraphQLEnum(intent.status),
    usage: (intent) => toGraphQLEnum(intent.usage),
  },
  SetupError: {
    declineCode: (error) => error.decline_code ?? null,
    paymentMethod: (error) => error.payment_method?.id ?? null,
  },
} satisfies Resolvers;
