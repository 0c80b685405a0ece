import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import express from 'express';
import { stringify } from 'yaml';
import { createWebhookHandler, type PaymentsEvent } from '../../sdk/src/node.js';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { deref, loadSpec, type Schema, type Spec } from '../helpers/spec-walk.js';
import { useTestServer } from '../helpers/test-server.js';
import { CONSUMER_TSCONFIG, createTypeScriptProject, REPO_DIR, typecheck, type TypeScriptProject } from './typescript-project.js';

/**
 * The SDK's event union (sdk/src/generated/events.ts, written from the spec's `webhooks` by
 * scripts/generate-sdk-events.mjs) as a consumer compiles it, and as a live server's deliveries
 * fill it. The consumer's sources are partly written from the spec, so they follow it.
 */

/** What the spec says of one webhook: its event type, the `object` of its `data.object`, and whether it has `previous_attributes`. */
interface SpecEvent {
  type: string;
  objectKind: string;
  hasPreviousAttributes: boolean;
}

/** Every webhook of the spec, in its order, read through the body schema's `allOf` parts. */
function specEvents(spec: Spec): SpecEvent[] {
  return Object.entries(spec.webhooks as Record<string, Schema>).map(([type, item]) => {
    const body = deref(spec, item.post.requestBody.content['application/json'].schema);
    const parts = [body, ...((body.allOf ?? []) as Schema[]).map((part) => deref(spec, part))];
    const data = parts.map((part) => part.properties?.data).find(Boolean);
    if (!data) throw new Error(`webhooks.${type}: no data in its body schema`);
    const objectKind = deref(spec, data.properties.object).properties?.object?.const;
    if (typeof objectKind !== 'string') throw new Error(`webhooks.${type}: data.object has no \`object\` const`);
    return { type, objectKind, hasPreviousAttributes: 'previous_attributes' in data.properties };
  });
}

const EVENTS = specEvents(loadSpec());
const literals = (types: string[]) => types.map((type) => `'${type}'`).join(' | ');

/** Narrowing by `type`, through both entries, `verifyWebhook` and the handler's callback: must compile. */
const NARROWING = `
import { expectTypeOf } from 'expect-type';
import type { Charge, Customer, PaymentIntent, PaymentsEvent, PaymentsEventOf, Refund } from '@payments-api/sdk';
import { createWebhookHandler, verifyWebhook, type PaymentsEvent as NodeEntryEvent } from '@payments-api/sdk/node';

declare const event: PaymentsEvent;
if (event.type === 'charge.succeeded') expectTypeOf(event.data.object).toEqualTypeOf<Charge>();
if (event.type === 'customer.deleted') expectTypeOf(event.data.object).toEqualTypeOf<Customer>();
if (event.type === 'payment_intent.canceled') expectTypeOf(event.data.object).toEqualTypeOf<PaymentIntent>();
if (event.type === 'charge.updated') {
  expectTypeOf(event.data.previous_attributes).toEqualTypeOf<{ [key: string]: unknown } | undefined>();
}
// What every event's object has needs no narrowing.
expectTypeOf(event.data.object.id).toEqualTypeOf<string>();
expectTypeOf<PaymentsEventOf<'charge.succeeded'>['data']['object']>().toEqualTypeOf<Charge>();
expectTypeOf<NodeEntryEvent>().toEqualTypeOf<PaymentsEvent>();
expectTypeOf(verifyWebhook('{}', 't=1,v1=00', 'whsec_x')).toEqualTypeOf<PaymentsEvent>();
createWebhookHandler({
  secret: 'whsec_x',
  onEvent: (received) => {
    expectTypeOf(received).toEqualTypeOf<PaymentsEvent>();
    if (received.type === 'refund.created') expectTypeOf(received.data.object).toEqualTypeOf<Refund>();
  },
});
`;

/** A switch over the given event types with a `never` check, each case's object checked against the spec. */
function exhaustiveSwitch(name: string, events: SpecEvent[]): string {
  const cases = events.map(
    ({ type, objectKind }) => `    case '${type}':
      expectTypeOf(event.data.object.object).toEqualTypeOf<'${objectKind}'>();
      return event.data.object.id;`,
  );
  return `
export function ${name}(event: PaymentsEvent): string {
  switch (event.type) {
${cases.join('\n')}
    default: {
      const unhandled: never = event; // error TS2322 when a case is missing
      return unhandled;
    }
  }
}
`;
}

/** The union is exactly the spec's webhooks, each one's object as the spec says. Must compile. */
const EXHAUSTIVE = `
import { expectTypeOf } from 'expect-type';
import type { PaymentsEvent, PaymentsEventOf, PaymentsEventType } from '@payments-api/sdk';

expectTypeOf<PaymentsEventType>().toEqualTypeOf<${literals(EVENTS.map((event) => event.type))}>();
${exhaustiveSwitch('objectIdOf', EVENTS).replace(' // error TS2322 when a case is missing', '')}
type WithPreviousAttributes = {
  [T in PaymentsEventType]: 'previous_attributes' extends keyof PaymentsEventOf<T>['data'] ? T : never;
}[PaymentsEventType];
expectTypeOf<WithPreviousAttributes>().toEqualTypeOf<${literals(EVENTS.filter((event) => event.hasPreviousAttributes).map((event) => event.type))}>();
`;

