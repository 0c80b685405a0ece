import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { Customer as CustomerResource } from '../src/resources/customers/customers.mapper.js';
import type { Charge as ChargeResource } from '../src/resources/charges/charges.mapper.js';
import type { Refund as RefundResource } from '../src/resources/refunds/refunds.mapper.js';
import type { Event as EventResource } from '../src/resources/events/events.mapper.js';
import type { WebhookEndpoint as WebhookEndpointResource } from '../src/resources/webhook-endpoints/webhook-endpoints.mapper.js';
import type { GraphQLContext } from '../src/graphql/context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string };
  String: { input: string; output: string };
  Boolean: { input: boolean; output: boolean };
  Int: { input: number; output: number };
  Float: { input: number; output: number };
  /** Any JSON value (an event's object). */
  JSON: { input: unknown; output: unknown };
  /** A string→string map, as `metadata` is in REST. */
  Metadata: { input: Record<string, string>; output: Record<string, string> };
};

export type Card = {
  __typename?: 'Card';
  brand: Scalars['String']['output'];
  last4: Scalars['String']['output'];
};

export type Charge = Node & {
  __typename?: 'Charge';
  amount: Scalars['Int']['output'];
  amountRefunded: Scalars['Int']['output'];
  card: Card;
  created: Scalars['Int']['output'];
  currency: Scalars['String']['output'];
  customer?: Maybe<Customer>;
  description?: Maybe<Scalars['String']['output']>;
  failureCode?: Maybe<Scalars['String']['output']>;
  failureMessage?: Maybe<Scalars['String']['output']>;
  id: Scalars['ID']['output'];
  metadata: Scalars['Metadata']['output'];
  paid: Scalars['Boolean']['output'];
  refunded: Scalars['Boolean']['output'];
  refunds: Array<Refund>;
  state: ChargeState;
};

export type ChargeConnection = {
  __typename?: 'ChargeConnection';
  edges: Array<ChargeEdge>;
  pageInfo: PageInfo;
};

export type ChargeEdge = {
  __typename?: 'ChargeEdge';
  cursor: Scalars['String']['output'];
  node: Charge;
};

export type ChargeState = 'FAILED' | 'SUCCEEDED';

export type CreateChargeInput = {
  amount: Scalars['Int']['input'];
  currency: Scalars['String']['input'];
  customer?: InputMaybe<Scalars['ID']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
  metadata?: InputMaybe<Scalars['Metadata']['input']>;
  source: Scalars['String']['input'];
};

export type CreateRefundInput = {
  amount?: InputMaybe<Scalars['Int']['input']>;
  charge: Scalars['ID']['input'];
  metadata?: InputMaybe<Scalars['Metadata']['input']>;
  reason?: InputMaybe<Scalars['String']['input']>;
};

export type Customer = Node & {
  __typename?: 'Customer';
  charges: ChargeConnection;
  created: Scalars['Int']['output'];
  description?: Maybe<Scalars['String']['output']>;
  email?: Maybe<Scalars['String']['output']>;
  id: Scalars['ID']['output'];
  metadata: Scalars['Metadata']['output'];
  name?: Maybe<Scalars['String']['output']>;
  phone?: Maybe<Scalars['String']['output']>;
};

export type CustomerChargesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

export type CustomerInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  email?: InputMaybe<Scalars['String']['input']>;
  metadata?: InputMaybe<Scalars['Metadata']['input']>;
  name?: InputMaybe<Scalars['String']['input']>;
  phone?: InputMaybe<Scalars['String']['input']>;
};

export type DeletedObject = {
  __typename?: 'DeletedObject';
  deleted: Scalars['Boolean']['output'];
  id: Scalars['ID']['output'];
};

