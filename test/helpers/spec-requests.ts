/**
 * Valid requests built from `openapi/openapi.yaml` for property-based tests (fast-check): for
 * every operation, its path, query and header parameters and its body (JSON or form-encoded)
 * sampled from their schemas; spec-mutations.ts breaks them. Only what a schema cannot know is
 * written by hand: which ids exist (a fixture), and the few fields whose valid values depend on
 * the data (`source`, `customer`, `charge`, `url`, `enabled_events`, `expand`).
 */
import fc from 'fast-check';
import { sample } from 'openapi-sampler';
import { loadSpec } from '../../src/operations/spec.js';

/** The subset of JSON Schema the spec uses. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  maxProperties?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** A field a request can carry: a body property, or a query, header or path parameter. */
export interface Field {
  in: 'body' | 'query' | 'header' | 'path';
  name: string;
  required: boolean;
  schema: Schema;
  /** For path ids: the schema of the object it names (`CustomerId` → `Customer`). */
  names?: string;
}

/** One operation of the spec, as the generators need it. */
export interface Operation {
  operationId: string;
  method: string;
  /** The path template, `/v1/customers/{id}`. */
  path: string;
  fields: Field[];
  body?: { required: boolean; schema: Schema };
  /** Declared `security` is HTTP Basic (the admin surface), not the API key. */
  admin: boolean;
  /** The schema of a 200 answer (`Charge`, `ChargeList`): lists page over `Charge`. */
  answers: string;
}

/** A key and a value of a form body or a query string, before encoding. */
export type Pair = [string, string];

/** A request under construction: structured, so mutations can aim at one field. */
export interface Draft {
  op: Operation;
  pathParams: Record<string, string>;
  query: Pair[];
  headers: Record<string, string>;
  body?:
    | { encoding: 'json'; value: Record<string, unknown> }
    | { encoding: 'form'; pairs: Pair[] }
    | { raw: string; contentType?: string };
}

/** What the server must do with a request. */
export type Expectation = 'success' | 'rejected' | 'no-5xx';

/** A request ready to send, with what must happen to it. */
export interface SpecRequest {
  operationId: string;
  /** `valid`, or the mutation and what it did (`non-decimal: amount=0x10`). */
  label: string;
  method: string;
  /** Path and query string; `FRESH_<Schema>` stands for the id of an object created just before. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Content-Type, or absent to send bytes without one. */
  contentType?: string;
  expect: Expectation;
  /** When the server answers a `parameter_*` error, the parameter it must name (its root). */
  param?: string;
}

/**
 * Ids of the objects every valid request may name, by the spec's schema name (`Customer`,
 * `Charge`, `WebhookEndpoint`, …), plus one object of another account (never visible).
 */
export interface Fixture {
  ids: Record<string, string>;
  foreignId: string;
  /** A base URL that webhook endpoints may point at (the server allows private networks). */
  webhookUrl: string;
  /**
   * Client certificates (PEM) not registered yet, handed out in turn: a certificate is registered to
   * one account at a time, so every valid registration needs one of its own.
   */
  certificates: string[];
}

let certificateTurn = 0;

const spec = loadSpec() as unknown as {
  paths: Record<string, Record<string, any>>;
  components: Record<string, Record<string, any>>;
};

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** The schema an operation answers with; of a union (a customer or a deleted one), the first. */
function answerName(schema: Schema): string {
  return refName(schema.$ref ?? (schema.oneOf as Schema[])[0].$ref!);
}

/** Follows `$ref`s to the schema itself. */
export function resolve(schema: Schema): Schema {
  let current = schema;
  while (current.$ref)
    current = spec.components[current.$ref.split('/')[2]][refName(current.$ref)] as Schema;
  return current;
}

/** The schema without its `null` alternative: what a present, non-null value must be. */
export function nonNull(schema: Schema): Schema {
  const s = resolve(schema);
  const options = s.oneOf ?? s.anyOf;
  if (options) {
    const rest = options.map(resolve).filter((o) => o.type !== 'null');
    return rest.length === 1 ? nonNull(rest[0]) : s;
  }
  if (Array.isArray(s.type)) return { ...s, type: s.type.find((t) => t !== 'null') };
  return s;
}