/** Mistakes a consumer can make; each line marked `// error TSnnnn` must fail with that code, and nothing else may. */
const MISTAKES = `
import type { PaymentsEvent, PaymentsEventOf } from '@payments-api/sdk';
import { createWebhookHandler } from '@payments-api/sdk/node';

declare const event: PaymentsEvent;
export const amount = event.data.object.amount; // error TS2339
if (event.type === 'charge.succeeded') void event.data.previous_attributes; // error TS2339
if (event.type === 'customer.deleted') void event.data.object.amount; // error TS2339
export type Misspelled = PaymentsEventOf<'charge.succeded'>; // error TS2344
createWebhookHandler({ secret: 'whsec_x', onEvent: (received) => received.data.object.amount }); // error TS2339
${exhaustiveSwitch('forgetsOne', EVENTS.filter((event) => event.type !== 'customer.deleted')).replace(/^.*expectTypeOf.*\n/gm, '')}
`;

/** `file:line code` for each line of `source` marked `// error TSnnnn`. */
function expectedErrors(file: string, source: string): string[] {
  return source.split('\n').flatMap((line, index) => {
    const code = /\/\/ error (TS\d+)/.exec(line)?.[1];
    return code ? [`${file}:${index + 1} ${code}`] : [];
  });
}

/** tsc's errors in one file of the project, as `file:line code`. */
function errorsIn(diagnostics: string, file: string): string[] {
  return [...diagnostics.matchAll(/^(.*?)\((\d+),\d+\): error (TS\d+):/gm)]
    .filter((match) => path.basename(match[1]) === file)
    .map((match) => `${file}:${match[2]} ${match[3]}`);
}

describe('the SDK event union, as a consumer compiles it', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(120_000);
  let project: TypeScriptProject;
  let diagnostics: string;

  before(async () => {
    project = createTypeScriptProject(
      {
        'package.json': JSON.stringify({ name: 'event-types', private: true, type: 'module' }),
        'tsconfig.json': JSON.stringify(CONSUMER_TSCONFIG),
        'narrowing.ts': NARROWING,
        'exhaustive.ts': EXHAUSTIVE,
        'mistakes.ts': MISTAKES,
      },
      { linkDependencies: true },
    );
    diagnostics = await project.typecheck();
  });
  after(() => project?.remove());

  it('narrows data.object by type, from either entry, verifyWebhook and the handler alike', () => {
    expect(errorsIn(diagnostics, 'narrowing.ts'), diagnostics).to.deep.equal([]);
  });

  it("is exactly the spec's webhooks: a switch over them passes a never check, and previous_attributes is where the spec puts it", () => {
    expect(errorsIn(diagnostics, 'exhaustive.ts'), diagnostics).to.deep.equal([]);
    // The spec's rule that the exhaustive file holds the types to: every `*.updated` event tells what changed.
    const updated = EVENTS.filter((event) => event.type.endsWith('.updated'));
    expect(updated).to.have.length.above(0);
    for (const event of updated) expect(event.hasPreviousAttributes, event.type).to.equal(true);
  });

  it('refuses an unnarrowed field, a missing case, a misspelled type and previous_attributes where there is none', () => {
    expect(errorsIn(diagnostics, 'mistakes.ts'), diagnostics).to.have.members(expectedErrors('mistakes.ts', MISTAKES));
    // Nothing outside the three files was reported either (an SDK source that stopped compiling).
    const elsewhere = diagnostics.split('\n').filter((line) => line && !/^\s/.test(line) && !/^\S*(narrowing|exhaustive|mistakes)\.ts\(/.test(line));
    expect(elsewhere).to.deep.equal([]);
  });
});

