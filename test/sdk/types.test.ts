import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { expectTypeOf } from 'expect-type';
import * as generated from '../../sdk/src/generated/payments.js';
import * as sdk from '../../sdk/src/index.js';
import {
  autoPaginate,
  createClient,
  type Charge,
  type createChargeResponse,
  type Customer,
  type Event,
  type PaymentsClient,
} from '../../sdk/src/index.js';
import { createTypeScriptProject, REPO_DIR } from './typescript-project.js';
import { requireProcesses } from '../helpers/fast-run.js';

/**
 * The SDK's types as a consumer meets them. Each `@ts-expect-error` line is a mistake that must
 * not compile: if the SDK's types loosen and it compiles, tsc reports the directive as unused, so
 * `npm run typecheck` fails, and so does the last test here, which runs tsc on this file.
 */

const CHARGE_PAGES: Record<string, object> = {
  '': { object: 'list', url: '/v1/charges', has_more: true, data: [{ id: 'ch_3', object: 'charge' }, { id: 'ch_2', object: 'charge' }] },
  ch_2: { object: 'list', url: '/v1/charges', has_more: false, data: [{ id: 'ch_1', object: 'charge' }] },
};

/** A client whose fetch answers from memory: charge lists by cursor, anything else a 402. */
function fakeClient(requests: Request[] = []): PaymentsClient {
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    requests.push(request);
    const url = new URL(request.url);
    const page = request.method === 'GET' && url.pathname === '/v1/charges' && CHARGE_PAGES[url.searchParams.get('starting_after') ?? ''];
    if (page) return Response.json(page);
    return Response.json({ error: { type: 'card_error', code: 'card_declined', message: 'Declined.', request_id: 'req_1' } }, { status: 402 });
  };
  return createClient({ apiKey: 'sk_test_types', fetch, maxRetries: 0 });
}

describe('the SDK types, as a consumer compiles them', function () {
  this.timeout(60_000);

  it('exports the types and enums of the API but not the raw generated functions, which only throw', () => {
    // A plain copy of the namespace: a failed assertion carries its object, which mocha's parallel
    // mode strips of functions before sending, and a module namespace's cannot be deleted.
    const exported: Record<string, unknown> = { ...sdk };
    for (const [name, value] of Object.entries(generated)) {
      if (typeof value === 'function') expect(exported, name).not.to.have.property(name);
      else expect(exported, name).to.have.property(name, value);
    }
    // @ts-expect-error: a raw operation is not exported, not even through a namespace import
    void sdk.listCharges;
    expectTypeOf(sdk.ChargeStatus.succeeded).toEqualTypeOf<'succeeded'>();
    expectTypeOf<sdk.ListChargesParams>().toHaveProperty('starting_after');
  });

  it('refuses a wrong field, sent or read', async () => {
    const payments = fakeClient();
    // @ts-expect-error: `amout` is not a field of the request
    await payments.createCharge({ amount: 2000, currency: 'usd', source: 'tok_visa', amout: 1 });
    // @ts-expect-error: `amount` is a number of the currency's minor unit
    await payments.createCharge({ amount: '20.00', currency: 'usd', source: 'tok_visa' });
    const customer = await payments.retrieveCustomer('cus_1');
    if (customer.status === 200) {
      // @ts-expect-error: a customer has no `amount`
      void customer.data.amount;
    }
    expect(customer.status).to.equal(402);
  });

  it('refuses a missing required parameter', async () => {
    const payments = fakeClient();
    // @ts-expect-error: `amount` is required
    await payments.createCharge({ currency: 'usd', source: 'tok_visa' });
    // @ts-expect-error: a required parameter is not optional by being given as undefined
    await payments.createCharge({ amount: undefined, currency: 'usd', source: 'tok_visa' });
    // @ts-expect-error: the charge's id is required
    await payments.retrieveCharge();
    expectTypeOf(payments.retrieveCharge).parameter(0).toEqualTypeOf<string>();
  });

  it('refuses to read an answer as the object before its status says it is one', async () => {
    const payments = fakeClient();
    const res = await payments.createCharge({ amount: 2000, currency: 'usd', source: 'tok_visa' });
    expectTypeOf(res).toEqualTypeOf<createChargeResponse>();
    // @ts-expect-error: until narrowed, `data` may be the error envelope, which has no `amount`
    void res.data.amount;
    if (res.status === 200) expectTypeOf(res.data).toEqualTypeOf<Charge>();
    else expectTypeOf(res.data).toExtend<{ error: { code: string; message: string } }>();
    // What the types guard against: this answer is an error, not a charge.
    expect(res.status).to.equal(402);
    expect(res.data).to.have.nested.property('error.code', 'card_declined');
  });

  it('infers the items of autoPaginate from the list operation, and refuses a call that is not a list', async () => {
    const requests: Request[] = [];
    const payments = fakeClient(requests);
    const charges = autoPaginate((after) => payments.listCharges({ limit: 2, starting_after: after }));
    expectTypeOf(charges).toEqualTypeOf<AsyncGenerator<Charge, void, undefined>>();
    expectTypeOf(autoPaginate((after) => payments.listCustomers({ starting_after: after }))).toEqualTypeOf<
      AsyncGenerator<Customer, void, undefined>
    >();
    expectTypeOf(autoPaginate((after) => payments.listEvents({ starting_after: after }))).toEqualTypeOf<AsyncGenerator<Event, void, undefined>>();
    // @ts-expect-error: retrieving a charge answers a charge, not a list
    void autoPaginate(() => payments.retrieveCharge('ch_1'));

    const seen: string[] = [];
    for await (const charge of charges) seen.push(charge.id);
    expect(seen).to.deep.equal(['ch_3', 'ch_2', 'ch_1']);
    // The first page is asked for without a cursor, not with `starting_after=undefined`.
    expect(requests.map((r) => new URL(r.url).search)).to.deep.equal(['?limit=2', '?limit=2&starting_after=ch_2']);
  });

  it('leaves an optional header given as undefined out of the request', async () => {
    const requests: Request[] = [];
    const payments = fakeClient(requests);
    await payments.createCharge({ amount: 2000, currency: 'usd', source: 'tok_visa' }, { 'Idempotency-Key': undefined });
    // Not the text "undefined": the SDK makes its own key.
    expect(requests[0].headers.get('Idempotency-Key')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('holds at compile time: tsc finds nothing to report in this file', async function () {
    requireProcesses(this);
    const self = fileURLToPath(import.meta.url);
    const project = createTypeScriptProject(
      {
        'tsconfig.json': JSON.stringify({
          extends: path.join(REPO_DIR, 'tsconfig.json'),
          files: [self],
          include: [],
        }),
      },
      { linkDependencies: true },
    );
    try {
      expect(await project.typecheck()).to.equal('');
    } finally {
      project.remove();
    }
  });
});
