/**
 * The scopes of GraphQL reads. Mutations run the REST operations, whose scopes the spec declares
 * and `runOperation` checks; every other field that reads a resource, at the root or nested, needs
 * the scope REST's read of that resource needs, checked by `assertGranted` before it resolves.
 *
 * Guarantees: a field without its scope resolves to null with an `insufficient_scope` error at its
 * path, and the other fields of the document still resolve (partial data); `Subscription.events`
 * is refused at subscribe time, before any event is read. A contract test holds every field of the
 * schema that returns a resource or a connection to an entry of `FIELD_SCOPES`.
 */
import { defaultFieldResolver, type GraphQLResolveInfo } from 'graphql';
import type { Resolvers } from '../../generated/graphql.js';
import { assertGranted, type Scope } from '../operations/scopes.js';
import type { GraphQLContext } from './context.js';

/**
 * The scope each resource-reading field needs, by schema coordinate (`Type.field`). `null`: the
 * field reads nothing beyond what its parent already returned, so it needs no scope of its own.
 */
export const FIELD_SCOPES: Readonly<Record<string, Scope | null>> = {
  'Query.customer': 'customers:read',
  'Query.charge': 'charges:read',
  'Query.charges': 'charges:read',
  'Query.refund': 'refunds:read',
  'Query.event': 'events:read',
  'Query.paymentIntent': 'payment_intents:read',
  'Query.paymentIntents': 'payment_intents:read',
  'Query.setupIntent': 'setup_intents:read',
  'Query.setupIntents': 'setup_intents:read',
  // Any type: the scope of the type an id names, checked in node-resolvers.ts before it is read.
  'Query.node': null,
  'Query.nodes': null,
  'Subscription.events': 'events:read',
  'Customer.charges': 'charges:read',
  'Charge.customer': 'customers:read',
  'Charge.refunds': 'refunds:read',
  'Charge.paymentIntent': 'payment_intents:read',
  'Refund.charge': 'charges:read',
  'Refund.paymentIntent': 'payment_intents:read',
  'Refund.customer': 'customers:read',
  'PaymentIntent.customer': 'customers:read',
  'PaymentIntent.latestCharge': 'charges:read',
  'SetupIntent.customer': 'customers:read',
  // The failed charge a decline recorded: a charge like any other.
  'PaymentError.charge': 'charges:read',
  // An edge of a page its connection's field (charges:read, payment_intents:read) has already read.
  'ChargeEdge.node': null,
  'PaymentIntentEdge.node': null,
  'SetupIntentEdge.node': null,
  // The endpoint createWebhookEndpoint made: that mutation's own result, as REST answers it to webhooks:write.
  'WebhookEndpointWithSecret.endpoint': null,
};

type FieldResolver = (source: unknown, args: unknown, ctx: GraphQLContext, info: GraphQLResolveInfo) => unknown;
type FieldResolvers = Record<string, FieldResolver | { subscribe: FieldResolver; resolve?: FieldResolver } | undefined>;

/**
 * The resolvers with every field of `FIELD_SCOPES` guarded by its scope: a copy, the originals
 * untouched. A field without a resolver of its own gets GraphQL's default one, guarded.
 */
export function withFieldScopes(resolvers: Resolvers): Resolvers {
  const scoped = { ...resolvers } as Record<string, FieldResolvers>;
  for (const [coordinate, scope] of Object.entries(FIELD_SCOPES)) {
    if (scope === null) continue;
    const [typeName, fieldName] = coordinate.split('.');
    const fields = { ...scoped[typeName] };
    fields[fieldName] = guarded(fields[fieldName], scope);
    scoped[typeName] = fields;
  }
  return scoped as Resolvers;
}

/** A field's resolver (a subscription's `subscribe`) that first checks the caller holds `scope`. */
function guarded(resolver: FieldResolvers[string], scope: Scope): NonNullable<FieldResolvers[string]> {
  const guard =
    (inner: FieldResolver): FieldResolver =>
    (source, args, ctx, info) => {
      assertGranted(ctx.request.grant, scope);
      return inner(source, args, ctx, info);
    };
  if (resolver === undefined) return guard(defaultFieldResolver as FieldResolver);
  if (typeof resolver === 'function') return guard(resolver);
  return { ...resolver, subscribe: guard(resolver.subscribe) };
}
