/**
 * REST and GraphQL are two doors onto the same resources (docs/conventions.md#rest-and-graphql),
 * so their contracts must not drift apart silently. Every REST resource schema of
 * openapi/openapi.yaml is compared with its GraphQL type in graphql/schema.graphql, and every
 * mutation's arguments with the request body of the REST operation it runs (the one with the
 * mutation's name), field by field, `snake_case` against `camelCase`. A field on one side only
 * fails the test, named, unless the lists below hold it as renamed or one-sided, with a reason;
 * an entry that no longer applies fails it too, so the lists cannot rot. Entries marked `gap`
 * are fields a GraphQL client would want and does not get yet.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isIntrospectionType,
  isObjectType,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { deref, loadSpec, type Schema, type Spec } from '../helpers/spec-walk.js';

/** `Type.field`. In one-sided entries, `*.field` stands for that field in every comparison. */
type FieldRef = `${string}.${string}`;

/** A field GraphQL serves under another name (or shape) on purpose: a mapping, not two gaps. */
interface Rename {
  rest: FieldRef;
  graphql: FieldRef;
  reason: string;
}

/** A field on one side only. `gap`: GraphQL lacks something a client would want. */
type OneSided = ({ rest: FieldRef; graphql?: never } | { graphql: FieldRef; rest?: never }) & {
  reason: string;
  gap?: true;
};

/** A REST schema compared with a GraphQL type of another name; `Schema.property` names a property's schema. */
interface TypePair {
  rest: string;
  graphql: string;
  reason: string;
}

/** A type on one side only. */
interface OneSidedType {
  name: string;
  reason: string;
}

/** Everything the comparison accepts as a deliberate difference. */
interface ParityLists {
  typePairs: TypePair[];
  restOnlyTypes: OneSidedType[];
  graphqlOnlyTypes: OneSidedType[];
  /** Names that a REST schema and a GraphQL type share without being the same thing. */
  namesakes?: OneSidedType[];
  renames: Rename[];
  oneSided: OneSided[];
}

const each = (reason: string, ...names: string[]): OneSidedType[] =>
  names.map((name) => ({ name, reason }));

/** REST fields with one reason to be REST's alone. */
const restOnly = (reason: string, ...fields: FieldRef[]): OneSided[] => fields.map((rest) => ({ rest, reason }));

/** REST fields a GraphQL client would want and does not get yet. */
const restOnlyGap = (reason: string, ...fields: FieldRef[]): OneSided[] => fields.map((rest) => ({ rest, reason, gap: true }));