describe('scripts/generate-sdk-events.mjs', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-events-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs the generator on the project's spec changed by `change`; resolves to its exit code and stderr. */
  async function generateFrom(change: (spec: Spec) => void): Promise<{ code: number; stderr: string; wrote: boolean }> {
    const spec = loadSpec();
    change(spec);
    fs.writeFileSync(path.join(dir, 'openapi.yaml'), stringify(spec));
    const output = path.join(dir, 'events.ts');
    const script = path.join(REPO_DIR, 'scripts/generate-sdk-events.mjs');
    try {
      await promisify(execFile)(process.execPath, [script, path.join(dir, 'openapi.yaml'), output], { cwd: REPO_DIR });
      return { code: 0, stderr: '', wrote: fs.existsSync(output) };
    } catch (error) {
      const { code, stderr } = error as { code: number; stderr: string };
      return { code, stderr, wrote: fs.existsSync(output) };
    }
  }
  const bodyOf = (spec: Spec, type: string) => spec.webhooks[type].post.requestBody.content['application/json'];
  const ownPart = (spec: Spec, schema: string) => spec.components.schemas[schema].allOf[1];

  it('writes a union that compiles, with one member per webhook, from the spec as it is', async () => {
    const result = await generateFrom(() => {});
    expect(result).to.include({ code: 0, wrote: true });
    const written = fs.readFileSync(path.join(dir, 'events.ts'), 'utf8');
    expect(written.match(/^ {2}\| \w+;?$/gm)).to.have.length(EVENTS.length);
    // Its `./payments.js` is orval's file, here by a re-export.
    const payments = path.join(REPO_DIR, 'sdk/src/generated/payments.js');
    fs.writeFileSync(path.join(dir, 'payments.ts'), `export type * from ${JSON.stringify(payments)};\n`);
    // The DOM library stands for @types/node's fetch types, which this bare directory cannot see.
    const compilerOptions = { ...CONSUMER_TSCONFIG.compilerOptions, lib: ['ES2023', 'DOM'], types: [], paths: {} };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
    expect(await typecheck(dir)).to.equal('');
  });

  for (const [title, change, message] of [
    ['a body that is not a $ref', (spec: Spec) => (bodyOf(spec, 'charge.succeeded').schema = { type: 'object' }), /webhooks\.charge\.succeeded.*expected a \$ref/],
    ['a $ref to no schema', (spec: Spec) => (bodyOf(spec, 'charge.succeeded').schema.$ref = '#/components/schemas/Missing'), /Missing does not exist/],
    ['a schema without a type const', (spec: Spec) => delete ownPart(spec, 'ChargeSucceededEvent').properties.type.const, /ChargeSucceededEvent has no `type` const/],
    ['a type const that is not the webhook name', (spec: Spec) => (ownPart(spec, 'ChargeSucceededEvent').properties.type.const = 'charge.failed'), /pins `type` to "charge.failed", not "charge.succeeded"/],
  ] as const) {
    it(`refuses ${title}: exit 1, a message naming it, nothing written`, async () => {
      const result = await generateFrom(change);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.match(message);
      expect(result.wrote).to.equal(false);
    });
  }
});

forEachDatabase('SDK webhook handler: delivered events, narrowed', (engine) => {
  const server = useTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: [0.05] } });
  let consumer: Server;
  let handled: PaymentsEvent[];
  let chargedAmounts: number[];
  let changedCustomerFields: string[];

  beforeEach(async () => {
    handled = [];
    chargedAmounts = [];
    changedCustomerFields = [];
    let secret = '';
    const app = express();
    app.post(
      '/webhooks/payments',
      createWebhookHandler({
        get secret() {
          return secret;
        },
        onEvent: (event) => {
          handled.push(event);
          // Fields only one event type has, read after narrowing: what a consumer writes.
          if (event.type === 'charge.succeeded') chargedAmounts.push(event.data.object.amount);
          if (event.type === 'customer.updated') changedCustomerFields.push(...Object.keys(event.data.previous_attributes ?? {}));
        },
      }),
    );
    consumer = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const url = `http://127.0.0.1:${(consumer.address() as AddressInfo).port}/webhooks/payments`;
    secret = (await server.api.post('/v1/webhook_endpoints', { url, enabled_events: ['*'] })).body.secret;
  });
  afterEach(async () => {
    consumer.closeAllConnections();
    await new Promise<void>((resolve) => consumer.close(() => resolve()));
  });

  it("hands over every event the API recorded, each a member of the union with the spec's object", async () => {
    const { api } = server;
    const customer = await aCustomer(api);
    await api.patch(`/v1/customers/${customer.id}`, { name: 'Jenny R.' });
    const charge = await aCharge(api, { customer: customer.id, amount: 1234 });
    const refund = (await api.post('/v1/refunds', { charge: charge.id, amount: 100 })).body;
    const intent = (await api.post('/v1/payment_intents', { amount: 800, currency: 'usd' })).body;
    await api.post(`/v1/payment_intents/${intent.id}/cancel`, {});
    await api.delete(`/v1/customers/${customer.id}`);

    const recorded = (await api.get('/v1/events?limit=100')).body.data as Array<{ id: string }>;
    expect(recorded.length).to.be.at.least(8);
    await eventually(() => expect(handled.map((event) => event.id)).to.have.members(recorded.map((event) => event.id)));

    const objectKinds = new Map(EVENTS.map((event) => [event.type, event.objectKind]));
    // A charge is made through a payment intent of its own, which has its events too.
    const created = { customer: [customer.id], charge: [charge.id], refund: [refund.id], payment_intent: [intent.id, charge.payment_intent] };
    for (const event of handled) {
      expect(objectKinds.has(event.type), event.type).to.equal(true);
      expect(event.data.object.object, event.type).to.equal(objectKinds.get(event.type));
      expect(created[event.data.object.object as keyof typeof created], event.type).to.include(event.data.object.id);
    }
    expect(handled.map((event) => event.type)).to.include.members([
      'customer.created', 'customer.updated', 'customer.deleted', 'charge.succeeded', 'refund.created',
      'payment_intent.created', 'payment_intent.canceled',
    ]);
    expect(chargedAmounts).to.deep.equal([1234]);
    expect(changedCustomerFields).to.include('name');
  });
});
