import type { Resolvers } from '../../generated/graphql.js';
import type { Event } from '../resources/events/events.mapper.js';
import { listCharges, listChargesOfCustomer, retrieveCharge } from '../resources/charges/charges.service.js';
import { retrieveCustomer } from '../resources/customers/customers.service.js';
import { retrieveEvent } from '../resources/events/events.service.js';
import { retrieveRefund } from '../resources/refunds/refunds.service.js';
import { expandableId } from '../resources/shared/expansion.js';
import { toConnection, toPageParams } from './connections.js';
import { withFieldScopes } from './field-scopes.js';
import { nodeQueries, nodeTypes } from './node-resolvers.js';
import { paymentIntentMutations, paymentIntentQueries, paymentIntentTypes } from './payment-intent-resolvers.js';
import { setupIntentMutations, setupIntentQueries, setupIntentTypes } from './setup-intent-resolvers.js';
import { toGraphQLEnum } from './enums.js';
import { ADDRESS_FIELDS, restBody, SHIPPING_FIELDS, type RestFields } from './rest-bodies.js';
import { metadataScalar, jsonScalar } from './scalars.js';
import { callRestOperation } from './rest-operations.js';

const WEBHOOK_FIELDS: RestFields = {
  renames: { enabledEvents: 'enabled_events', signatureHeaderAliases: 'signature_header_aliases', apiVersion: 'api_version' },
};
const REFUND_FIELDS: RestFields = { renames: { paymentIntent: 'payment_intent' } };
const CHARGE_FIELDS: RestFields = {
  renames: {
    receiptEmail: 'receipt_email',
    statementDescriptor: 'statement_descriptor',
    statementDescriptorSuffix: 'statement_descriptor_suffix',
  },
  objects: { shipping: SHIPPING_FIELDS },
};
const CUSTOMER_FIELDS: RestFields = {
  renames: { preferredLocales: 'preferred_locales', taxExempt: 'tax_exempt' },
  enums: ['tax_exempt'],
  objects: { address: ADDRESS_FIELDS, shipping: SHIPPING_FIELDS },
};

/**
 * The resolvers, typed by codegen against graphql/schema.graphql. Reads call the services the
 * REST handlers call; mutations run the REST operations themselves (see `callRestOperation`);
 * objects are the REST resources, renamed field by field where GraphQL spells them differently.
 * Reads are held to the scopes of `FIELD_SCOPES`, mutations to their REST operations' scopes.
 */
