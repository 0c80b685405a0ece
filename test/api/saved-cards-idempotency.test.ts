import { expect } from 'chai';
import type { ApiClient, ApiResponse } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

function ok(res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** A POST of the saved-card operations, with the object it acts on made first. */
interface Case {
  operation: string;
  /** Makes what the POST acts on; answers its path, the body sent twice and another body. */
  prepare(api: ApiClient): Promise<{ path: string; body: object; other: object }>;
  /** Where the object the POST answers is read back. */
  readPath(answer: any): string;
}

async function aCard(api: ApiClient, customer?: string): Promise<any> {
  const pm = ok(
    await api.post('/v1/payment_methods', { type: 'card', card: { token: 'tok_visa' } }),
  );
  return customer ? ok(await api.post(`/v1/payment_methods/${pm.id}/attach`, { customer })) : pm;
}

const methodPath = (answer: any) => `/v1/payment_methods/${answer.id}`;
const setupPath = (answer: any) => `/v1/setup_intents/${answer.id}`;

const CASES: Case[] = [
  {
    operation: 'createPaymentMethod',
    prepare: async () => ({
      path: '/v1/payment_methods',
      body: { type: 'card', card: { token: 'tok_visa' } },
      other: { type: 'card', card: { token: 'tok_mastercard' } },
    }),
    readPath: methodPath,
  },
  {
    operation: 'updatePaymentMethod (POST)',
    prepare: async (api) => ({
      path: methodPath(await aCard(api)),
      body: { metadata: { order: '6735' } },
      other: { metadata: { order: '6736' } },
    }),
    readPath: methodPath,
  },
  {
    operation: 'attachPaymentMethod',
    prepare: async (api) => {
      const [a, b] = [await aCustomer(api), await aCustomer(api)];
      return {
        path: `${methodPath(await aCard(api))}/attach`,
        body: { customer: a.id },
        other: { customer: b.id },
      };
    },
    readPath: methodPath,
  },
  {
    operation: 'detachPaymentMethod',
    prepare: async (api) => {
      const card = await aCard(api, (await aCustomer(api)).id);
      return { path: `${methodPath(card)}/detach`, body: {}, other: { expand: ['customer'] } };
    },
    readPath: methodPath,
  },
  {
    operation: 'createSetupIntent',
    prepare: async (api) => {
      const customer = (await aCustomer(api)).id;
      return {
        path: '/v1/setup_intents',
        body: { customer, payment_method: 'pm_card_visa', confirm: true },
        other: { customer, payment_method: 'pm_card_mastercard', confirm: true },
      };
    },
    readPath: setupPath,
  },
  {
    operation: 'updateSetupIntent (POST)',
    prepare: async (api) => ({
      path: setupPath(ok(await api.post('/v1/setup_intents', {}))),
      body: { metadata: { order: '6735' }, payment_method: 'pm_card_visa' },
      other: { metadata: { order: '6736' } },
    }),
    readPath: setupPath,
  },
  {
    operation: 'confirmSetupIntent',
    prepare: async (api) => {
      const customer = (await aCustomer(api)).id;
      const intent = ok(await api.post('/v1/setup_intents', { customer }));
      return {
        path: `${setupPath(intent)}/confirm`,
        body: { payment_method: 'pm_card_visa' },
        other: { payment_method: 'pm_card_mastercard' },
      };
    },
    readPath: setupPath,
  },
  {
    operation: 'cancelSetupIntent',
    prepare: async (api) => ({
      path: `${setupPath(ok(await api.post('/v1/setup_intents', {})))}/cancel`,
      body: { cancellation_reason: 'requested_by_customer' },
      other: { cancellation_reason: 'abandoned' },
    }),
    readPath: setupPath,
  },
];

/** How many events and objects of each kind the account has: a replay or a refusal adds none. */
async function countsOf(api: ApiClient): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const list of ['/v1/events', '/v1/payment_methods', '/v1/setup_intents', '/v1/customers']) {
    counts[list] = ok(await api.get(`${list}?limit=100`)).data.length;
  }
  return counts;
}

forEachDatabase('saved cards: Idempotency-Key on every POST', (engine) => {
  // Every test reads only what its account made, so one server serves the file.
  const server = useTestServer(engine, {}, { per: 'account' });

  for (const { operation, prepare, readPath } of CASES) {
    it(`${operation}: the same key and body replay the first answer; another body is 400 idempotency_key_reused`, async () => {
      const api = server.api;
      const { path, body, other } = await prepare(api);
      const key = `saved-cards-${operation.replace(/\W+/g, '-')}`;
      const first = ok(await api.post(path, body, { idempotencyKey: key }));
      const after = await countsOf(api);
      const readBack = ok(await api.get(readPath(first)));

      for (const form of [false, true]) {
        // The same parameters as a form are the same body: the payments SDKs send forms.
        const again = await api.post(path, body, { idempotencyKey: key, form });
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(ok(again)).to.deep.equal(first);
      }
      const refused = expectError(
        await api.post(path, other, { idempotencyKey: key }),
        400,
        'idempotency_key_reused',
      );
      expect(refused.type).to.equal('idempotency_error');

      expect(await countsOf(api)).to.deep.equal(after);
      expect(ok(await api.get(readPath(first)))).to.deep.equal(readBack);
    });
  }
});
