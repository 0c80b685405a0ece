import { expect } from 'chai';
import { loadSpec, type SpecOperation } from '../../src/operations/spec.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { aCharge, aCustomer, aUser, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { aClientCertificate } from '../helpers/test-certificates.js';
import { ADMIN_AUTHORIZATION, useTestServer } from '../helpers/test-server.js';

const MINUTE_MS = 60_000;
const ENDPOINT = { url: 'https://hooks.example.com/payments', enabled_events: ['*'] };

function idsOf(res: ApiResponse): string[] {
  return res.body.data.map((o: { id: string }) => o.id);
}

/** The operationIds of the spec's operations that take the `created` filter. */
function operationsWithCreated(): string[] {
  const operations: string[] = [];
  for (const item of Object.values(loadSpec().paths)) {
    for (const operation of Object.values(item) as Array<SpecOperation & { parameters?: Array<{ $ref?: string }> }>) {
      if (operation?.parameters?.some((p) => p.$ref === '#/components/parameters/Created')) operations.push(operation.operationId);
    }
  }
  return operations;
}

forEachDatabase('list filters', (engine) => {
  const server = useTestServer(engine);

  /** A list page that must succeed. */
  async function list(path: string, api = server.api): Promise<ApiResponse> {
    const res = await api.get(path);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(200);
    expect(res.body.object).to.equal('list');
    return res;
  }

  const ids = async (path: string) => idsOf(await list(path));

  /** Makes `count` objects one minute apart, oldest first. */
  async function minuteApart<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
    const made: T[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0) server.clock.advance(MINUTE_MS);
      made.push(await make(i));
    }
    return made;
  }

  /** Five customers a minute apart, oldest first (`c[0]`), and their creation times. */
  async function fiveCustomers() {
    const c = await minuteApart(5, (i) => aCustomer(server.api, { email: `c${i}@example.com` }));
    return { c: c.map((customer) => customer.id as string), t: c.map((customer) => customer.created as number) };
  }

  describe('created on listCustomers', () => {
    it('keeps one exact second, or the range that gt, gte, lt and lte bound', async () => {
      const { c, t } = await fiveCustomers();
      expect(t[1] - t[0]).to.equal(60);
      expect(await ids(`/v1/customers?created=${t[2]}`)).to.deep.equal([c[2]]);
      expect(await ids(`/v1/customers?created[gte]=${t[2]}`)).to.deep.equal([c[4], c[3], c[2]]);
      expect(await ids(`/v1/customers?created[gt]=${t[2]}`)).to.deep.equal([c[4], c[3]]);
      expect(await ids(`/v1/customers?created[lt]=${t[2]}`)).to.deep.equal([c[1], c[0]]);
      expect(await ids(`/v1/customers?created[lte]=${t[2]}`)).to.deep.equal([c[2], c[1], c[0]]);
      expect(await ids(`/v1/customers?created[gte]=${t[1]}&created[lt]=${t[4]}`)).to.deep.equal([c[3], c[2], c[1]]);
      expect(await ids(`/v1/customers?created[gt]=${t[0]}&created[lte]=${t[3]}`)).to.deep.equal([c[3], c[2], c[1]]);
      expect(await ids(`/v1/customers?created[gt]=${t[4]}`)).to.deep.equal([]);
      expect(await ids(`/v1/customers?created=${t[0] + 1}`)).to.deep.equal([]);
    });

    it('keeps every object made in the same second, newest first', async () => {
      const before = await aCustomer(server.api);
      server.clock.advance(MINUTE_MS);
      const a = await aCustomer(server.api);
      const b = await aCustomer(server.api);
      expect(a.created).to.equal(b.created);
      expect(await ids(`/v1/customers?created=${a.created}`)).to.deep.equal([b.id, a.id]);
      expect(await ids(`/v1/customers?created[lt]=${a.created}`)).to.deep.equal([before.id]);
    });

    it('pages within the range: has_more and both cursors see only what is in it', async () => {
      const { c, t } = await fiveCustomers();
      const range = `created[gte]=${t[1]}&created[lte]=${t[3]}`;
      const first = await list(`/v1/customers?${range}&limit=2`);
      expect(idsOf(first)).to.deep.equal([c[3], c[2]]);
      expect(first.body.has_more).to.equal(true);
      // c[0] is older than c[1] but out of the range: the last page says there is no more.
      const last = await list(`/v1/customers?${range}&limit=2&starting_after=${c[2]}`);
      expect(idsOf(last)).to.deep.equal([c[1]]);
      expect(last.body.has_more).to.equal(false);
      // c[4] is newer than c[3] but out of the range: paging back ends at c[3].
      const back = await list(`/v1/customers?${range}&limit=2&ending_before=${c[1]}`);
      expect(idsOf(back)).to.deep.equal([c[3], c[2]]);
      expect(back.body.has_more).to.equal(false);
    });

    it('pages on from a cursor that is out of the range, from its position', async () => {
      const { c, t } = await fiveCustomers();
      expect(await ids(`/v1/customers?created[lte]=${t[2]}&starting_after=${c[4]}`)).to.deep.equal([c[2], c[1], c[0]]);
      expect(await ids(`/v1/customers?created[lte]=${t[2]}&starting_after=${c[1]}`)).to.deep.equal([c[0]]);
    });

    it('combines with email, and with pagination on both', async () => {
      const made = await minuteApart(4, (i) => aCustomer(server.api, { email: i % 2 === 0 ? 'even@example.com' : 'odd@example.com' }));
      const [e0, , e2] = made;
      const query = `email=even%40example.com&created[gte]=${made[1].created}`;
      expect(await ids(`/v1/customers?${query}`)).to.deep.equal([e2.id]);
      const all = `email=even%40example.com&created[lte]=${made[3].created}`;
      const page = await list(`/v1/customers?${all}&limit=1`);
      expect(idsOf(page)).to.deep.equal([e2.id]);
      expect(page.body.has_more).to.equal(true);
      const next = await list(`/v1/customers?${all}&limit=1&starting_after=${e2.id}`);
      expect(idsOf(next)).to.deep.equal([e0.id]);
      expect(next.body.has_more).to.equal(false);
    });

    it("never shows another account's objects in the range", async () => {
      const { t } = await fiveCustomers();
      expect(await ids(`/v1/customers?created[gte]=${t[0]}`)).to.have.length(5);
      expect(idsOf(await list(`/v1/customers?created[gte]=${t[0]}`, server.otherApi))).to.deep.equal([]);
    });
  });

  describe('created on other lists', () => {
    it('events: with types, page by page', async () => {
      const later = () => server.clock.advance(MINUTE_MS);
      const c0 = await aCustomer(server.api);
      later();
      const u1 = await aUser(server.api, { email: 'u1@example.com' });
      later();
      await server.api.patch(`/v1/customers/${c0.id}`, { name: 'Changed' });
      later();
      const u3 = await aUser(server.api, { email: 'u3@example.com' });
      later();
      const c4 = await aCustomer(server.api);
      const described = async (query: string) =>
        (await list(`/v1/events?${query}`)).body.data.map((e: any) => `${e.type} ${e.data.object.id}`);
      const query = `types[]=customer.created&types[]=user.created&created[gte]=${u1.created}`;
      expect(await described(query)).to.deep.equal([`customer.created ${c4.id}`, `user.created ${u3.id}`, `user.created ${u1.id}`]);
      const first = await list(`/v1/events?${query}&limit=2`);
      expect(first.body.has_more).to.equal(true);
      const rest = await list(`/v1/events?${query}&limit=2&starting_after=${idsOf(first)[1]}`);
      expect(rest.body.data.map((e: any) => e.data.object.id)).to.deep.equal([u1.id]);
      expect(rest.body.has_more).to.equal(false);
      expect(await described(`created[lt]=${u1.created}`)).to.deep.equal([`customer.created ${c0.id}`]);
      expect(await described(`type=user.created&created[lte]=${u1.created}`)).to.deep.equal([`user.created ${u1.id}`]);
      expect(await described(`types[]=customer.updated&created=${u1.created + 60}`)).to.deep.equal([`customer.updated ${c0.id}`]);
    });

    it('refunds: with charge, page by page', async () => {
      const [charge, other] = [await aCharge(server.api), await aCharge(server.api)];
      const refunds = await minuteApart(4, async (i) => {
        const res = await server.api.post('/v1/refunds', { charge: i === 1 ? other.id : charge.id, amount: 100 });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body;
      });
      const [r0, , r2, r3] = refunds;
      const query = `charge=${charge.id}&created[lt]=${r3.created}`;
      expect(await ids(`/v1/refunds?${query}`)).to.deep.equal([r2.id, r0.id]);
      const first = await list(`/v1/refunds?${query}&limit=1`);
      expect(idsOf(first)).to.deep.equal([r2.id]);
      expect(first.body.has_more).to.equal(true);
      const next = await list(`/v1/refunds?${query}&limit=1&starting_after=${r2.id}`);
      expect(idsOf(next)).to.deep.equal([r0.id]);
      expect(next.body.has_more).to.equal(false);
      expect(await ids(`/v1/refunds?created=${refunds[1].created}`)).to.deep.equal([refunds[1].id]);
    });

    it('webhook endpoints: page by page', async () => {
      const endpoints = await minuteApart(3, async () => {
        const res = await server.api.post('/v1/webhook_endpoints', ENDPOINT);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body;
      });
      const [w0, w1, w2] = endpoints;
      const query = `created[gt]=${w0.created}&limit=1`;
      const first = await list(`/v1/webhook_endpoints?${query}`);
      expect(idsOf(first)).to.deep.equal([w2.id]);
      expect(first.body.has_more).to.equal(true);
      const next = await list(`/v1/webhook_endpoints?${query}&starting_after=${w2.id}`);
      expect(idsOf(next)).to.deep.equal([w1.id]);
      expect(next.body.has_more).to.equal(false);
      expect(await ids(`/v1/webhook_endpoints?created[lte]=${w1.created}`)).to.deep.equal([w1.id, w0.id]);
    });

    it('users: one exact second, and a range paged back', async () => {
      const users = await minuteApart(4, (i) => aUser(server.api, { email: `u${i}@example.com` }));
      const [u0, u1, u2, u3] = users;
      expect(await ids(`/v1/users?created=${u1.created}`)).to.deep.equal([u1.id]);
      expect(await ids(`/v1/users?created[lte]=${u2.created}`)).to.deep.equal([u2.id, u1.id, u0.id]);
      const back = await list(`/v1/users?created[lte]=${u2.created}&ending_before=${u0.id}&limit=1`);
      expect(idsOf(back)).to.deep.equal([u1.id]);
      expect(back.body.has_more).to.equal(true);
      expect(await ids(`/v1/users?created[lte]=${u2.created}&ending_before=${u1.id}`)).to.deep.equal([u2.id]);
      expect(await ids(`/v1/users?created[gt]=${u2.created}`)).to.deep.equal([u3.id]);
    });
  });

  describe('created on every list operation', () => {
    const admin = () => new ApiClient(server.url);
    const adminHeaders = { headers: { Authorization: ADMIN_AUTHORIZATION } };

    /** Makes, at the current time, at least one object of every list (the charge, user and endpoint are shared). */
    async function oneOfEach(shared: { customer: string; charge: string; user: string }, round: number) {
      const account = server.accountIds.first;
      const post = async (api: ApiClient, path: string, body?: unknown, options = {}) => {
        const res = await api.post(path, body, options);
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(200);
        return res.body;
      };
      await aCustomer(server.api, { email: `round${round}@example.com` });
      await aCharge(server.api, { customer: shared.customer });
      await post(server.api, '/v1/refunds', { charge: shared.charge, amount: 100 });
      await post(server.api, '/v1/payment_intents', { amount: 1000, currency: 'usd' });
      await post(server.api, '/v1/setup_intents', {});
      const card = await post(server.api, '/v1/payment_methods', { type: 'card', card: { token: 'tok_visa' } });
      await post(server.api, `/v1/payment_methods/${card.id}/attach`, { customer: shared.customer });
      await aUser(server.api, { email: `round${round}@example.com` });
      await post(server.api, `/v1/users/${shared.user}/orders`, { amount: 1500, currency: 'usd' });
      await post(server.api, '/v1/webhook_endpoints', ENDPOINT);
      await post(admin(), `/admin/accounts/${account}/api_keys`, {}, adminHeaders);
      await post(admin(), `/admin/accounts/${account}/oauth_clients`, { name: `round ${round}` }, adminHeaders);
      await post(admin(), `/admin/accounts/${account}/signing_keys`, {}, adminHeaders);
      const certificate = await aClientCertificate(`list filters ${round}`);
      await post(admin(), `/admin/accounts/${account}/client_certificates`, { certificate }, adminHeaders);
    }

    it('keeps only the objects in the range, on every list the spec declares it on', async function () {
      // Two rounds of one object of each of twenty kinds, then four reads of each list: each
      // operation's first call compiles its request and response schemas in the validator.
      this.timeout(60_000);
      const account = server.accountIds.first;
      // An endpoint for every event, made first: each later event has a delivery.
      await server.api.post('/v1/webhook_endpoints', ENDPOINT);
      const customer = (await aCustomer(server.api)).id;
      const charge = (await aCharge(server.api, { customer })).id;
      const user = (await aUser(server.api)).id;
      const shared = { customer, charge, user };
      await oneOfEach(shared, 0);
      server.clock.advance(MINUTE_MS);
      const later = Math.floor(server.clock.nowMs() / 1000);
      await oneOfEach(shared, 1);

      // The request log first, its entries written: reads of it are not logged, so it holds still
      // while it is read, but every other list's reads add to it.
      await server.flushRequestLogs();
      const lists: Record<string, { path: string; admin?: true }> = {
        listRequestLogs: { path: '/v1/request_logs' },
        listCustomers: { path: '/v1/customers' },
        listCustomerCharges: { path: `/v1/customers/${customer}/charges` },
        listCharges: { path: '/v1/charges' },
        listChargeRefunds: { path: `/v1/charges/${charge}/refunds` },
        listRefunds: { path: '/v1/refunds' },
        listPaymentIntents: { path: '/v1/payment_intents' },
        listSetupIntents: { path: '/v1/setup_intents' },
        listPaymentMethods: { path: '/v1/payment_methods' },
        listCustomerPaymentMethods: { path: `/v1/customers/${customer}/payment_methods` },
        listUsers: { path: '/v1/users' },
        listUserOrders: { path: `/v1/users/${user}/orders` },
        listEvents: { path: '/v1/events' },
        listWebhookEndpoints: { path: '/v1/webhook_endpoints' },
        listWebhookDeliveries: { path: '/v1/webhook_deliveries' },
        listApiKeys: { path: '/v1/api_keys' },
        listAccountApiKeys: { path: `/admin/accounts/${account}/api_keys`, admin: true },
        listAccountOAuthClients: { path: `/admin/accounts/${account}/oauth_clients`, admin: true },
        listAccountSigningKeys: { path: `/admin/accounts/${account}/signing_keys`, admin: true },
        listAccountClientCertificates: { path: `/admin/accounts/${account}/client_certificates`, admin: true },
      };
      expect(Object.keys(lists).sort()).to.deep.equal(operationsWithCreated().sort());

      for (const [operationId, { path, admin: asAdmin }] of Object.entries(lists)) {
        const read = async (query: string) => {
          const res = asAdmin ? await admin().get(`${path}?${query}`, adminHeaders) : await server.api.get(`${path}?${query}`);
          expect(res.status, `${operationId}: ${JSON.stringify(res.body)}`).to.equal(200);
          return res.body.data as Array<{ id: string; created: number }>;
        };
        const all = await read('limit=100');
        const older = await read(`limit=100&created[lt]=${later}`);
        const newer = await read(`limit=100&created[gte]=${later}`);
        expect(older, `${operationId} before`).to.have.length.above(0);
        expect(newer, `${operationId} after`).to.have.length.above(0);
        expect(older.every((o) => o.created < later), `${operationId} before`).to.equal(true);
        expect(newer.every((o) => o.created >= later), `${operationId} after`).to.equal(true);
        expect([...newer, ...older].map((o) => o.id), operationId).to.deep.equal(all.map((o) => o.id));
      }
    });
  });

  describe('types on listEvents', () => {
    /** A customer.created, a user.created and a customer.updated event, oldest first. */
    async function threeEvents() {
      const customer = await aCustomer(server.api);
      const user = await aUser(server.api);
      await server.api.patch(`/v1/customers/${customer.id}`, { name: 'Changed' });
      return { customer, user };
    }
    const typesOf = async (query: string) => (await list(`/v1/events?${query}`)).body.data.map((e: any) => e.type);

    it('keeps the events of any of the types, in the list and the numbered notations', async () => {
      await threeEvents();
      const expected = ['customer.updated', 'user.created'];
      expect(await typesOf('types[]=user.created&types[]=customer.updated')).to.deep.equal(expected);
      expect(await typesOf('types[0]=user.created&types[1]=customer.updated')).to.deep.equal(expected);
      expect(await typesOf('types[1]=customer.updated&types[0]=user.created')).to.deep.equal(expected);
      expect(await typesOf('types[]=customer.created')).to.deep.equal(['customer.created']);
      expect(await typesOf('types=customer.created')).to.deep.equal(['customer.created']);
      expect(await typesOf('types[]=user.created&types[]=user.created')).to.deep.equal(['user.created']);
      expect(await typesOf('types[]=order.created&types[]=charge.failed')).to.deep.equal([]);
    });

    it('pages through the events of several types', async () => {
      await threeEvents();
      await aCustomer(server.api, { email: 'second@example.com' });
      const query = 'types[]=customer.created&types[]=user.created&limit=2';
      const first = await list(`/v1/events?${query}`);
      expect(first.body.data.map((e: any) => e.type)).to.deep.equal(['customer.created', 'user.created']);
      expect(first.body.has_more).to.equal(true);
      const next = await list(`/v1/events?${query}&starting_after=${idsOf(first)[1]}`);
      expect(next.body.data.map((e: any) => e.type)).to.deep.equal(['customer.created']);
      expect(next.body.has_more).to.equal(false);
    });

    it('holds type and types both when both are sent, as every filter combines', async () => {
      await threeEvents();
      expect(await typesOf('type=user.created&types[]=user.created&types[]=customer.created')).to.deep.equal(['user.created']);
      expect(await typesOf('types[0]=user.created&type=customer.created')).to.deep.equal([]);
    });

    it('lists the events about one object (object_id)', async () => {
      const customer = await aCustomer(server.api, { email: 'timeline@example.com' });
      await aCustomer(server.api, { email: 'someone-else@example.com' });
      expect((await server.api.post(`/v1/customers/${customer.id}`, { name: 'Renamed' })).status).to.equal(200);
      const about = await list(`/v1/events?object_id=${customer.id}`);
      expect(about.body.data.map((e: any) => `${e.type} ${e.data.object.id}`)).to.deep.equal([
        `customer.updated ${customer.id}`,
        `customer.created ${customer.id}`,
      ]);
    });

    it('refuses an unknown type, a keyed entry, and more than 20 types, naming them', async () => {
      expectError(await server.api.get('/v1/events?types[]=user.created&types[]=customer.exploded'), 400, 'parameter_invalid', 'types[1]');
      expectError(await server.api.get('/v1/events?types[first]=user.created'), 400, 'parameter_invalid', 'types');
      const twenty = Array.from({ length: 20 }, () => 'types[]=user.created').join('&');
      expect((await server.api.get(`/v1/events?${twenty}`)).status).to.equal(200);
      expectError(await server.api.get(`/v1/events?${twenty}&types[]=user.created`), 400, 'parameter_invalid', 'types');
    });
  });

  describe('refused created values', () => {
    const lists = ['/v1/customers', '/v1/events', '/v1/refunds', '/v1/webhook_endpoints', '/v1/users'];
    const refused: Array<[query: string, param: string]> = [
      ['created[gte]=abc', 'created[gte]'],
      ['created[lt]=1.5', 'created[lt]'],
      ['created[lte]=0x10', 'created[lte]'],
      ['created=abc', 'created'],
      ['created=', 'created'],
      ['created[gte]=1&created[gte]=2', 'created[gte]'],
      ['created[gt]=-1', 'created[gt]'],
      ['created[lte]=253402300800', 'created[lte]'],
    ];
    for (const [query, param] of refused) {
      it(`refuses ${query} on every list, naming ${param}`, async () => {
        for (const path of lists) {
          const res = await server.api.get(`${path}?${query}`);
          expectError(res, 400, 'parameter_invalid', param);
        }
      });
    }
    for (const query of ['created[bogus]=1', 'created[gte]=1&created[bogus]=1']) {
      it(`refuses ${query} on every list as unknown, naming created[bogus]`, async () => {
        for (const path of lists) expectError(await server.api.get(`${path}?${query}`), 400, 'parameter_unknown', 'created[bogus]');
      });
    }
  });
});