export const resolvers: Resolvers = withFieldScopes({
  Metadata: metadataScalar,
  JSON: jsonScalar,

  Query: {
    customer: (_, { id }, ctx) => retrieveCustomer(ctx.request, id),
    charge: (_, { id }, ctx) => retrieveCharge(ctx.request, id),
    refund: (_, { id }, ctx) => retrieveRefund(ctx.request, id),
    event: (_, { id }, ctx) => retrieveEvent(ctx.request, id),
    charges: async (_, args, ctx) => {
      const params = toPageParams(args);
      const statuses = args.states?.map((state) => (state === 'SUCCEEDED' ? 'succeeded' : 'failed'));
      const page = await listCharges(ctx.request, { ...params, customer: args.customer ?? undefined, statuses });
      return toConnection(page, params);
    },
    ...paymentIntentQueries,
    ...setupIntentQueries,
    ...nodeQueries,
  },

  Mutation: {
    createCustomer: (_, { input, idempotencyKey }, ctx, info) =>
      callRestOperation(ctx, info, 'createCustomer', { body: restBody(input, CUSTOMER_FIELDS), idempotencyKey }),
    updateCustomer: (_, { id, input }, ctx, info) =>
      callRestOperation(ctx, info, 'updateCustomer', { id, body: restBody(input, CUSTOMER_FIELDS) }),
    deleteCustomer: (_, { id }, ctx, info) => callRestOperation(ctx, info, 'deleteCustomer', { id }),
    createCharge: (_, { input, idempotencyKey }, ctx, info) =>
      callRestOperation(ctx, info, 'createCharge', { body: restBody(input, CHARGE_FIELDS), idempotencyKey }),
    updateCharge: (_, { id, input }, ctx, info) =>
      callRestOperation(ctx, info, 'updateCharge', { id, body: restBody(input, CHARGE_FIELDS) }),
    // A null argument is left out: REST then captures all of it, with the charge's own details.
    captureCharge: (_, { id, idempotencyKey, ...args }, ctx, info) =>
      callRestOperation(ctx, info, 'captureCharge', {
        id,
        body: restBody(Object.fromEntries(Object.entries(args).filter(([, value]) => value != null)), CHARGE_FIELDS),
        idempotencyKey,
      }),
    createRefund: (_, { input, idempotencyKey }, ctx, info) =>
      callRestOperation(ctx, info, 'createRefund', { body: restBody(input, REFUND_FIELDS), idempotencyKey }),
    ...paymentIntentMutations,
    ...setupIntentMutations,
    createWebhookEndpoint: async (_, { input, idempotencyKey }, ctx, info) => {
      const endpoint = await callRestOperation(ctx, info, 'createWebhookEndpoint', {
        body: restBody(input, WEBHOOK_FIELDS),
        idempotencyKey,
      });
      return { endpoint, secret: endpoint.secret };
    },
    updateWebhookEndpoint: (_, { id, input }, ctx, info) =>
      callRestOperation(ctx, info, 'updateWebhookEndpoint', { id, body: restBody(input, WEBHOOK_FIELDS) }),
    deleteWebhookEndpoint: (_, { id }, ctx, info) => callRestOperation(ctx, info, 'deleteWebhookEndpoint', { id }),
  },

  Subscription: {
    events: {
      subscribe: (_, { types }, ctx) => ctx.deps.eventStream.subscribe(ctx.request.accountId, types ?? null),
      // Each value the stream yields is the event itself.
      resolve: (event: Event) => event,
    },
  },

  Customer: {
    charges: async (customer, args, ctx) => {
      const params = toPageParams(args);
      // Only a first page (no cursor either way) is batched across the customers of a list.
      const page =
        params.starting_after === undefined && params.ending_before === undefined
          ? await ctx.loaders.firstChargesOfCustomer.load({ customerId: customer.id, limit: params.limit! })
          : await listChargesOfCustomer(ctx.request, customer.id, params);
      return toConnection(page, params);
    },
    preferredLocales: (customer) => customer.preferred_locales,
    taxExempt: (customer) => toGraphQLEnum(customer.tax_exempt),
  },

  Address: {
    postalCode: (address) => address.postal_code,
  },

  Shipping: {
    trackingNumber: (shipping) => shipping.tracking_number,
  },

  Card: {
    expMonth: (card) => card.exp_month,
    expYear: (card) => card.exp_year,
    amountAuthorized: (card) => card.amount_authorized,
  },

  ChargeOutcome: {
    networkStatus: (outcome) => outcome.network_status,
    riskLevel: (outcome) => outcome.risk_level,
    sellerMessage: (outcome) => outcome.seller_message,
  },

  BillingDetails: {
    taxId: (details) => details.tax_id,
  },

  Charge: {
    amountCaptured: (charge) => charge.amount_captured,
    amountRefunded: (charge) => charge.amount_refunded,
    // The services answer unexpanded resources; the guard keeps the types honest about REST's `expand`.
    customer: (charge, _, ctx) => (charge.customer ? ctx.loaders.customer.load(expandableId(charge.customer)) : null),
    state: (charge) => (charge.status === 'succeeded' ? 'SUCCEEDED' : 'FAILED'),
    failureCode: (charge) => charge.failure_code,
    failureMessage: (charge) => charge.failure_message,
    card: (charge) => charge.payment_method_details.card,
    billingDetails: (charge) => charge.billing_details,
    refunds: (charge, _, ctx) => ctx.loaders.refundsOfCharge.load(charge.id),
    paymentIntent: (charge, _, ctx) =>
      charge.payment_intent ? ctx.loaders.paymentIntent.load(expandableId(charge.payment_intent)) : null,
    receiptEmail: (charge) => charge.receipt_email,
    receiptNumber: (charge) => charge.receipt_number,
    receiptUrl: (charge) => charge.receipt_url,
    calculatedStatementDescriptor: (charge) => charge.calculated_statement_descriptor,
    statementDescriptor: (charge) => charge.statement_descriptor,
    statementDescriptorSuffix: (charge) => charge.statement_descriptor_suffix,
    paymentMethod: (charge) => charge.payment_method,
  },

  ...paymentIntentTypes,
  ...setupIntentTypes,
  ...nodeTypes,

  Refund: {
    charge: async (refund, _, ctx) => (await ctx.loaders.charge.load(expandableId(refund.charge)))!,
    paymentIntent: (refund, _, ctx) => (refund.payment_intent ? ctx.loaders.paymentIntent.load(refund.payment_intent) : null),
    customer: (refund, _, ctx) => (refund.customer ? ctx.loaders.customer.load(expandableId(refund.customer)) : null),
    paymentMethod: (refund) => (refund.payment_method === null ? null : expandableId(refund.payment_method)),
  },

  Event: {
    apiVersion: (event) => event.api_version,
    pendingWebhooks: (event) => event.pending_webhooks,
    object: (event) => event.data.object,
    request: (event) => ({ id: event.request.id, idempotencyKey: event.request.idempotency_key }),
  },

  WebhookEndpoint: {
    enabledEvents: (endpoint) => endpoint.enabled_events,
    disabled: (endpoint) => endpoint.status === 'disabled',
    signatureHeaderAliases: (endpoint) => endpoint.signature_header_aliases,
    apiVersion: (endpoint) => endpoint.api_version,
  },
});
