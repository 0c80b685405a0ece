import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer, type TestServer } from '../helpers/test-server.js';

/** A response read to its exact bytes. */
async function exactly(
  server: TestServer,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(server.url + path, {
    method,
    headers: { Authorization: `Bearer ${server.apiKeys.first}`, ...init.headers },
    body: init.body,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    body: bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined,
  };
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

// Production writes answers itself (no response validation): what a client reads must be the same.
forEachDatabase('answers as production writes them', (engine) => {
  const server = useTestServer(engine, { validateResponses: false }, { per: 'suite' });

  it('answers JSON in UTF-8 with the exact length of its bytes, non-ASCII text included', async () => {
    const created = await exactly(server, 'POST', '/v1/customers', {
      body: 'name=Zo%C3%AB+%F0%9F%9A%80&email=zoe%40example.com',
      headers: FORM,
    });
    expect(created.status).to.equal(200);
    expect(created.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(Number(created.headers.get('content-length'))).to.equal(created.bytes.length);
    expect(created.body).to.deep.include({
      object: 'customer',
      name: 'Zoë 🚀',
      email: 'zoe@example.com',
    });
    const read = await exactly(server, 'GET', `/v1/customers/${created.body.id}`);
    expect(read.status).to.equal(200);
    expect(read.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(Number(read.headers.get('content-length'))).to.equal(read.bytes.length);
    expect(read.body).to.deep.equal(created.body);
    expect(read.headers.get('request-id')).to.match(/^req_/);
    expect(read.headers.get('x-content-type-options')).to.equal('nosniff');
  });

  it("replays an Idempotency-Key's answer byte for byte, saying so", async () => {
    const init = {
      body: 'amount=2000&currency=usd&source=tok_visa',
      headers: { ...FORM, 'Idempotency-Key': `replay-${engine}` },
    };
    const first = await exactly(server, 'POST', '/v1/charges', init);
    const again = await exactly(server, 'POST', '/v1/charges', init);
    expect(first.status).to.equal(200);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.bytes.equals(first.bytes)).to.equal(true);
    expect(Number(again.headers.get('content-length'))).to.equal(again.bytes.length);
  });

  it('answers a list and a deletion the same way, and errors in the envelope', async () => {
    const list = await exactly(server, 'GET', '/v1/customers?limit=1');
    expect(list.body).to.deep.include({ object: 'list', url: '/v1/customers' });
    expect(Number(list.headers.get('content-length'))).to.equal(list.bytes.length);
    const deleted = await exactly(server, 'DELETE', `/v1/customers/${list.body.data[0].id}`);
    expect(deleted.body).to.deep.equal({
      id: list.body.data[0].id,
      object: 'customer',
      deleted: true,
    });
    const missing = await exactly(server, 'GET', '/v1/customers/cus_0000000000000000missing');
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.deep.include({
      type: 'invalid_request_error',
      code: 'resource_missing',
    });
    expect(missing.headers.get('content-type')).to.match(/^application\/json/);
  });
});