/** What the two contracts hold apart today, and why (the resolvers in src/graphql/ do the mapping). */
const PARITY: ParityLists = {
  typePairs: [
    {
      rest: 'PaymentMethodDetails.card',
      graphql: 'Card',
      reason: 'Charge.card is the card itself (see the rename).',
    },
    {
      rest: 'DeletedCustomer',
      graphql: 'DeletedObject',
      reason: 'GraphQL answers every delete with one type.',
    },
    {
      rest: 'DeletedWebhookEndpoint',
      graphql: 'DeletedObject',
      reason: 'GraphQL answers every delete with one type.',
    },
  ],
  restOnlyTypes: [
    ...each(
      'Users and their orders are served over REST only; GraphQL serves payments and webhook endpoints.',
      'User',
      'DeletedUser',
      'Order',
      'DeletedOrder',
    ),
    ...each(
      'Deliveries, their retries and replays are REST-only (the dashboard uses them); GraphQL streams events instead.',
      'WebhookDelivery',
      'WebhookReplay',
    ),
    ...each(
      "Credentials are managed over REST only (/v1/api_keys and the operator's /admin), never through GraphQL.",
      'AccountWithKey',
      'ApiKey',
      'ApiKeyWithSecret',
      'OAuthClient',
      'OAuthClientWithSecret',
      'DeletedOAuthClient',
      'SigningKey',
      'SigningKeyWithSecret',
      'ClientCertificate',
    ),
    ...each(
      "The request log describes the API's own requests, both doors' alike; it is read over REST only (GET /v1/request_logs).",
      'RequestLog',
    ),
    ...each(
      'The part every typed event shares; the whole event, Event, is the one compared.',
      'EventEnvelope',
    ),
    ...each(
      'Payment methods are served over REST only so far (a gap: GraphQL has their ids, PaymentIntent.paymentMethod and PaymentError.paymentMethod, but no type).',
      'PaymentMethod',
    ),
  ],
  graphqlOnlyTypes: [
    ...each(
      "Relay connections: GraphQL's shape of a page, which REST answers as a list object (ListFields).",
      'PageInfo',
      'ChargeConnection',
      'ChargeEdge',
      'PaymentIntentConnection',
      'PaymentIntentEdge',
      'SetupIntentConnection',
      'SetupIntentEdge',
    ),
    ...each("Event.request's shape: REST's is an inline object with the same two fields.", 'EventRequest'),
  ],
  namesakes: each(
    "REST's is the endpoint with its secret among its fields; GraphQL's holds the endpoint beside its secret. Each door's endpoint is compared as WebhookEndpoint.",
    'WebhookEndpointWithSecret',
  ),
  renames: [
    {
      rest: 'Charge.status',
      graphql: 'Charge.state',
      reason: 'The same outcome as the ChargeState enum, which charges(states:) filters by.',
    },
    {
      rest: 'Charge.payment_method_details',
      graphql: 'Charge.card',
      reason: 'It holds only the card (its type is always card), so GraphQL serves the card.',
    },
    {
      rest: 'Event.data',
      graphql: 'Event.object',
      reason: "GraphQL's object is data.object; data.previous_attributes is not served.",
    },
    {
      rest: 'WebhookEndpoint.status',
      graphql: 'WebhookEndpoint.disabled',
      reason: 'A boolean, the flag both update bodies take.',
    },
    {
      rest: 'NextAction.authenticate',
      graphql: 'NextAction.url',
      reason: 'GraphQL flattens authenticate.url, the only thing in it.',
    },
  ],
  oneSided: [
    { rest: '*.object', reason: 'The kind of object: GraphQL names it by __typename.' },
    { rest: '*.livemode', reason: 'Always false: there is only test mode.' },
    {
      rest: '*.expand',
      reason: "REST's way to include related objects; GraphQL selects them as fields.",
    },
    { rest: 'Refund.status', reason: 'Always succeeded: a refund here neither waits nor fails.' },
    { rest: 'PaymentError.type', reason: 'Always card_error, the only kind of payment error.' },
    {
      rest: 'PaymentIntent.client_secret',
      reason: "For the customer's browser, which reads the intent over REST with the publishable key; GraphQL serves the account's own servers.",
    },
    {
      rest: 'PaymentIntentConfirmParams.client_secret',
      reason: 'Needed by a publishable key only, which GraphQL refuses.',
    },
    { rest: 'PaymentIntentCreateParams.return_url', reason: 'Authentication by redirect is started over REST for now.', gap: true },
    { rest: 'PaymentIntentConfirmParams.return_url', reason: 'Authentication by redirect is started over REST for now.', gap: true },
    {
      rest: 'Customer.invoice_settings',
      reason: 'Its default payment method is a PaymentMethod, a type GraphQL does not serve yet.',
      gap: true,
    },
    {
      rest: 'CustomerCreateParams.invoice_settings',
      reason: 'Setting a default payment method waits for the PaymentMethod type in GraphQL.',
      gap: true,
    },
    {
      rest: 'CustomerUpdateParams.invoice_settings',
      reason: 'Setting a default payment method waits for the PaymentMethod type in GraphQL.',
      gap: true,
    },
    ...[
      'allowed_payment_method_types',
      'application',
      'excluded_payment_method_types',
      'flow_directions',
      'latest_attempt',
      'mandate',
      'on_behalf_of',
      'payment_method_configuration_details',
      'single_use_mandate',
    ].map((field) => ({
      rest: `SetupIntent.${field}` as FieldRef,
      reason: 'Always null here (no Connect, mandates, setup attempts, configurations or lists of allowed and excluded types): kept in REST for the payments API\'s clients.',
    })),
    {
      rest: 'SetupIntent.payment_method_options',
      reason: 'Always the same card options (3-D Secure when the card asks): nothing for a GraphQL client to read.',
    },
    {
      rest: 'SetupIntent.client_secret',
      reason: "For the customer's browser, which reads the setup intent over REST with the publishable key; GraphQL serves the account's own servers.",
    },
    {
      rest: 'SetupIntentConfirmParams.client_secret',
      reason: 'Needed by a publishable key only, which GraphQL refuses.',
    },
    { rest: 'SetupIntentCreateParams.return_url', reason: 'Authentication by redirect is started over REST for now.', gap: true },
    { rest: 'SetupIntentConfirmParams.return_url', reason: 'Authentication by redirect is started over REST for now.', gap: true },
    {
      graphql: 'Customer.charges',
      reason: 'A connection; REST lists them at GET /v1/customers/{id}/charges.',
    },
    ...restOnly(
      'Always the same value here (no balances, billing, coupons, sources, test clocks, Connect, Radar, customers as accounts, Managed Payments, payment records, payment method configurations or lists of allowed and excluded types): REST shows them so that code written for the widely used payments API finds the fields it reads.',
      'Customer.balance',
      'Customer.currency',
      'Customer.default_source',
      'Customer.delinquent',
      'Customer.discount',
      'Customer.invoice_prefix',
      'Customer.next_invoice_sequence',
      'Customer.test_clock',
      'PaymentIntent.processing',
      'PaymentIntent.application',
      'PaymentIntent.application_fee_amount',
      'PaymentIntent.on_behalf_of',
      'PaymentIntent.review',
      'PaymentIntent.source',
      'PaymentIntent.transfer_data',
      'PaymentIntent.transfer_group',
      'PaymentIntent.allowed_payment_method_types',
      'PaymentIntent.customer_account',
      'PaymentIntent.excluded_payment_method_types',
      'PaymentIntent.managed_payments',
      'PaymentIntent.payment_method_configuration_details',
      'PaymentIntent.payment_record',
      'Charge.application',
      'Charge.application_fee',
      'Charge.application_fee_amount',
      'Charge.balance_transaction',
      'Charge.failure_balance_transaction',
      'Charge.fraud_details',
      'Charge.on_behalf_of',
      'Charge.review',
      'Charge.source',
      'Charge.source_transfer',
      'Charge.transfer_data',
      'Charge.transfer_group',
      'ChargeOutcome.advice_code',
      'ChargeOutcome.network_advice_code',
      'ChargeOutcome.network_decline_code',
      'PaymentMethodDetails.card.authorization_code',
      'PaymentMethodDetails.card.installments',
      'PaymentMethodDetails.card.mandate',
      'PaymentMethodDetails.card.network_transaction_id',
      'PaymentMethodDetails.card.regulated_status',
      'PaymentMethodDetails.card.transaction_link_id',
      'PaymentMethodDetails.card.wallet',
      'Refund.balance_transaction',
      'Refund.customer_account',
      'Refund.receipt_number',
      'Refund.source_transfer_reversal',
      'Refund.transfer_reversal',
      'WebhookEndpoint.application',
    ),
    ...restOnly(
      "An instruction of the widely used payments API's client libraries, which talk REST; it changes nothing here.",
      'PaymentIntentCreateParams.use_stripe_sdk',
      'PaymentIntentConfirmParams.use_stripe_sdk',
    ),
    ...restOnlyGap(
      'Payment methods are served over REST only so far: a payment method is named by its id, and made or attached over REST.',
      'CustomerCreateParams.payment_method',
      'PaymentIntentCreateParams.payment_method_data',
      'PaymentIntentUpdateParams.payment_method_data',
      'PaymentIntentConfirmParams.payment_method_data',
    ),
    ...restOnlyGap(
      "The checks and 3-D Secure of a charge's card are served over REST only so far.",
      'PaymentMethodDetails.card.checks',
      'PaymentMethodDetails.card.electronic_commerce_indicator',
      'PaymentMethodDetails.card.three_d_secure',
    ),
    ...restOnlyGap(
      'Options by payment method type, of which there is one (card, whose capture method GraphQL sets as captureMethod); REST only for now.',
      'PaymentIntent.payment_method_options',
      'PaymentIntentCreateParams.payment_method_options',
      'PaymentIntentUpdateParams.payment_method_options',
      'PaymentIntentConfirmParams.payment_method_options',
    ),
  ],
};

