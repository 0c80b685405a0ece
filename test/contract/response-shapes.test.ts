import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { loadSpec } from '../../src/operations/spec.js';

/**
 * What a client may rely on in a response: every property its schema lists as required is there,
 * and no property the schema lacks. The suite validates every response it sees against the spec
 * (`VALIDATE_RESPONSES`, on under test), which checks `required`; these tests make sure that it
 * also refuses an unknown property, because every object a response can hold is closed, and that
 * a property is left optional only where the server really leaves it out sometimes.
 */

type Schema = Record<string, unknown> & {
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  unevaluatedProperties?: boolean;
};

const spec = loadSpec() as unknown as {
  paths: Record<string, Record<string, { responses?: Record<string, Schema> }>>;
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Schema> };
};

/**
 * Response properties that the server leaves out in some answers, each with why. A property of a
 * response object that is optional in the spec must be listed here, and every entry must still be
 * an optional property of the spec.
 */
const SOMETIMES_ABSENT: Record<string, string> = {
  'CustomerUpdatedEvent.data.previous_attributes': 'sent when the update changed fields (an update of nothing has none)',
  'ChargeUpdatedEvent.data.previous_attributes': 'sent when the update changed fields',
  'ChargeRefundedEvent.data.previous_attributes': 'sent when the refund changed the charge',
  'UserUpdatedEvent.data.previous_attributes': 'sent when the update changed fields',
  'OrderUpdatedEvent.data.previous_attributes': 'sent when the update changed fields',
  'WebhookDelivery.attempts': 'only when one delivery is retrieved; a list leaves every delivery\'s attempts out',
  'PaymentIntent.client_secret': 'in the answers of API calls only, never in events (which are kept, listed and sent to webhooks)',
  'ApiKey.key': 'a publishable key in full, which is public; no other key is shown again',
  'PaymentError.decline_code': 'only on a card decline, not on a failed authentication',
  'PaymentError.charge': 'only when a charge was attempted (a decline), not on a failed authentication',
  'PaymentError.payment_method': 'only when the error is about the payment method that was tried',
  'SetupIntent.client_secret': 'in the answers of API calls only, never in events (which are kept, listed and sent to webhooks)',
  'SetupError.decline_code': 'only on a card decline, not on a failed authentication',
  'OAuthError.error_description': 'RFC 6749 §5.2: optional, sent when there is something to add to the error code',
  'Jwk.crv': 'an EC key\'s curve; RFC 7518 keys of other types have no curve',
  'Jwk.x': 'an EC key\'s coordinate',
  'Jwk.y': 'an EC key\'s coordinate',
  'InvalidRequestError.param': 'only when one parameter is at fault',
  'PaymentIntentStateError.param': 'only when one parameter is at fault',
  'SetupIntentStateError.param': 'only when one parameter is at fault',
  'NotFoundError.param': 'the parameter holding the missing id; a URL that does not exist has none',
  'HttpRequestError.param': 'only when one parameter is at fault',
  'CardError.param': 'only when one parameter is at fault',
  'SetupIntentCardError.param': 'only when one parameter is at fault',
  'AuthenticationError.param': 'only when one parameter is at fault',
  'PermissionError.param': 'the parameter asking for the scope, when one does (`scopes` of a new key)',
  'IdempotencyError.param': 'only when one parameter is at fault',
  'RateLimitError.param': 'never at fault: kept so that every kind of error reads alike',
  'InternalError.param': 'never at fault: kept so that every kind of error reads alike',
  'ServiceUnavailableError.param': 'never at fault: kept so that every kind of error reads alike',
  'AutomaticPaymentMethods.allow_redirects': 'only when enabled, as the widely used payments API shows it',
  'PaymentMethodOptions.card.capture_method': 'only when `payment_method_options[card][capture_method]` was set',
};

const resolve = (schema: Schema): [name: string | undefined, schema: Schema] => {
  if (!schema.$ref) return [undefined, schema];
  const name = schema.$ref.replace('#/components/schemas/', '');
  return [name, spec.components.schemas[name]];
};

/** The top-level schemas of every response (errors included) and of every webhook's body. */
function responseRoots(): Schema[] {
  const roots: Schema[] = [];
  const add = (response: Schema) => {
    const ref = response.$ref as string | undefined;
    const resolved = ref ? spec.components.responses[ref.split('/').pop()!] : response;
    const content = (resolved.content ?? {}) as Record<string, { schema?: Schema }>;
    for (const media of Object.values(content)) if (media.schema) roots.push(media.schema);
  };
  for (const item of Object.values(spec.paths)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses ?? {})) add(response);
    }
  }
  for (const hook of Object.values(spec.webhooks)) roots.push(hook.post.requestBody.content['application/json'].schema);
  return roots;
}