export type Event = Node & {
  __typename?: 'Event';
  apiVersion: Scalars['String']['output'];
  created: Scalars['Int']['output'];
  id: Scalars['ID']['output'];
  object: Scalars['JSON']['output'];
  pendingWebhooks: Scalars['Int']['output'];
  type: Scalars['String']['output'];
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type Mutation = {
  __typename?: 'Mutation';
  /** A declined card is an error with code card_declined and the failed charge's id in `extensions.charge`; the failed charge is recorded. */
  createCharge?: Maybe<Charge>;
  createCustomer?: Maybe<Customer>;
  createRefund?: Maybe<Refund>;
  createWebhookEndpoint?: Maybe<WebhookEndpointWithSecret>;
  deleteCustomer?: Maybe<DeletedObject>;
  deleteWebhookEndpoint?: Maybe<DeletedObject>;
  updateCharge?: Maybe<Charge>;
  updateCustomer?: Maybe<Customer>;
  updateWebhookEndpoint?: Maybe<WebhookEndpoint>;
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationCreateChargeArgs = {
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  input: CreateChargeInput;
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationCreateCustomerArgs = {
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  input: CustomerInput;
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationCreateRefundArgs = {
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  input: CreateRefundInput;
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationCreateWebhookEndpointArgs = {
  idempotencyKey?: InputMaybe<Scalars['String']['input']>;
  input: WebhookEndpointInput;
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationDeleteCustomerArgs = {
  id: Scalars['ID']['input'];
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationDeleteWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationUpdateChargeArgs = {
  id: Scalars['ID']['input'];
  input: UpdateChargeInput;
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationUpdateCustomerArgs = {
  id: Scalars['ID']['input'];
  input: CustomerInput;
};

/**
 * Mutations run in order. Each returns null with an error when it fails, so that the others in the
 * same document keep their results (partial data). Errors carry the REST error code in
 * `extensions.code`. A POST's `Idempotency-Key` header applies to a document with one mutation;
 * `idempotencyKey` arguments name a key per mutation.
 */
export type MutationUpdateWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
  input: WebhookEndpointUpdateInput;
};

export type Node = {
  id: Scalars['ID']['output'];
};

export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor?: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
  hasPreviousPage: Scalars['Boolean']['output'];
  startCursor?: Maybe<Scalars['String']['output']>;
};

export type Query = {
  __typename?: 'Query';
  charge?: Maybe<Charge>;
  /** Charges, newest first. `first` is at most 100. */
  charges: ChargeConnection;
  customer?: Maybe<Customer>;
  event?: Maybe<Event>;
  refund?: Maybe<Refund>;
};

export type QueryChargeArgs = {
  id: Scalars['ID']['input'];
};

export type QueryChargesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  customer?: InputMaybe<Scalars['ID']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  states?: InputMaybe<Array<ChargeState>>;
};

export type QueryCustomerArgs = {
  id: Scalars['ID']['input'];
};

export type QueryEventArgs = {
  id: Scalars['ID']['input'];
};

export type QueryRefundArgs = {
  id: Scalars['ID']['input'];
};

export type Refund = Node & {
  __typename?: 'Refund';
  amount: Scalars['Int']['output'];
  charge: Charge;
  created: Scalars['Int']['output'];
  currency: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  metadata: Scalars['Metadata']['output'];
  reason?: Maybe<Scalars['String']['output']>;
};

export type Subscription = {
  __typename?: 'Subscription';
  /** The account's events as they are committed, optionally only of these types. */
  events: Event;
};

export type SubscriptionEventsArgs = {
  types?: InputMaybe<Array<Scalars['String']['input']>>;
};

export type UpdateChargeInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  metadata?: InputMaybe<Scalars['Metadata']['input']>;
};

export type WebhookEndpoint = Node & {
  __typename?: 'WebhookEndpoint';
  created: Scalars['Int']['output'];
  description?: Maybe<Scalars['String']['output']>;
  disabled: Scalars['Boolean']['output'];
  enabledEvents: Array<Scalars['String']['output']>;
  id: Scalars['ID']['output'];
  metadata: Scalars['Metadata']['output'];
  url: Scalars['String']['output'];
};

export type WebhookEndpointInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  enabledEvents: Array<Scalars['String']['input']>;
  metadata?: InputMaybe<Scalars['Metadata']['input']>;
  url: Scalars['String']['input'];
};

export type WebhookEndpointUpdateInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  disabled?: InputMaybe<Scalars['Boolean']['input']>;
  enabledEvents?: InputMaybe<Array<Scalars['String']['input']>>;
  metadata?: InputMaybe<Scalars['Metadata']['input']>;
  url?: InputMaybe<Scalars['String']['input']>;
};

/** Returned by createWebhookEndpoint only: the signing secret is shown once. */
export type WebhookEndpointWithSecret = {
  __typename?: 'WebhookEndpointWithSecret';
  endpoint: WebhookEndpoint;
  secret: Scalars['String']['output'];
};

export type ResolverTypeWrapper<T> = Promise<T> | T;

export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<
  TResult,
  TParent = Record<PropertyKey, never>,
  TContext = Record<PropertyKey, never>,
  TArgs = Record<PropertyKey, never>,
> =
  | ResolverFn<TResult, TParent, TContext, TArgs>
  | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo,
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo,
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo,
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<
  TResult,
  TKey extends string,
  TParent,
  TContext,
  TArgs,
> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<
  TResult,
  TKey extends string,
  TParent = Record<PropertyKey, never>,
  TContext = Record<PropertyKey, never>,
  TArgs = Record<PropertyKey, never>,
> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<
  TTypes,
  TParent = Record<PropertyKey, never>,
  TContext = Record<PropertyKey, never>,
> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo,
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<
  T = Record<PropertyKey, never>,
  TContext = Record<PropertyKey, never>,
> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<
  TResult = Record<PropertyKey, never>,
  TParent = Record<PropertyKey, never>,
  TContext = Record<PropertyKey, never>,
  TArgs = Record<PropertyKey, never>,
> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo,
) => TResult | Promise<TResult>;

/** Mapping of interface types */
export type ResolversInterfaceTypes<_RefType extends Record<string, unknown>> = {
  Node:
    ChargeResource | CustomerResource | EventResource | RefundResource | WebhookEndpointResource;
};

/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Card: ResolverTypeWrapper<Card>;
  Charge: ResolverTypeWrapper<ChargeResource>;
  ChargeConnection: ResolverTypeWrapper<
    Omit<ChargeConnection, 'edges'> & { edges: Array<ResolversTypes['ChargeEdge']> }
  >;
  ChargeEdge: ResolverTypeWrapper<Omit<ChargeEdge, 'node'> & { node: ResolversTypes['Charge'] }>;
  ChargeState: ChargeState;
  CreateChargeInput: CreateChargeInput;
  CreateRefundInput: CreateRefundInput;
  Customer: ResolverTypeWrapper<CustomerResource>;
  CustomerInput: CustomerInput;
  DeletedObject: ResolverTypeWrapper<DeletedObject>;
  Event: ResolverTypeWrapper<EventResource>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  JSON: ResolverTypeWrapper<Scalars['JSON']['output']>;
  Metadata: ResolverTypeWrapper<Scalars['Metadata']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Node: ResolverTypeWrapper<ResolversInterfaceTypes<ResolversTypes>['Node']>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Refund: ResolverTypeWrapper<RefundResource>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  UpdateChargeInput: UpdateChargeInput;
  WebhookEndpoint: ResolverTypeWrapper<WebhookEndpointResource>;
  WebhookEndpointInput: WebhookEndpointInput;
  WebhookEndpointUpdateInput: WebhookEndpointUpdateInput;
  WebhookEndpointWithSecret: ResolverTypeWrapper<
    Omit<WebhookEndpointWithSecret, 'endpoint'> & { endpoint: ResolversTypes['WebhookEndpoint'] }
  >;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Boolean: Scalars['Boolean']['output'];
  Card: Card;
  Charge: ChargeResource;
  ChargeConnection: Omit<ChargeConnection, 'edges'> & {
    edges: Array<ResolversParentTypes['ChargeEdge']>;
  };
  ChargeEdge: Omit<ChargeEdge, 'node'> & { node: ResolversParentTypes['Charge'] };
  CreateChargeInput: CreateChargeInput;
  CreateRefundInput: CreateRefundInput;
  Customer: CustomerResource;
  CustomerInput: CustomerInput;
  DeletedObject: DeletedObject;
  Event: EventResource;
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  JSON: Scalars['JSON']['output'];
  Metadata: Scalars['Metadata']['output'];
  Mutation: Record<PropertyKey, never>;
  Node: ResolversInterfaceTypes<ResolversParentTypes>['Node'];
  PageInfo: PageInfo;
  Query: Record<PropertyKey, never>;
  Refund: RefundResource;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  UpdateChargeInput: UpdateChargeInput;
  WebhookEndpoint: WebhookEndpointResource;
  WebhookEndpointInput: WebhookEndpointInput;
  WebhookEndpointUpdateInput: WebhookEndpointUpdateInput;
  WebhookEndpointWithSecret: Omit<WebhookEndpointWithSecret, 'endpoint'> & {
    endpoint: ResolversParentTypes['WebhookEndpoint'];
  };
};