/** Every operation under `paths` (not the 3.1 `webhooks`, which the server receives nowhere). */
export function specOperations(): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    const shared = (item.parameters ?? []) as Schema[];
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const fields: Field[] = [];
      for (const ref of [...shared, ...((op.parameters ?? []) as Schema[])]) {
        const p = resolve(ref) as unknown as {
          name: string;
          in: Field['in'];
          required?: boolean;
          schema: Schema;
        };
        const names =
          ref.$ref && p.in === 'path' ? refName(ref.$ref).replace(/Id$/, '') : undefined;
        fields.push({
          in: p.in,
          name: p.name,
          required: p.required ?? false,
          schema: p.schema,
          names,
        });
      }
      const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
      const bodySchema = content?.['application/json']?.schema;
      if (bodySchema) {
        const object = resolve(bodySchema);
        for (const [name, schema] of Object.entries(object.properties ?? {})) {
          fields.push({
            in: 'body',
            name,
            required: (object.required ?? []).includes(name),
            schema,
          });
        }
      }
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        fields,
        body: bodySchema && { required: op.requestBody.required ?? false, schema: bodySchema },
        admin: (op.security ?? []).some((s: object) => 'adminBasic' in s),
        answers: answerName(op.responses['200'].content['application/json'].schema),
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------------
// Valid values

/**
 * A character a valid free-text value may hold: any code point but control characters (those are
 * a mutation) and lone surrogates; printable ASCII most of the time. (fast-check's own full-Unicode
 * strings spend three seconds building a table on first use.)
 */
const character = fc
  .oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 0xa0, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff),
    },
  )
  .map((c) => String.fromCodePoint(c));

const text = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.array(character, { minLength, maxLength }).map((cs) => cs.join(''));

const patterns = new Map<string, fc.Arbitrary<string>>();

/** Strings matching a pattern; built once each, as building one for `[^\[\]]` takes seconds. */
function matching(pattern: string): fc.Arbitrary<string> {
  if (!patterns.has(pattern))
    patterns.set(pattern, fc.stringMatching(new RegExp(pattern), { size: 'small' }));
  return patterns.get(pattern)!;
}

/** Short strings mostly, and now and then one of exactly the maximum length (the boundary). */
function stringArb(s: Schema, minLength: number): fc.Arbitrary<string> {
  const min = Math.max(s.minLength ?? 0, minLength);
  const max = s.maxLength ?? 1000;
  if (s.format === 'email')
    return fc.stringMatching(/^[a-z0-9][a-z0-9.+_-]{0,20}@[a-z0-9]{1,10}\.(com|test|org)$/);
  const excluded = s.pattern && /^\^\[\^(.+)\]\+\$$/.exec(s.pattern);
  if (excluded) {
    // `^[^…]+$` only excludes characters: text without them is quicker than stringMatching,
    // which takes seconds to build the complement of a class over all of Unicode.
    const without = new RegExp(`[${excluded[1]}]`, 'gu');
    return text(Math.max(min, 1), Math.min(max, 30)).map((v) => v.replace(without, '_'));
  }
  if (s.pattern) {
    return matching(s.pattern).filter(
      (v) => v.length >= min && v.length <= max && !/\p{Cc}/u.test(v),
    );
  }
  // A long random string costs fast-check ~50 ms; a short one repeated up to the limit costs nothing.
  const longest = text(1, 8).map((unit) =>
    Array.from({ length: max }, (_v, i) => [...unit][i % [...unit].length]).join(''),
  );
  return fc.oneof(
    { weight: 4, arbitrary: text(min, Math.min(max, 30)) },
    { weight: 1, arbitrary: longest },
  );
}

function integerArb(s: Schema): fc.Arbitrary<number> {
  const min = s.minimum ?? -(2 ** 31);
  const max = s.maximum ?? 2 ** 31 - 1;
  // Boundaries are where parsers break, so they come up often.
  return fc.oneof(fc.constantFrom(min, max), fc.bigInt(BigInt(min), BigInt(max)).map(Number));
}

/** Where a value is being generated: the encoding matters (a form cannot send `""` for a required field). */
interface Context {
  encoding: 'json' | 'form';
  required: boolean;
}

