import { expect } from 'chai';
import { createClient, encodeParams } from '../../sdk/src/index.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

describe('SDK rawRequest: bracket notation', () => {
  it('encodes nested objects and arrays as the API reads form fields, leaving out undefined', () => {
    const fields = encodeParams({ email: 'a@example.com', metadata: { order: '6735' }, expand: ['customer'], amount: 5, note: undefined, phone: null });
    expect([...fields]).to.deep.equal([
      ['email', 'a@example.com'],
      ['metadata[order]', '6735'],
      ['expand[0]', 'customer'],
      ['amount', '5'],
      ['phone', ''],
    ]);
  });
});

forEachDatabase('SDK rawRequest against a live server', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });

  it('sends a POST as a form body in bracket notation and a GET with a query, answering { data, status, headers }', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const created = await payments.rawRequest('POST', '/v1/customers', { email: 'raw@example.com', metadata: { order: '6735' } });
    expect(created.status).to.equal(200);
    expect(created.data).to.deep.include({ object: 'customer', email: 'raw@example.com', metadata: { order: '6735' } });
    expect(created.headers.get('request-id')).to.match(/^req_/);
    const id = (created.data as { id: string }).id;

    const listed = await payments.rawRequest('GET', '/v1/customers', new URLSearchParams({ limit: '1' }));
    expect(listed.status).to.equal(200);
    expect((listed.data as { data: Array<{ id: string }> }).data.map((customer) => customer.id)).to.deep.equal([id]);

    const deleted = await payments.rawRequest('DELETE', `/v1/customers/${id}`);
    expect(deleted.data).to.deep.equal({ id, object: 'customer', deleted: true });
  });

  it('answers an error status as data, with the envelope', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const declined = await payments.rawRequest('POST', '/v1/charges', { amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    expect(declined.status).to.equal(402);
    expect((declined.data as { error: { code: string } }).error.code).to.equal('card_declined');
  });

  it('replays by the given idempotency key, and retries a lost POST with one automatic key', async () => {
    let calls = 0;
    const keys: Array<string | null> = [];
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      keys.push(new Headers(init?.headers).get('Idempotency-Key'));
      const response = await fetch(input, init);
      // The first attempt reaches the server but its answer is "lost" on the way back.
      if (calls === 1) throw new TypeError('fetch failed: connection reset');
      return response;
    };
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url, fetch: flaky });
    const retried = await payments.rawRequest('POST', '/v1/users', { email: 'raw-retry@example.com' });
    expect(retried.status).to.equal(200);
    expect(retried.headers.get('idempotent-replayed')).to.equal('true');
    expect(keys).to.have.length(2);
    expect(keys[0]).to.be.a('string').and.equal(keys[1]);

    const params = { amount: 700, currency: 'usd', source: 'tok_visa' };
    const first = await payments.rawRequest('POST', '/v1/charges', params, { idempotencyKey: 'raw-order-1' });
    const again = await payments.rawRequest('POST', '/v1/charges', params, { idempotencyKey: 'raw-order-1' });
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.data).to.deep.equal(first.data);
    expect(keys.at(-1)).to.equal('raw-order-1');
  });

  it('refuses a full URL, which would send the credentials to another host', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    for (const path of ['https://example.com/v1/charges', '//example.com/v1/charges', 'v1/charges']) {
      const refusal = await payments.rawRequest('GET', path).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal, path).to.be.instanceOf(TypeError);
    }
  });
});