export type CardResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Card'] = ResolversParentTypes['Card'],
> = {
  brand?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  last4?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ChargeResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Charge'] = ResolversParentTypes['Charge'],
> = {
  amount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  amountRefunded?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  card?: Resolver<ResolversTypes['Card'], ParentType, ContextType>;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  customer?: Resolver<Maybe<ResolversTypes['Customer']>, ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failureCode?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failureMessage?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  metadata?: Resolver<ResolversTypes['Metadata'], ParentType, ContextType>;
  paid?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  refunded?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  refunds?: Resolver<Array<ResolversTypes['Refund']>, ParentType, ContextType>;
  state?: Resolver<ResolversTypes['ChargeState'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type ChargeConnectionResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['ChargeConnection'] =
    ResolversParentTypes['ChargeConnection'],
> = {
  edges?: Resolver<Array<ResolversTypes['ChargeEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type ChargeEdgeResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['ChargeEdge'] = ResolversParentTypes['ChargeEdge'],
> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Charge'], ParentType, ContextType>;
};

export type CustomerResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Customer'] = ResolversParentTypes['Customer'],
> = {
  charges?: Resolver<
    ResolversTypes['ChargeConnection'],
    ParentType,
    ContextType,
    Partial<CustomerChargesArgs>
  >;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  email?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  metadata?: Resolver<ResolversTypes['Metadata'], ParentType, ContextType>;
  name?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  phone?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type DeletedObjectResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['DeletedObject'] = ResolversParentTypes['DeletedObject'],
> = {
  deleted?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
};

export type EventResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Event'] = ResolversParentTypes['Event'],
> = {
  apiVersion?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  object?: Resolver<ResolversTypes['JSON'], ParentType, ContextType>;
  pendingWebhooks?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export interface JsonScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSON'], any> {
  name: 'JSON';
}

export interface MetadataScalarConfig extends GraphQLScalarTypeConfig<
  ResolversTypes['Metadata'],
  any
> {
  name: 'Metadata';
}

export type MutationResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation'],
> = {
  createCharge?: Resolver<
    Maybe<ResolversTypes['Charge']>,
    ParentType,
    ContextType,
    RequireFields<MutationCreateChargeArgs, 'input'>
  >;
  createCustomer?: Resolver<
    Maybe<ResolversTypes['Customer']>,
    ParentType,
    ContextType,
    RequireFields<MutationCreateCustomerArgs, 'input'>
  >;
  createRefund?: Resolver<
    Maybe<ResolversTypes['Refund']>,
    ParentType,
    ContextType,
    RequireFields<MutationCreateRefundArgs, 'input'>
  >;
  createWebhookEndpoint?: Resolver<
    Maybe<ResolversTypes['WebhookEndpointWithSecret']>,
    ParentType,
    ContextType,
    RequireFields<MutationCreateWebhookEndpointArgs, 'input'>
  >;
  deleteCustomer?: Resolver<
    Maybe<ResolversTypes['DeletedObject']>,
    ParentType,
    ContextType,
    RequireFields<MutationDeleteCustomerArgs, 'id'>
  >;
  deleteWebhookEndpoint?: Resolver<
    Maybe<ResolversTypes['DeletedObject']>,
    ParentType,
    ContextType,
    RequireFields<MutationDeleteWebhookEndpointArgs, 'id'>
  >;
  updateCharge?: Resolver<
    Maybe<ResolversTypes['Charge']>,
    ParentType,
    ContextType,
    RequireFields<MutationUpdateChargeArgs, 'id' | 'input'>
  >;
  updateCustomer?: Resolver<
    Maybe<ResolversTypes['Customer']>,
    ParentType,
    ContextType,
    RequireFields<MutationUpdateCustomerArgs, 'id' | 'input'>
  >;
  updateWebhookEndpoint?: Resolver<
    Maybe<ResolversTypes['WebhookEndpoint']>,
    ParentType,
    ContextType,
    RequireFields<MutationUpdateWebhookEndpointArgs, 'id' | 'input'>
  >;
};

export type NodeResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Node'] = ResolversParentTypes['Node'],
> = {
  __resolveType: TypeResolveFn<
    'Charge' | 'Customer' | 'Event' | 'Refund' | 'WebhookEndpoint',
    ParentType,
    ContextType
  >;
};

export type PageInfoResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo'],
> = {
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type QueryResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query'],
> = {
  charge?: Resolver<
    Maybe<ResolversTypes['Charge']>,
    ParentType,
    ContextType,
    RequireFields<QueryChargeArgs, 'id'>
  >;
  charges?: Resolver<
    ResolversTypes['ChargeConnection'],
    ParentType,
    ContextType,
    Partial<QueryChargesArgs>
  >;
  customer?: Resolver<
    Maybe<ResolversTypes['Customer']>,
    ParentType,
    ContextType,
    RequireFields<QueryCustomerArgs, 'id'>
  >;
  event?: Resolver<
    Maybe<ResolversTypes['Event']>,
    ParentType,
    ContextType,
    RequireFields<QueryEventArgs, 'id'>
  >;
  refund?: Resolver<
    Maybe<ResolversTypes['Refund']>,
    ParentType,
    ContextType,
    RequireFields<QueryRefundArgs, 'id'>
  >;
};

export type RefundResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Refund'] = ResolversParentTypes['Refund'],
> = {
  amount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  charge?: Resolver<ResolversTypes['Charge'], ParentType, ContextType>;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  metadata?: Resolver<ResolversTypes['Metadata'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type SubscriptionResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription'],
> = {
  events?: SubscriptionResolver<
    ResolversTypes['Event'],
    'events',
    ParentType,
    ContextType,
    Partial<SubscriptionEventsArgs>
  >;
};

export type WebhookEndpointResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['WebhookEndpoint'] =
    ResolversParentTypes['WebhookEndpoint'],
> = {
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  disabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  enabledEvents?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  metadata?: Resolver<ResolversTypes['Metadata'], ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type WebhookEndpointWithSecretResolvers<
  ContextType = GraphQLContext,
  ParentType extends ResolversParentTypes['WebhookEndpointWithSecret'] =
    ResolversParentTypes['WebhookEndpointWithSecret'],
> = {
  endpoint?: Resolver<ResolversTypes['WebhookEndpoint'], ParentType, ContextType>;
  secret?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  Card?: CardResolvers<ContextType>;
  Charge?: ChargeResolvers<ContextType>;
  ChargeConnection?: ChargeConnectionResolvers<ContextType>;
  ChargeEdge?: ChargeEdgeResolvers<ContextType>;
  Customer?: CustomerResolvers<ContextType>;
  DeletedObject?: DeletedObjectResolvers<ContextType>;
  Event?: EventResolvers<ContextType>;
  JSON?: GraphQLScalarType;
  Metadata?: GraphQLScalarType;
  Mutation?: MutationResolvers<ContextType>;
  Node?: NodeResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  Refund?: RefundResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  WebhookEndpoint?: WebhookEndpointResolvers<ContextType>;
  WebhookEndpointWithSecret?: WebhookEndpointWithSecretResolvers<ContextType>;
};