/** A valid value for a schema, read from the schema alone. */
export function valueArb(schema: Schema, ctx: Context): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const options = s.oneOf ?? s.anyOf;
  if (options) return fc.oneof(...options.map((o) => valueArb(o, ctx)));
  if (Array.isArray(s.type))
    return fc.oneof(...s.type.map((type) => valueArb({ ...s, type }, ctx)));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArb(s);
    // In a form an empty value means "unset", so a required string needs one character at least.
    case 'string':
      return stringArb(s, ctx.encoding === 'form' && ctx.required ? 1 : 0);
    case 'array': {
      const item = valueArb(s.items ?? {}, { ...ctx, required: true });
      const constraints = { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) };
      return s.uniqueItems
        ? fc.uniqueArray(item, { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(item, constraints);
    }
    case 'object':
      return objectArb(s, ctx);
  }
  throw new Error(`no generator for schema ${JSON.stringify(s)}`);
}

function objectArb(s: Schema, ctx: Context): fc.Arbitrary<Record<string, unknown>> {
  if (s.properties) {
    const model = Object.fromEntries(
      Object.entries(s.properties).map(([k, v]) => [
        k,
        valueArb(v, { ...ctx, required: (s.required ?? []).includes(k) }),
      ]),
    );
    return fc.record(model, { requiredKeys: s.required ?? [] });
  }
  if (typeof s.additionalProperties === 'object') {
    const key = stringArb(s.propertyNames ?? {}, 1);
    const value = valueArb(s.additionalProperties, { ...ctx, required: true });
    return fc.dictionary(key, value, { maxKeys: Math.min(s.maxProperties ?? 5, 5) });
  }
  return fc.constant({});
}

/** An object's fields turned into bracket-notation pairs (`metadata[order]=6735`, `expand[0]=customer`). */
export function toPairs(name: string, value: unknown): Pair[] {
  if (value === undefined) return [];
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => toPairs(`${name}[${k}]`, v));
  }
  return [[name, value === null ? '' : String(value)]];
}

// ---------------------------------------------------------------------------------------------
// Valid requests

/**
 * Fields whose valid values depend on the data, not on the schema: the ids of existing objects,
 * the test tokens that succeed, the webhook receiver, the fields each answer can expand.
 * `FRESH_<Schema>` asks for an object created just before the request (a refund needs a charge
 * not yet refunded).
 */
