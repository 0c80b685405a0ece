import { expect } from 'chai';
import { loadSpec } from '../../src/operations/spec.js';
import { ClientTypes, SpecSchemas, compare, type Difference } from '../helpers/client-types.js';

/**
 * The objects this server shares with the widely used payments API carry every field that the
 * API's current Node client (`stripe` in node_modules) types as always present (not `?:`), as a
 * required field of our schema admitting no kind of value the client's type does not (a field of
 * a feature not offered here is `null`, which the client's type admits, and says so in the spec),
 * down through the nested objects both describe. Code written against that client then finds
 * every field it may read without a check.
 */

/** Our schema of each object, and the client's declaration file and interface for it. */
const OBJECTS = [
  { schema: 'Customer', file: 'Customers.d.ts', type: 'Customer', path: 'customer' },
  { schema: 'Charge', file: 'Charges.d.ts', type: 'Charge', path: 'charge' },
  { schema: 'Refund', file: 'Refunds.d.ts', type: 'Refund', path: 'refund' },
  {
    schema: 'PaymentIntent',
    file: 'PaymentIntents.d.ts',
    type: 'PaymentIntent',
    path: 'payment_intent',
  },
  {
    schema: 'PaymentMethod',
    file: 'PaymentMethods.d.ts',
    type: 'PaymentMethod',
    path: 'payment_method',
  },
  { schema: 'SetupIntent', file: 'SetupIntents.d.ts', type: 'SetupIntent', path: 'setup_intent' },
  {
    schema: 'WebhookEndpoint',
    file: 'WebhookEndpoints.d.ts',
    type: 'WebhookEndpoint',
    path: 'webhook_endpoint',
  },
  // Every kind of event has the fields of the client's EventBase (each kind is compared below).
  { schema: 'Event', file: 'Events.d.ts', type: 'EventBase', path: 'event' },
];

/** Where our objects differ from the client's types on purpose, each with why. */
const EXCEPTIONS: Record<string, string> = {
  'payment_intent.client_secret':
    'in the answers of API calls only, never in events (which are kept, listed and sent to webhooks)',
  'setup_intent.client_secret':
    'in the answers of API calls only, never in events (which are kept, listed and sent to webhooks)',
};

const spec = loadSpec() as unknown as {
  components: { schemas: Record<string, Record<string, unknown>> };
};
const schemas = new SpecSchemas(spec.components.schemas);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every difference of our spec's objects (and events, by kind) from the client's types. */
function differences(specSchemas: SpecSchemas, names: string[]): Difference[] {
  const found = OBJECTS.flatMap(({ schema, file, type, path }) =>
    compare(new ClientTypes(file), type, specSchemas, ref(schema), path),
  );
  // Each kind of event the client types (`ChargeSucceededEvent`: its `type` and `data.object`).
  const events = new ClientTypes('Events.d.ts');
  for (const name of names.filter((n) => n.endsWith('Event') && events.has(n))) {
    found.push(...compare(events, name, specSchemas, ref(name), name));
  }
  return found;
}

const described = (found: Difference[]) => found.map((d) => `${d.path}: ${d.problem}`);

describe("the fields the payments API's Node client types as always present", () => {
  it('are on every shared object, required, with a type the client admits', () => {
    const found = differences(schemas, Object.keys(spec.components.schemas));
    expect(described(found.filter((d) => !(d.path in EXCEPTIONS)))).to.deep.equal([]);
    // An exception that no longer differs is taken out, so the list cannot rot.
    const stale = Object.keys(EXCEPTIONS).filter((path) => !found.some((d) => d.path === path));
    expect(stale, 'exceptions that no longer apply').to.deep.equal([]);
  });

  it('compares every kind of event the client types, and names those it does not', () => {
    const events = new ClientTypes('Events.d.ts');
    const ours = Object.keys(spec.components.schemas).filter((name) =>
      /^[A-Z]\w*Event$/.test(name),
    );
    expect(ours.filter((name) => !events.has(name))).to.deep.equal([
      'UserCreatedEvent',
      'UserUpdatedEvent',
      'UserDeletedEvent',
      'OrderCreatedEvent',
      'OrderUpdatedEvent',
      'OrderDeletedEvent',
    ]);
  });

  it('are found missing, optional or mistyped when a schema lacks, relaxes or widens one', () => {
    const copy = structuredClone(spec.components.schemas) as Record<string, any>;
    delete copy.Refund.properties.customer;
    copy.Charge.required = copy.Charge.required.filter((field: string) => field !== 'amount');
    copy.Customer.properties.balance = { type: ['integer', 'null'] };
    // Nested: a charge's outcome, and the request of an event.
    delete copy.ChargeOutcome.properties.seller_message;
    copy.EventEnvelope.properties.request.properties.id = { type: 'integer' };
    const found = described(differences(new SpecSchemas(copy), Object.keys(copy)));
    expect(found).to.include.members([
      'refund.customer: missing (typed string | Customer | DeletedCustomer | null)',
      'charge.amount: not required',
      'customer.balance: admits null; typed number',
      'charge.outcome.seller_message: missing (typed string | null)',
      'event.request.id: admits number; typed string | null',
    ]);
  });
});