/** Arguments that are not body fields: the path's id, and the Idempotency-Key header. */
const NOT_BODY_ARGUMENTS = ['id', 'idempotencyKey'];

const GRAPHQL_SDL = new URL('../../graphql/schema.graphql', import.meta.url);

/** Two sets of fields compared: a REST schema or body, and a GraphQL type or a mutation's arguments. */
interface Comparison {
  rest: string;
  graphql: string;
  restFields: string[];
  graphqlFields: string[];
}

const camelCase = (name: string) =>
  name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

const splitRef = (ref: FieldRef) => {
  const dot = ref.indexOf('.');
  return [ref.slice(0, dot), ref.slice(dot + 1)] as const;
};

/** The property names of an object schema, its `allOf` parts merged. */
function restFields(spec: Spec, schema: Schema): string[] {
  const resolved = deref(spec, schema);
  // A union (`Event`, one schema per kind) has the fields of its kinds.
  const kinds = (resolved.oneOf ?? []) as Schema[];
  if (kinds.length > 0) return [...new Set(kinds.flatMap((kind) => restFields(spec, kind)))];
  const parts = [
    resolved,
    ...((resolved.allOf ?? []) as Schema[]).map((part) => deref(spec, part)),
  ];
  return [...new Set(parts.flatMap((part) => Object.keys(part.properties ?? {})))];
}