function dataDependent(
  op: Operation,
  field: Field,
  fixture: Fixture,
): fc.Arbitrary<unknown> | undefined {
  const id = (schema: string) => fc.constant(fixture.ids[schema]);
  // An action needs its object in the state that allows it: an object of its own, made so.
  const action = /\/(capture|confirm|cancel|authenticate|attach|detach)$/.exec(op.path)?.[1];
  if (field.in === 'path' && field.names && action) {
    const made: Record<string, string> = {
      'Charge capture': 'UncapturedCharge',
      'PaymentIntent capture': 'AuthorisedPaymentIntent',
      'PaymentIntent authenticate': 'ActionPaymentIntent',
      'PaymentMethod detach': 'AttachedPaymentMethod',
    };
    return fc.constant(`FRESH_${made[`${field.names} ${action}`] ?? field.names}`);
  }
  if (field.in === 'path' && field.names) {
    // An operation on an object's own path that deletes or changes it gets an object of its own:
    // the fixture must survive a DELETE, and its metadata must not add up past 50 keys. Rolling a
    // key ends it too.
    const own =
      (op.path.endsWith(`{${field.name}}`) && op.method !== 'GET') ||
      op.path.endsWith(`{${field.name}}/roll`);
    return fc.constant(own ? `FRESH_${field.names}` : fixture.ids[field.names]);
  }
  if (field.in === 'query') {
    // The account's own keys are listed at /v1/api_keys; the operator lists another account's.
    const listed = op.path.startsWith('/v1/api_keys')
      ? 'OwnApiKey'
      : op.answers.replace(/List$/, '');
    if (field.name === 'starting_after' || field.name === 'ending_before') return id(listed);
    const refs: Record<string, string> = {
      customer: 'Customer',
      charge: 'Charge',
      payment_intent: 'PaymentIntent',
      object_id: 'Charge',
      endpoint: 'WebhookEndpoint',
      event: 'Event',
    };
    if (refs[field.name]) return id(refs[field.name]);
  }
  if (field.in === 'body') {
    if (field.name === 'customer') return id('Customer');
    if (field.name === 'charge') return fc.constant('FRESH_Charge');
    // A refund names its charge, or that charge's intent, or both.
    if (field.name === 'payment_intent') return fc.constant('FRESH_IntentOfCharge');
    if (field.name === 'source') return fc.constantFrom('tok_visa', 'tok_mastercard');
    if (field.name === 'payment_method')
      return fc.constantFrom('pm_card_visa', 'pm_card_mastercard', 'tok_visa');
    // Only test cards are accepted: a test number with its expiry, or a test token.
    if (field.name === 'card' && op.operationId === 'createPaymentMethod') {
      return fc.constantFrom(
        { token: 'tok_visa' },
        { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '314' },
      );
    }
    // A payment method made in place: a test card or token, as for `card` above (its fields are
    // each optional in the schema, but a card needs its number or a token).
    if (field.name === 'payment_method_data') {
      return fc.constantFrom(
        { type: 'card', card: { token: 'tok_visa' } },
        {
          type: 'card',
          card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '314' },
        },
      );
    }
    // Off-session needs confirm, which is left out here (see below); so does error_on_requires_action
    // where confirming is a choice (creating), not the call itself (confirming).
    if (field.name === 'off_session') return fc.constant(false);
    if (field.name === 'error_on_requires_action' && op.fields.some((f) => f.name === 'confirm'))
      return fc.constant(false);
    // A default payment method must be attached to the customer first: left as it is.
    if (field.name === 'invoice_settings') return fc.constant({});
    // Confirming needs a payment method, which a valid draft may leave out: confirmed elsewhere.
    if (field.name === 'confirm') return fc.constant(false);
    if (field.name === 'certificate') {
      return fc
        .constant(null)
        .map(() => fixture.certificates[certificateTurn++ % fixture.certificates.length]);
    }
    if (field.name === 'url') return fc.webPath().map((path) => `${fixture.webhookUrl}${path}`);
    // A page of the merchant's site; the pattern alone also admits text that is no URL.
    if (field.name === 'return_url')
      return fc.webPath().map((path) => `https://shop.example.com${path}`);
    if (field.name === 'enabled_events') {
      const types = resolve({ $ref: '#/components/schemas/EventType' }).enum as string[];
      // `*` stands for every type and cannot be combined with named ones.
      return fc.oneof(
        fc.constant(['*']),
        fc.uniqueArray(fc.constantFrom(...types), { minLength: 1, maxLength: 5 }),
      );
    }
  }
  if (field.name === 'expand') {
    const list = op.answers.endsWith('List');
    const expandable: Record<string, string[]> = {
      Charge: ['customer', 'payment_intent'],
      PaymentIntent: ['customer', 'latest_charge', 'latest_charge.customer', 'payment_method'],
      Refund: ['charge', 'charge.customer', 'charge.payment_intent'],
      Customer: ['invoice_settings.default_payment_method'],
      PaymentMethod: ['customer'],
    };
    const paths = (expandable[op.answers.replace(/List$/, '')] ?? []).map((p) =>
      list ? `data.${p}` : p,
    );
    if (paths.length === 0) return fc.constant([]);
    return fc.uniqueArray(fc.constantFrom(...paths, ...paths), {
      maxLength: paths.length,
      selector: (p) => p,
    });
  }
  return undefined;
}

/** The documented sample of a body (openapi-sampler), with its data-dependent fields made real. */
function sampledBody(op: Operation, fixture: Fixture): fc.Arbitrary<Record<string, unknown>> {
  const body = sample(
    op.body!.schema as never,
    { quiet: true, skipNonRequired: false, enablePatterns: true },
    spec,
  ) as Record<string, unknown>;
  const fields = op.fields.filter((f) => f.in === 'body');
  const real = Object.fromEntries(
    fields
      .map((f) => [f.name, dataDependent(op, f, fixture) ?? fc.constant(body[f.name])] as const)
      .filter(([k]) => k in body),
  );
  return fc.record(real);
}

