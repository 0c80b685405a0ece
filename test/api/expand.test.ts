import { expect } from 'chai';
import { aCharge, aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

forEachDatabase('expand', (engine) => {
  const server = useTestServer(engine);

  /** Posts a form body written by hand, for the bracket spelling the test client does not produce (`expand[]=`). */
  async function postForm(path: string, form: string) {
    const response = await fetch(server.url + path, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${server.apiKeys.first}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: form,
    });
    return {
      status: response.status,
      body: (await response.json()) as any,
      headers: response.headers,
    };
  }

  async function customerAndCharge() {
    const customer = await aCustomer(server.api, {
      email: 'ada@example.com',
      metadata: { tier: 'gold' },
    });
    const charge = await aCharge(server.api, { customer: customer.id });
    return { customer, charge };
  }

  describe('retrieveCharge', () => {
    it('keeps the customer as an id without expand', async () => {
      const { customer, charge } = await customerAndCharge();
      const res = await server.api.get(`/v1/charges/${charge.id}`);
      expect(res.status).to.equal(200);
      expect(res.body.customer).to.equal(customer.id);
    });

    it('answers the customer object with expand[]=customer, and with expand[0]=customer', async () => {
      const { customer, charge } = await customerAndCharge();
      for (const query of ['expand[]=customer', 'expand[0]=customer', 'expand=customer']) {
        const res = await server.api.get(`/v1/charges/${charge.id}?${query}`);
        expect(res.status, `${query}: ${JSON.stringify(res.body)}`).to.equal(200);
        expect(res.body.customer, query).to.deep.equal(customer);
        expect(res.body.id).to.equal(charge.id);
      }
    });

    it('leaves a charge without a customer at null', async () => {
      const charge = await aCharge(server.api);
      const res = await server.api.get(`/v1/charges/${charge.id}?expand[]=customer`);
      expect(res.status).to.equal(200);
      expect(res.body.customer).to.equal(null);
    });

    it('expands a deleted customer to the deleted customer, as its id stays on the charge', async () => {
      const { customer, charge } = await customerAndCharge();
      expect((await server.api.delete(`/v1/customers/${customer.id}`)).status).to.equal(200);
      const res = await server.api.get(`/v1/charges/${charge.id}?expand[]=customer`);
      expect(res.status).to.equal(200);
      expect(res.body.customer).to.deep.equal({
        id: customer.id,
        object: 'customer',
        deleted: true,
      });
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.customer).to.equal(
        customer.id,
      );
    });
  });

  describe('listCharges', () => {
    it('expands every charge of the page with expand[]=data.customer', async () => {
      const first = await customerAndCharge();
      const other = await aCustomer(server.api, { email: 'grace@example.com' });
      const second = await aCharge(server.api, { customer: other.id });
      const anonymous = await aCharge(server.api);
      const res = await server.api.get('/v1/charges?expand[]=data.customer');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.map((c: any) => c.id)).to.deep.equal([
        anonymous.id,
        second.id,
        first.charge.id,
      ]);
      expect(res.body.data.map((c: any) => c.customer)).to.deep.equal([
        null,
        other,
        first.customer,
      ]);
      expect(res.body).to.include({ object: 'list', url: '/v1/charges', has_more: false });
    });

    it('costs one statement more for a page of 12 than without expand, as for a page of 1', async () => {
      const extraStatements = async (limit: number) => {
        const before = server.statementCount();
        const plain = await server.api.get(`/v1/charges?limit=${limit}`);
        const middle = server.statementCount();
        const expanded = await server.api.get(`/v1/charges?limit=${limit}&expand[]=data.customer`);
        expect(expanded.body.data).to.have.length(limit);
        expect(expanded.body.data.every((c: any) => c.customer.object === 'customer')).to.equal(
          true,
        );
        expect(expanded.body.data.map((c: any) => c.id)).to.deep.equal(
          plain.body.data.map((c: any) => c.id),
        );
        return server.statementCount() - middle - (middle - before);
      };
      for (let i = 0; i < 12; i += 1) {
        const customer = await aCustomer(server.api, { email: `c${i}@example.com` });
        await aCharge(server.api, { customer: customer.id });
      }
      expect(await extraStatements(1)).to.equal(1);
      expect(await extraStatements(12)).to.equal(1);
    });

    it('expands the charges of GET /v1/customers/{id}/charges too', async () => {
      const { customer, charge } = await customerAndCharge();
      const res = await server.api.get(
        `/v1/customers/${customer.id}/charges?expand[]=data.customer`,
      );
      expect(res.status).to.equal(200);
      expect(res.body.data).to.have.length(1);
      expect(res.body.data[0]).to.include({ id: charge.id });
      expect(res.body.data[0].customer).to.deep.equal(customer);
    });

    it('refuses expand[]=customer on a list, where the path needs data.', async () => {
      await customerAndCharge();
      const res = await server.api.get('/v1/charges?expand[]=customer');
      const error = expectError(res, 400, 'parameter_invalid', 'expand[0]');
      expect(error.message).to.equal('This property cannot be expanded (customer).');
    });
  });

  describe('createCharge and updateCharge', () => {
    it('answers the created charge with its customer for expand: ["customer"] in JSON', async () => {
      const customer = await aCustomer(server.api);
      const res = await server.api.post('/v1/charges', {
        amount: 1500,
        currency: 'usd',
        source: 'tok_visa',
        customer: customer.id,
        expand: ['customer'],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ object: 'charge', amount: 1500, status: 'succeeded' });
      expect(res.body.customer).to.deep.equal(customer);
      // Only the answer is expanded: the charge itself still refers to its customer by id.
      expect((await server.api.get(`/v1/charges/${res.body.id}`)).body.customer).to.equal(
        customer.id,
      );
    });

    it('takes expand[0]=customer and expand[]=customer in a form body', async () => {
      const customer = await aCustomer(server.api);
      const indexed = await server.api.post(
        '/v1/charges',
        {
          amount: 1500,
          currency: 'usd',
          source: 'tok_visa',
          customer: customer.id,
          expand: ['customer'],
        },
        { form: true },
      );
      expect(indexed.status, JSON.stringify(indexed.body)).to.equal(200);
      expect(indexed.body.customer).to.deep.equal(customer);
      const bracketed = await postForm(
        '/v1/charges',
        `amount=1500&currency=usd&source=tok_visa&customer=${customer.id}&expand[]=customer`,
      );
      expect(bracketed.status, JSON.stringify(bracketed.body)).to.equal(200);
      expect(bracketed.body.customer).to.deep.equal(customer);
    });

    it('refuses a path that cannot be expanded before charging anything', async () => {
      const customer = await aCustomer(server.api);
      const res = await server.api.post('/v1/charges', {
        amount: 1500,
        currency: 'usd',
        source: 'tok_visa',
        customer: customer.id,
        expand: ['customer', 'invoice'],
      });
      const error = expectError(res, 400, 'parameter_invalid', 'expand[1]');
      expect(error.message).to.equal('This property cannot be expanded (invoice).');
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });

    it('replays the expanded answer for the same key, and refuses the key with another expand', async () => {
      const customer = await aCustomer(server.api);
      const body = {
        amount: 1500,
        currency: 'usd',
        source: 'tok_visa',
        customer: customer.id,
        expand: ['customer'],
      };
      const first = await server.api.post('/v1/charges', body, { idempotencyKey: 'order-1' });
      expect(first.status).to.equal(200);
      const replay = await server.api.post('/v1/charges', body, { idempotencyKey: 'order-1' });
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body).to.deep.equal(first.body);
      expect(replay.body.customer).to.deep.equal(customer);
      const other = await server.api.post(
        '/v1/charges',
        { ...body, expand: [] },
        { idempotencyKey: 'order-1' },
      );
      expectError(other, 400, 'idempotency_key_reused');
      expect((await server.api.get('/v1/charges')).body.data).to.have.length(1);
    });

    it('answers an update with the customer expanded, by PATCH and by POST', async () => {
      const { customer, charge } = await customerAndCharge();
      const patched = await server.api.patch(`/v1/charges/${charge.id}`, {
        description: 'Order 6735',
        expand: ['customer'],
      });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body).to.include({ description: 'Order 6735' });
      expect(patched.body.customer).to.deep.equal(customer);
      const posted = await postForm(
        `/v1/charges/${charge.id}`,
        'description=Order%206736&expand[0]=customer',
      );
      expect(posted.status, JSON.stringify(posted.body)).to.equal(200);
      expect(posted.body).to.include({ description: 'Order 6736' });
      expect(posted.body.customer).to.deep.equal(customer);
    });
  });

  describe('refunds', () => {
    it('answers a refund with its charge, as it is after the refund, for expand[]=charge', async () => {
      const { charge } = await customerAndCharge();
      const res = await postForm('/v1/refunds', `charge=${charge.id}&expand[]=charge`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ object: 'refund', amount: 2000 });
      expect(res.body.charge).to.deep.equal(
        (await server.api.get(`/v1/charges/${charge.id}`)).body,
      );
      expect(res.body.charge).to.include({ id: charge.id, amount_refunded: 2000, refunded: true });
    });

    it('retrieves a refund with its charge, and with the charge and its customer (charge.customer)', async () => {
      const { customer, charge } = await customerAndCharge();
      const refund = (await server.api.post('/v1/refunds', { charge: charge.id, amount: 500 }))
        .body;
      const plain = await server.api.get(`/v1/refunds/${refund.id}`);
      expect(plain.body.charge).to.equal(charge.id);
      const withCharge = await server.api.get(`/v1/refunds/${refund.id}?expand[]=charge`);
      expect(withCharge.status).to.equal(200);
      expect(withCharge.body.charge).to.include({
        id: charge.id,
        object: 'charge',
        customer: customer.id,
      });
      const nested = await server.api.get(`/v1/refunds/${refund.id}?expand[]=charge.customer`);
      expect(nested.status, JSON.stringify(nested.body)).to.equal(200);
      expect(nested.body.charge).to.include({ id: charge.id, amount_refunded: 500 });
      expect(nested.body.charge.customer).to.deep.equal(customer);
    });

    it('lists refunds with their charges and customers for expand[]=data.charge.customer', async () => {
      const { customer, charge } = await customerAndCharge();
      const anonymous = await aCharge(server.api);
      await server.api.post('/v1/refunds', { charge: charge.id, amount: 100 });
      await server.api.post('/v1/refunds', { charge: anonymous.id, amount: 100 });
      await server.api.post('/v1/refunds', { charge: charge.id, amount: 100 });
      const res = await server.api.get('/v1/refunds?expand[]=data.charge.customer');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.map((r: any) => r.charge.id)).to.deep.equal([
        charge.id,
        anonymous.id,
        charge.id,
      ]);
      expect(res.body.data.map((r: any) => r.charge.customer)).to.deep.equal([
        customer,
        null,
        customer,
      ]);
    });
  });

  describe('paths that cannot be expanded', () => {
    it('answers 400 parameter_invalid naming expand and the path, as the widely used payments API does', async () => {
      const { charge } = await customerAndCharge();
      const unknown = await server.api.get(
        `/v1/charges/${charge.id}?expand[]=customer&expand[]=foo`,
      );
      const error = expectError(unknown, 400, 'parameter_invalid', 'expand[1]');
      expect(error.message).to.equal('This property cannot be expanded (foo).');
      // A field that is not an id, and a field below a customer, which has none to expand.
      for (const path of ['amount', 'customer.email', 'data.customer']) {
        const res = await server.api.get(`/v1/charges/${charge.id}?expand[]=${path}`);
        expect(expectError(res, 400, 'parameter_invalid', 'expand[0]').message).to.equal(
          `This property cannot be expanded (${path}).`,
        );
      }
    });

    it('refuses more than 4 levels', async () => {
      const res = await server.api.get(
        '/v1/refunds?expand[]=data.charge.customer.charges.customer',
      );
      const error = expectError(res, 400, 'parameter_invalid', 'expand[0]');
      expect(error.message).to.equal(
        'You cannot expand more than 4 levels of a property (data.charge.customer.charges.customer).',
      );
    });

    it('is not accepted by events, which have nothing to expand', async () => {
      const res = await server.api.get('/v1/events?expand[]=data.customer');
      expectError(res, 400, 'parameter_unknown', 'expand');
    });
  });
});