/** The schema a name stands for: a component, or `Component.property` for that property's schema. */
function restSchema(spec: Spec, name: string): Schema | undefined {
  const [component, ...properties] = name.split('.');
  let schema: Schema | undefined = spec.components?.schemas?.[component];
  for (const property of properties) schema = schema && deref(spec, schema).properties?.[property];
  return schema;
}

/** REST's resources: component schemas with an `object` kind of their own, lists aside. */
function restResources(spec: Spec): string[] {
  return Object.entries((spec.components?.schemas ?? {}) as Record<string, Schema>)
    .filter(
      ([, schema]) =>
        typeof schema.properties?.object?.const === 'string' &&
        schema.properties.object.const !== 'list',
    )
    .map(([name]) => name);
}

/** GraphQL's object types, without the root and introspection types. */
function graphqlObjectTypes(schema: GraphQLSchema): string[] {
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map(
    (type) => type?.name,
  );
  return Object.values(schema.getTypeMap())
    .filter(
      (type) => isObjectType(type) && !isIntrospectionType(type) && !roots.includes(type.name),
    )
    .map((type) => type.name);
}

/** The resource comparisons: same-named REST schema and GraphQL type, and the listed pairs. */
function typeComparisons(
  spec: Spec,
  schema: GraphQLSchema,
  lists: ParityLists,
  problems: string[],
): Comparison[] {
  const objectTypes = graphqlObjectTypes(schema);
  const sameNamed = Object.keys(spec.components?.schemas ?? {})
    .filter((name) => objectTypes.includes(name))
    .filter((name) => !lists.namesakes?.some((namesake) => namesake.name === name))
    .map((name) => ({ rest: name, graphql: name }));
  const comparisons: Comparison[] = [];
  for (const pair of [...sameNamed, ...lists.typePairs]) {
    const restType = restSchema(spec, pair.rest);
    const graphqlType = schema.getType(pair.graphql);
    if (!restType || !isObjectType(graphqlType)) {
      problems.push(
        `type pair ${pair.rest} ↔ ${pair.graphql} no longer applies: ${restType ? 'the GraphQL type' : 'the REST schema'} is gone`,
      );
      continue;
    }
    comparisons.push({
      ...pair,
      restFields: restFields(spec, restType),
      graphqlFields: Object.keys(graphqlType.getFields()),
    });
  }
  return comparisons;
}