/**
 * A valid request for an operation: path ids of existing objects, a random subset of the optional
 * query parameters, and a body (JSON or form) from its schema, or now and then its documented sample.
 */
export function validDraft(op: Operation, fixture: Fixture): fc.Arbitrary<Draft> {
  return fc.oneof(
    ...(op.body ? (['json', 'form'] as const) : (['json'] as const)).map((enc) =>
      draftArb(op, fixture, enc),
    ),
  );
}

const drafts = new WeakMap<Fixture, Map<string, fc.Arbitrary<Draft>>>();

/** The valid drafts of one encoding, built once per fixture and operation (building is the slow part). */
function draftArb(op: Operation, fixture: Fixture, enc: 'json' | 'form'): fc.Arbitrary<Draft> {
  if (!drafts.has(fixture)) drafts.set(fixture, new Map());
  const cache = drafts.get(fixture)!;
  const key = `${op.operationId} ${enc}`;
  if (!cache.has(key)) cache.set(key, buildDraftArb(op, fixture, enc));
  return cache.get(key)!;
}

function buildDraftArb(op: Operation, fixture: Fixture, enc: 'json' | 'form'): fc.Arbitrary<Draft> {
  const arb = (f: Field) =>
    dataDependent(op, f, fixture) ?? valueArb(f.schema, { encoding: enc, required: f.required });
  const group = (where: Field['in']) => {
    const fields = op.fields.filter((f) => f.in === where);
    return fc.record(Object.fromEntries(fields.map((f) => [f.name, arb(f)])), {
      requiredKeys: fields.filter((f) => f.required).map((f) => f.name),
    });
  };
  const bodyArb = op.body
    ? fc.oneof(
        { weight: 4, arbitrary: group('body') },
        { weight: 1, arbitrary: sampledBody(op, fixture) },
      )
    : fc.constant(undefined);
  return fc
    .record({
      path: group('path'),
      query: group('query'),
      headers: group('header'),
      body: bodyArb,
    })
    .map(({ path, query, headers, body }) => {
      // Both cursors at once is an error of its own (a mutation below), not a valid page.
      if (query.starting_after !== undefined) delete query.ending_before;
      // Each pair below is one choice sent twice, refused as such (400 naming the parameter).
      if (body?.payment_method !== undefined) delete body.payment_method_data;
      if (body?.payment_method_types !== undefined) delete body.automatic_payment_methods;
      const draft: Draft = {
        op,
        pathParams: path as Record<string, string>,
        query: Object.entries(query).flatMap(([k, v]) => toPairs(k, v)),
        headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
      };
      if (body !== undefined) {
        draft.body =
          enc === 'json'
            ? { encoding: 'json', value: body }
            : {
                encoding: 'form',
                pairs: Object.entries(body).flatMap(([k, v]) => toPairs(k, v)),
              };
      }
      return draft;
    });
}

/** Turns a draft into bytes: form pairs percent-encoded, JSON stringified, the path ids encoded. */
export function render(
  draft: Draft,
  label: string,
  expect: Expectation,
  param?: string,
): SpecRequest {
  const encodePairs = (pairs: Pair[]) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const path = draft.op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(draft.pathParams[name] ?? ''),
  );
  const query = encodePairs(draft.query);
  const request: SpecRequest = {
    operationId: draft.op.operationId,
    label,
    method: draft.op.method,
    url: query ? `${path}?${query}` : path,
    headers: { ...draft.headers },
    expect,
    param,
  };
  const body = draft.body;
  if (body && 'encoding' in body) {
    request.body = body.encoding === 'json' ? JSON.stringify(body.value) : encodePairs(body.pairs);
    request.contentType =
      body.encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  } else if (body) {
    request.body = body.raw;
    request.contentType = body.contentType;
  }
  return request;
}

/** Valid requests of an operation, which must succeed. */
export function validRequest(op: Operation, fixture: Fixture): fc.Arbitrary<SpecRequest> {
  return validDraft(op, fixture).map((draft) => render(draft, 'valid', 'success'));
}
