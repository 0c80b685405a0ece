/**
 * Relay's object identification: `Query.node`, `Query.nodes` and the `Node` interface. The REST ids
 * are the global ids, since their prefix names the type. Each object is read through the loaders
 * (one statement per type and batch, or the type's service), scoped to the caller's account, so
 * another account's id is null like an id of nothing; each needs the scope REST's read of its type
 * needs, checked before anything is read.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { QueryResolvers, Resolvers, ResolversInterfaceTypes, ResolversTypes } from '../../generated/graphql.js';
import { ApiError } from '../domain/errors.js';
import { ID_PREFIX } from '../domain/ids.js';
import { assertGranted, type Scope } from '../operations/scopes.js';
import type { GraphQLContext } from './context.js';
import type { Loaders } from './loaders.js';

type NodeObject = ResolversInterfaceTypes<ResolversTypes>['Node'];
type NodeLoader = keyof Pick<Loaders, 'customer' | 'charge' | 'refund' | 'paymentIntent' | 'setupIntent' | 'event' | 'webhookEndpoint'>;

/** The types a global id may name, by id prefix: the loader that reads one and the scope it needs. */
const NODE_TYPES: Readonly<Record<string, { loader: NodeLoader; scope: Scope }>> = {
  [ID_PREFIX.customer]: { loader: 'customer', scope: 'customers:read' },
  [ID_PREFIX.charge]: { loader: 'charge', scope: 'charges:read' },
  [ID_PREFIX.refund]: { loader: 'refund', scope: 'refunds:read' },
  [ID_PREFIX.paymentIntent]: { loader: 'paymentIntent', scope: 'payment_intents:read' },
  [ID_PREFIX.setupIntent]: { loader: 'setupIntent', scope: 'setup_intents:read' },
  [ID_PREFIX.event]: { loader: 'event', scope: 'events:read' },
  [ID_PREFIX.webhookEndpoint]: { loader: 'webhookEndpoint', scope: 'webhooks:read' },
};

/** The GraphQL type of each REST resource's `object`. */
const TYPE_OF_OBJECT = {
  customer: 'Customer',
  charge: 'Charge',
  refund: 'Refund',
  payment_intent: 'PaymentIntent',
  setup_intent: 'SetupIntent',
  event: 'Event',
  webhook_endpoint: 'WebhookEndpoint',
} as const;

/** The most ids `nodes` takes, as a connection's largest page. */
const MAX_NODE_IDS = 100;

/** The object a global id names, or null; throws `insufficient_scope` when its type needs a scope the caller lacks. */
async function loadNode(ctx: GraphQLContext, id: string): Promise<NodeObject | null> {
  const separator = id.indexOf('_');
  const type = separator > 0 ? NODE_TYPES[id.slice(0, separator)] : undefined;
  if (!type) return null;
  assertGranted(ctx.request.grant, type.scope);
  return ctx.loaders[type.loader].load(id);
}

export const nodeQueries = {
  node: (_, { id }, ctx) => loadNode(ctx, id),
  nodes: (_, { ids }, ctx) => {
    if (ids.length > MAX_NODE_IDS) {
      throw new ApiError('parameter_invalid', `Invalid ids: at most ${MAX_NODE_IDS}.`, { param: 'ids' });
    }
    // One promise per item, not one for the list: graphql-js completes each item on its own, so a
    // refused or failed object is null with its error at its own index, and the others still resolve.
    return ids.map((id) => loadNode(ctx, id)) as unknown as NodeObject[];
  },
} satisfies QueryResolvers;

export const nodeTypes = {
  Node: {
    __resolveType: (object: NodeObject, _ctx: GraphQLContext, _info: GraphQLResolveInfo) => TYPE_OF_OBJECT[object.object],
  },
} satisfies Resolvers;