/** Every REST resource and GraphQL object type is compared, or listed on its side only; no listing is stale. */
function typeCoverageProblems(
  spec: Spec,
  schema: GraphQLSchema,
  lists: ParityLists,
  compared: Comparison[],
): string[] {
  const problems: string[] = [];
  const sides = [
    {
      side: 'REST',
      other: 'GraphQL',
      names: restResources(spec),
      listed: [...lists.restOnlyTypes, ...(lists.namesakes ?? [])],
      key: 'rest' as const,
      exists: (name: string) => restSchema(spec, name) !== undefined,
    },
    {
      side: 'GraphQL',
      other: 'REST',
      names: graphqlObjectTypes(schema),
      listed: [...lists.graphqlOnlyTypes, ...(lists.namesakes ?? [])],
      key: 'graphql' as const,
      exists: (name: string) => schema.getType(name) !== undefined,
    },
  ];
  for (const { side, other, names, listed, key, exists } of sides) {
    const isCompared = (name: string) => compared.some((comparison) => comparison[key] === name);
    for (const name of names) {
      if (!isCompared(name) && !listed.some((entry) => entry.name === name)) {
        problems.push(
          `${side} type ${name} has no ${other} twin: pair it, or list it as ${side}-only with a reason`,
        );
      }
    }
    for (const entry of listed) {
      const stale = !exists(entry.name)
        ? 'it is gone'
        : isCompared(entry.name)
          ? `it has a ${other} twin now`
          : null;
      if (stale) problems.push(`${side}-only type ${entry.name} no longer applies: ${stale}`);
    }
  }
  return problems;
}

/** The fields a mutation takes: its arguments, an input object standing for its fields. */
function mutationFields(mutation: GraphQLField<unknown, unknown>) {
  const args = mutation.args.filter((arg) => !NOT_BODY_ARGUMENTS.includes(arg.name));
  const inputs = args.map((arg) => getNamedType(arg.type)).filter(isInputObjectType);
  return {
    // The input type's name when it is the whole body, as the lists name input fields by it.
    label: args.length === 1 && inputs.length === 1 ? inputs[0].name : `Mutation.${mutation.name}`,
    fields: args.flatMap((arg) => {
      const type = getNamedType(arg.type);
      return isInputObjectType(type) ? Object.keys(type.getFields()) : [arg.name];
    }),
  };
}

/** The body comparisons: each mutation against the request body of the REST operation it runs. */
function inputComparisons(spec: Spec, schema: GraphQLSchema, problems: string[]): Comparison[] {
  const operations = new Map<string, Schema>();
  for (const item of Object.values((spec.paths ?? {}) as Record<string, Record<string, Schema>>)) {
    for (const operation of Object.values(item)) {
      if (operation?.operationId) operations.set(operation.operationId, operation);
    }
  }
  const comparisons: Comparison[] = [];
  for (const mutation of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const operation = operations.get(mutation.name);
    if (!operation) {
      problems.push(`GraphQL mutation ${mutation.name} runs no REST operation of that name`);
      continue;
    }
    const content = operation.requestBody && deref(spec, operation.requestBody).content;
    const body: Schema | undefined =
      content && (content['application/json'] ?? Object.values(content)[0])?.schema;
    const { label, fields } = mutationFields(mutation);
    comparisons.push({
      rest: body?.$ref?.split('/').at(-1) ?? `${mutation.name} body`,
      graphql: label,
      restFields: body ? restFields(spec, body) : [],
      graphqlFields: fields,
    });
  }
  return comparisons;
}

const refersTo = (ref: FieldRef, type: string, field: string) =>
  ref === `${type}.${field}` || ref === `*.${field}`;