/** Whether a schema describes an object (its properties, or a composition of objects). */
function isObject(schema: Schema): boolean {
  const [, resolved] = resolve(schema);
  return resolved.type === 'object' || resolved.properties !== undefined || (resolved.allOf ?? []).some(isObject);
}

/**
 * Walks every schema reachable from responses, calling `visit` with each object schema's path (a
 * component's name, then its properties) and whether it is a member of an `allOf` (whose closing
 * belongs to the composition, not to each member).
 */
function walkResponseSchemas(visit: (path: string, schema: Schema, inAllOf: boolean) => void): void {
  const seen = new Set<string>();
  const walk = (schema: Schema, path: string, inAllOf: boolean) => {
    const [name, resolved] = resolve(schema);
    if (name) {
      const key = `${name}:${inAllOf}`;
      if (seen.has(key)) return;
      seen.add(key);
      path = name;
    }
    if (resolved.properties || resolved.allOf?.some((member) => isObject(member))) visit(path, resolved, inAllOf);
    for (const [property, child] of Object.entries(resolved.properties ?? {})) walk(child, `${path}.${property}`, false);
    for (const member of resolved.allOf ?? []) walk(member, path, true);
    for (const member of [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])]) walk(member, path, false);
    if (resolved.items) walk(resolved.items, `${path}[]`, false);
    if (typeof resolved.additionalProperties === 'object') walk(resolved.additionalProperties, `${path}{}`, false);
  };
  for (const root of responseRoots()) walk(root, '(response)', false);
}

describe('response shapes', () => {
  it('closes every object a response can hold, so that response validation refuses a property the spec lacks', () => {
    const open: string[] = [];
    walkResponseSchemas((path, schema, inAllOf) => {
      // A member of an allOf is closed by its composition; a oneOf is as closed as its members are.
      if (inAllOf || schema.oneOf) return;
      const closed = schema.allOf ? schema.unevaluatedProperties === false : schema.additionalProperties !== undefined;
      if (!closed) open.push(path);
    });
    expect(open, 'object schemas of responses that accept any property').to.deep.equal([]);
  });

  it('leaves a response property optional only where the server leaves it out, and says why', () => {
    const optional = new Set<string>();
    walkResponseSchemas((path, schema) => {
      const required = new Set(schema.required ?? []);
      for (const property of Object.keys(schema.properties ?? {})) {
        if (!required.has(property)) optional.add(`${path}.${property}`);
      }
    });
    // Fields every object of a composition has are required by the composition's members.
    const unexplained = [...optional].filter((path) => !(path in SOMETIMES_ABSENT));
    expect(unexplained, 'optional response properties without a reason in SOMETIMES_ABSENT').to.deep.equal([]);
    const stale = Object.keys(SOMETIMES_ABSENT).filter((path) => !optional.has(path));
    expect(stale, 'SOMETIMES_ABSENT entries that are no longer optional response properties').to.deep.equal([]);
  });

  it('refuses an unknown property inside a composition as well as in a plain object, as the validator reads the spec', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ components: spec.components }, 'spec');
    const check = (name: string, value: unknown) => ajv.validate({ $ref: `spec#/components/schemas/${name}` }, value);
    const event = {
      id: 'evt_1NqH2f3Kp9', object: 'event', created: 1795526875, livemode: false, api_version: '2026-01-01',
      pending_webhooks: 0, request: { id: null, idempotency_key: null }, type: 'customer.deleted',
      data: {
        object: {
          id: 'cus_1', object: 'customer', created: 1795526875, livemode: false, email: 'jenny@example.com', name: null,
          description: null, phone: null, metadata: {},
          invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
          address: null, balance: 0, currency: null, default_source: null, delinquent: false, discount: null,
          invoice_prefix: '0A1B2C3D', next_invoice_sequence: 1, preferred_locales: [], shipping: null, tax_exempt: 'none',
          test_clock: null,
        },
      },
    };
    expect(check('CustomerDeletedEvent', event), JSON.stringify(ajv.errors)).to.equal(true);
    expect(check('CustomerDeletedEvent', { ...event, stray: 1 }), 'an event with a property its schema lacks').to.equal(false);
    expect(check('ErrorResponse', { error: { type: 'api_error', code: 'internal_error', message: 'm', request_id: 'r', stray: 1 } })).to.equal(false);
    expect(check('ErrorResponse', { error: { type: 'api_error', code: 'internal_error', message: 'm', request_id: 'r' } })).to.equal(true);
  });
});