/** The fields of one comparison on one side only and not listed; records the list entries used. */
function fieldProblems(comparison: Comparison, lists: ParityLists, used: Set<object>): string[] {
  const restLeft = new Set(comparison.restFields);
  const graphqlLeft = new Set(comparison.graphqlFields);
  for (const rename of lists.renames) {
    const [restType, restField] = splitRef(rename.rest);
    const [graphqlType, graphqlField] = splitRef(rename.graphql);
    if (restType !== comparison.rest || graphqlType !== comparison.graphql) continue;
    if (!restLeft.has(restField) || !graphqlLeft.has(graphqlField)) continue;
    used.add(rename);
    restLeft.delete(restField);
    graphqlLeft.delete(graphqlField);
  }
  for (const field of restLeft) if (graphqlLeft.delete(camelCase(field))) restLeft.delete(field);
  const problems: string[] = [];
  const unlisted = (side: 'rest' | 'graphql', field: string) => {
    const entry = lists.oneSided.find(
      (candidate) => candidate[side] && refersTo(candidate[side], comparison[side], field),
    );
    if (entry) used.add(entry);
    return !entry;
  };
  for (const field of restLeft) {
    if (unlisted('rest', field)) {
      problems.push(
        `REST ${comparison.rest}.${field} is missing from GraphQL ${comparison.graphql}`,
      );
    }
  }
  for (const field of graphqlLeft) {
    if (unlisted('graphql', field)) {
      problems.push(
        `GraphQL ${comparison.graphql}.${field} is missing from REST ${comparison.rest}`,
      );
    }
  }
  return problems;
}

/** Why a rename that matched nothing no longer applies. */
function staleRename(rename: Rename, comparisons: Comparison[]): string {
  const [restType, restField] = splitRef(rename.rest);
  const [graphqlType] = splitRef(rename.graphql);
  const pair = comparisons.find(
    (comparison) => comparison.rest === restType && comparison.graphql === graphqlType,
  );
  const why = !pair
    ? `${restType} and ${graphqlType} are not compared`
    : !pair.restFields.includes(restField)
      ? `REST ${rename.rest} is gone`
      : `GraphQL ${rename.graphql} is gone`;
  return `rename ${rename.rest} ↔ ${rename.graphql} no longer applies: ${why}`;
}

/** Why a one-sided entry that matched nothing no longer applies. */
function staleOneSided(entry: OneSided, comparisons: Comparison[]): string {
  const side = entry.rest ? 'rest' : 'graphql';
  const ref = entry.rest ?? entry.graphql!;
  const [, field] = splitRef(ref);
  const present = comparisons.some(
    (comparison) =>
      refersTo(ref, comparison[side], field) &&
      comparison[side === 'rest' ? 'restFields' : 'graphqlFields'].includes(field),
  );
  return `${side === 'rest' ? 'REST' : 'GraphQL'}-only field ${ref} no longer applies: ${present ? 'it is on both sides now' : 'it is gone'}`;
}

/**
 * Every difference between the two contracts that the lists do not account for, and every list
 * entry that accounts for nothing: empty when the doors agree.
 */
function parityProblems(spec: Spec, schema: GraphQLSchema, lists: ParityLists): string[] {
  const problems: string[] = [];
  const types = typeComparisons(spec, schema, lists, problems);
  problems.push(...typeCoverageProblems(spec, schema, lists, types));
  const comparisons = [...types, ...inputComparisons(spec, schema, problems)];
  const used = new Set<object>();
  for (const comparison of comparisons) problems.push(...fieldProblems(comparison, lists, used));
  const staleRenames = lists.renames.filter((rename) => !used.has(rename));
  const staleEntries = lists.oneSided.filter((entry) => !used.has(entry));
  problems.push(...staleRenames.map((rename) => staleRename(rename, comparisons)));
  problems.push(...staleEntries.map((entry) => staleOneSided(entry, comparisons)));
  return problems;
}

const loadGraphQL = (extra = '') => buildSchema(fs.readFileSync(GRAPHQL_SDL, 'utf8') + extra);

describe('REST ↔ GraphQL parity', () => {
  it('every REST resource and body matches its GraphQL twin, field by field, but for the listed differences', () => {
    expect(parityProblems(loadSpec(), loadGraphQL(), PARITY)).to.deep.equal([]);
  });

  // Probes on the real contracts: a field added on one side is named, whatever the lists hold.
  it('names a field added to a REST resource only', () => {
    const spec = loadSpec();
    spec.components.schemas.Charge.properties.parity_probe = { type: 'string' };
    expect(parityProblems(spec, loadGraphQL(), PARITY)).to.deep.equal([
      'REST Charge.parity_probe is missing from GraphQL Charge',
    ]);
  });

  it('names a field added to a GraphQL type or input only', () => {
    const schema = loadGraphQL(
      '\nextend type Refund { parityProbe: String }\nextend input CreateRefundInput { parityProbe: Boolean }\n',
    );
    expect(parityProblems(loadSpec(), schema, PARITY)).to.deep.equal([
      'GraphQL Refund.parityProbe is missing from REST Refund',
      'GraphQL CreateRefundInput.parityProbe is missing from REST RefundCreateParams',
    ]);
  });

  it('names a REST body field its mutation does not take', () => {
    const spec = loadSpec();
    spec.components.schemas.PaymentIntentCaptureParams.properties.parity_probe = {
      type: 'boolean',
    };
    expect(parityProblems(spec, loadGraphQL(), PARITY)).to.deep.equal([
      'REST PaymentIntentCaptureParams.parity_probe is missing from GraphQL Mutation.capturePaymentIntent',
    ]);
  });

  it('fails when a field listed as one-sided reaches the other side, so that its entry goes', () => {
    const spec = loadSpec();
    spec.components.schemas.Customer.properties.charges = {
      type: 'array',
      items: { type: 'string' },
    };
    expect(parityProblems(spec, loadGraphQL(), PARITY)).to.deep.equal([
      'GraphQL-only field Customer.charges no longer applies: it is on both sides now',
    ]);
  });
});

describe('REST ↔ GraphQL parity: the comparison', () => {
  interface FakeContracts {
    /** Properties of the REST Charge resource, of its create body, and extra REST schemas. */
    charge?: string[];
    params?: string[];
    restSchemas?: Record<string, Schema>;
    /** Fields of the GraphQL Charge type, of its create input, and extra SDL. */
    chargeType?: string;
    input?: string;
    sdl?: string;
  }

  const properties = (names: string[]) =>
    Object.fromEntries(names.map((name) => [name, { type: 'string' }]));
  const USER = {
    properties: { id: { type: 'string' }, object: { type: 'string', const: 'user' } },
  };

  /** A REST contract with a charge resource and its create operation. */
  const fakeSpec = ({
    charge = ['id', 'amount_refunded'],
    params = ['amount'],
    restSchemas = {},
  }: FakeContracts): Spec => ({
    paths: {
      '/v1/charges': {
        post: {
          operationId: 'createCharge',
          requestBody: {
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/ChargeCreateParams' } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Charge: {
          properties: { object: { type: 'string', const: 'charge' }, ...properties(charge) },
        },
        ChargeCreateParams: { properties: properties(params) },
        ...restSchemas,
      },
    },
  });

  /** A GraphQL contract with the charge type and its create mutation. */
  const fakeSchema = ({
    chargeType = 'id: ID! amountRefunded: Int!',
    input = 'amount: Int!',
    sdl = '',
  }: FakeContracts) =>
    buildSchema(`
      type Query { charge(id: ID!): Charge }
      type Mutation { createCharge(input: CreateChargeInput!, idempotencyKey: String): Charge }
      type Charge { ${chargeType} }
      input CreateChargeInput { ${input} }
      ${sdl}
    `);

  const livemodeListed: Partial<ParityLists> = {
    oneSided: [{ rest: 'Charge.livemode', reason: 'test mode' }],
  };
  const statusRenamed: Partial<ParityLists> = {
    renames: [{ rest: 'Charge.status', graphql: 'Charge.state', reason: 'enum' }],
  };
  const userRestOnly: Partial<ParityLists> = {
    restOnlyTypes: [{ name: 'User', reason: 'REST only' }],
  };

  const cases: Array<{
    what: string;
    contracts: FakeContracts;
    lists?: Partial<ParityLists>;
    problems: string[];
  }> = [
    {
      what: 'accepts fields that differ only as snake_case and camelCase',
      contracts: {},
      problems: [],
    },
    {
      what: 'names a resource field REST has and GraphQL lacks',
      contracts: { charge: ['id', 'amount_refunded', 'failure_code'] },
      problems: ['REST Charge.failure_code is missing from GraphQL Charge'],
    },
    {
      what: 'names a resource field GraphQL has and REST lacks',
      contracts: { chargeType: 'id: ID! amountRefunded: Int! riskScore: Int' },
      problems: ['GraphQL Charge.riskScore is missing from REST Charge'],
    },
    {
      what: 'names a body field the mutation does not take',
      contracts: { params: ['amount', 'capture'] },
      problems: ['REST ChargeCreateParams.capture is missing from GraphQL CreateChargeInput'],
    },
    {
      what: 'names an input field the REST body lacks',
      contracts: { input: 'amount: Int! capture: Boolean' },
      problems: ['GraphQL CreateChargeInput.capture is missing from REST ChargeCreateParams'],
    },
    {
      what: 'names a mutation that runs no REST operation',
      contracts: { sdl: 'extend type Mutation { refundAll: Boolean }' },
      problems: ['GraphQL mutation refundAll runs no REST operation of that name'],
    },
    {
      what: 'accepts a field listed as one-sided',
      contracts: { charge: ['id', 'amount_refunded', 'livemode'] },
      lists: livemodeListed,
      problems: [],
    },
    {
      what: 'fails a one-sided entry once the field is on both sides',
      contracts: {
        charge: ['id', 'amount_refunded', 'livemode'],
        chargeType: 'id: ID! amountRefunded: Int! livemode: Boolean!',
      },
      lists: livemodeListed,
      problems: ['REST-only field Charge.livemode no longer applies: it is on both sides now'],
    },
    {
      what: 'fails a one-sided entry once the field is gone',
      contracts: {},
      lists: livemodeListed,
      problems: ['REST-only field Charge.livemode no longer applies: it is gone'],
    },
    {
      what: 'accepts a listed rename',
      contracts: {
        charge: ['id', 'amount_refunded', 'status'],
        chargeType: 'id: ID! amountRefunded: Int! state: String!',
      },
      lists: statusRenamed,
      problems: [],
    },
    {
      what: 'fails a rename once one side is gone',
      contracts: {
        charge: ['id', 'amount_refunded', 'status'],
        chargeType: 'id: ID! amountRefunded: Int! status: String!',
      },
      lists: statusRenamed,
      problems: [
        'rename Charge.status ↔ Charge.state no longer applies: GraphQL Charge.state is gone',
      ],
    },
    {
      what: 'names a REST resource without a GraphQL type',
      contracts: { restSchemas: { User: USER } },
      problems: [
        'REST type User has no GraphQL twin: pair it, or list it as REST-only with a reason',
      ],
    },
    {
      what: 'accepts a resource listed as REST-only',
      contracts: { restSchemas: { User: USER } },
      lists: userRestOnly,
      problems: [],
    },
    {
      what: 'fails a REST-only listing once the type has a GraphQL twin',
      contracts: { restSchemas: { User: USER }, sdl: 'type User { id: ID! }' },
      lists: userRestOnly,
      problems: ['REST-only type User no longer applies: it has a GraphQL twin now'],
    },
    {
      what: 'names a GraphQL type without a REST twin',
      contracts: { sdl: 'type Card { brand: String }' },
      problems: [
        'GraphQL type Card has no REST twin: pair it, or list it as GraphQL-only with a reason',
      ],
    },
  ];

  for (const { what, contracts, lists = {}, problems } of cases) {
    it(what, () => {
      const all: ParityLists = {
        typePairs: [],
        restOnlyTypes: [],
        graphqlOnlyTypes: [],
        renames: [],
        ...lists,
        // Every fake resource has `object`, as REST's do.
        oneSided: [{ rest: '*.object', reason: 'kind' }, ...(lists.oneSided ?? [])],
      };
      expect(parityProblems(fakeSpec(contracts), fakeSchema(contracts), all)).to.deep.equal(
        problems,
      );
    });
  }
});
