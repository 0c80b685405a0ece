import { expect } from 'chai';
import { aCharge, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer, type TestServer } from '../helpers/test-server.js';

const CHARGE = { amount: 2000, currency: 'usd', source: 'tok_visa' };
const V1 = 'application/vnd.api.v1+json';
const V2 = 'application/vnd.api.v2+json';

/** A raw response, for requests the test client cannot send (odd bodies, content types). */
interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Sends exactly these bytes with these headers, with the first test account's key unless told otherwise. */
async function raw(
  server: TestServer,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== false) headers.Authorization = `Bearer ${server.api.apiKey}`;
  const response = await fetch(server.url + path, { method, headers, body: options.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** What a leaked stack or driver detail looks like in a body. */
const STACK_TRACE = /\n\s+at |node_modules|\.[cm]?[jt]s:\d+|<!DOCTYPE|<html/i;

/** The fields an error may carry (the spec's ErrorResponse): nothing else may leak into it. */
const ENVELOPE_FIELDS = ['type', 'code', 'message', 'param', 'request_id', 'decline_code', 'charge', 'payment_intent'];

/** An error answer as clients expect it: JSON, the envelope, the request id, and nothing internal. */
function expectCleanError(res: RawResponse): void {
  expect(res.headers.get('content-type'), res.text).to.match(/^application\/json/);
  expect(res.text).to.not.match(STACK_TRACE);
  expect(res.body?.error, res.text).to.be.an('object');
  expect(ENVELOPE_FIELDS).to.include.members(Object.keys(res.body.error));
  expect(res.body.error.type).to.be.a('string');
  expect(res.body.error.code).to.be.a('string');
  expect(res.body.error.request_id).to.equal(res.headers.get('request-id'));
}

forEachDatabase('http', (engine) => {
  const server = useTestServer(engine);

  describe('Request-Id', () => {
    it('is on every response, unique, and equal to error.request_id', async () => {
      const responses = [
        await raw(server, 'GET', '/healthz', { auth: false }),
        await raw(server, 'GET', '/v1/charges'),
        await raw(server, 'POST', '/v1/charges', { body: JSON.stringify(CHARGE), headers: { 'Content-Type': 'application/json' } }),
        await raw(server, 'GET', '/v1/charges', { auth: false }),
        await raw(server, 'GET', '/v1/charges/ch_missing'),
        await raw(server, 'GET', '/v1/charges?limit=0'),
        await raw(server, 'GET', '/nowhere'),
        await raw(server, 'DELETE', '/v1/charges'),
        await raw(server, 'GET', '/v1/charges', { headers: { Accept: V2 } }),
        await raw(server, 'POST', '/v1/charges', { body: '{', headers: { 'Content-Type': 'application/json' } }),
      ];
      const ids = responses.map((res) => res.headers.get('request-id'));
      for (const id of ids) expect(id).to.match(/^req_[0-9A-Za-z]{24}$/);
      expect(new Set(ids).size).to.equal(ids.length);
      for (const res of responses.filter((r) => r.status >= 400)) expectCleanError(res);
    });
  });

  it('sends the helmet security headers and no X-Powered-By', async () => {
    for (const res of [await raw(server, 'GET', '/v1/charges'), await raw(server, 'GET', '/nowhere')]) {
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('strict-transport-security')).to.match(/max-age=\d+/);
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('content-security-policy')).to.equal("default-src 'none';frame-ancestors 'none'");
      expect(res.headers.get('x-powered-by')).to.equal(null);
    }
  });

  describe('bodies', () => {
    it('answers 413 request_too_large to a JSON body over 1 MB, creating nothing', async () => {
      const body = JSON.stringify({ ...CHARGE, description: 'x'.repeat(1024 * 1024) });
      const res = await raw(server, 'POST', '/v1/charges', { body, headers: { 'Content-Type': 'application/json' } });
      expectCleanError(res);
      expectError(res, 413, 'request_too_large');
      expect(res.body.error.type).to.equal('invalid_request_error');
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });

    it('answers 413 request_too_large to a form body over 1 MB', async () => {
      const body = `amount=2000&currency=usd&source=tok_visa&description=${'x'.repeat(1024 * 1024)}`;
      const res = await raw(server, 'POST', '/v1/charges', { body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      expectError(res, 413, 'request_too_large');
    });

    it('reads a body just under 1 MB (and then validates it)', async () => {
      const body = JSON.stringify({ ...CHARGE, description: 'x'.repeat(1000 * 1000) });
      const res = await raw(server, 'POST', '/v1/charges', { body, headers: { 'Content-Type': 'application/json' } });
      expectError(res, 400, 'parameter_invalid', 'description');
    });

    it('answers 400 body_invalid to malformed JSON', async () => {
      const res = await raw(server, 'POST', '/v1/charges', { body: '{"amount": 2000,', headers: { 'Content-Type': 'application/json' } });
      expectCleanError(res);
      expect(expectError(res, 400, 'body_invalid').type).to.equal('invalid_request_error');
    });

    it('answers 400 body_invalid to JSON that is not an object', async () => {
      for (const body of ['[1, 2]', '"amount"', 'null']) {
        const res = await raw(server, 'POST', '/v1/charges', { body, headers: { 'Content-Type': 'application/json' } });
        expectError(res, 400, 'body_invalid');
      }
    });

    it('answers 415 unsupported_media_type to a text/plain body, or one with no content type', async () => {
      for (const headers of [{ 'Content-Type': 'text/plain' }, {} as Record<string, string>]) {
        const res = await raw(server, 'POST', '/v1/charges', { body: 'amount=2000&currency=usd&source=tok_visa', headers });
        expectCleanError(res);
        expect(expectError(res, 415, 'unsupported_media_type').type).to.equal('invalid_request_error');
      }
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });

    it('answers 415 unsupported_media_type to a charset other than UTF-8', async () => {
      const res = await raw(server, 'POST', '/v1/charges', {
        body: JSON.stringify(CHARGE),
        headers: { 'Content-Type': 'application/json; charset=latin1' },
      });
      expectError(res, 415, 'unsupported_media_type');
    });
  });

  describe('routing', () => {
    for (const path of ['/nowhere', '/v1/nowhere', '/v1/charges/ch_x/nowhere', '/charges']) {
      it(`answers 404 url_not_found for ${path}`, async () => {
        const res = await raw(server, 'GET', path);
        expectCleanError(res);
        expect(expectError(res, 404, 'url_not_found').type).to.equal('invalid_request_error');
      });
    }

    it('answers 405 method_not_allowed with an Allow header', async () => {
      const res = await raw(server, 'DELETE', '/v1/charges');
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')?.split(/,\s*/)).to.have.members(['GET', 'POST']);
    });

    it('answers GET /healthz with 200 and no credentials', async () => {
      const res = await raw(server, 'GET', '/healthz', { auth: false });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ status: 'ok' });
    });
  });

  describe('versioning', () => {
    it(`serves GET /charges with Accept: ${V1} like GET /v1/charges`, async () => {
      await aCharge(server.api);
      await aCharge(server.api, { amount: 300 });
      const viaHeader = await server.api.get('/charges?limit=5', { headers: { Accept: V1 } });
      const viaPath = await server.api.get('/v1/charges?limit=5');
      expect(viaHeader.status).to.equal(200);
      expect(viaHeader.body).to.deep.equal(viaPath.body);
      expect(viaHeader.body.data).to.have.length(2);
    });

    it(`serves POST /charges and GET /charges/{id} with Accept: ${V1}`, async () => {
      const created = await server.api.post('/charges', CHARGE, { headers: { Accept: V1 } });
      expect(created.status).to.equal(200);
      const read = await server.api.get(`/charges/${created.body.id}`, { headers: { Accept: V1 } });
      expect(read.body).to.deep.equal(created.body);
      expect((await server.api.get(`/v1/charges/${created.body.id}`)).body).to.deep.equal(created.body);
    });

    it(`serves /v1 paths with Accept: ${V1} too`, async () => {
      const res = await server.api.get('/v1/charges', { headers: { Accept: V1 } });
      expect(res.status).to.equal(200);
      expect(res.body.url).to.equal('/v1/charges');
    });

    for (const path of ['/charges', '/v1/charges']) {
      it(`answers 406 version_not_supported to Accept: ${V2} on ${path}`, async () => {
        const res = await raw(server, 'GET', path, { headers: { Accept: V2 } });
        expectCleanError(res);
        expect(expectError(res, 406, 'version_not_supported').type).to.equal('invalid_request_error');
      });
    }

    it(`creates nothing for a POST with Accept: ${V2}`, async () => {
      const res = await server.api.post('/v1/charges', CHARGE, { headers: { Accept: V2 } });
      expectError(res, 406, 'version_not_supported');
      expect((await server.api.get('/v1/charges')).body.data).to.deep.equal([]);
    });
  });

  it('never answers with a stack trace or an HTML page', async () => {
    const json = { 'Content-Type': 'application/json' };
    const requests: Array<[string, string, Parameters<typeof raw>[3]]> = [
      ['GET', '/v1/charges', { auth: false }],
      ['GET', '/v1/charges', { headers: { Authorization: 'Basic Zm9vOmJhcg==' }, auth: false }],
      ['GET', '/v1/charges/ch_missing', {}],
      ['GET', '/v1/charges?limit=abc', {}],
      ['GET', '/v1/charges?starting_after=ch_missing', {}],
      ['GET', '/v1/charges?unknown=1', {}],
      ['POST', '/v1/charges', { body: '{', headers: json }],
      ['POST', '/v1/charges', { body: JSON.stringify({ ...CHARGE, amount: -1 }), headers: json }],
      ['POST', '/v1/charges', { body: JSON.stringify({ ...CHARGE, source: 'tok_chargeDeclined' }), headers: json }],
      // An unknown customer: an error raised inside the operation, on a route with response validation.
      ['POST', '/v1/charges', { body: JSON.stringify({ ...CHARGE, customer: 'cus_missing' }), headers: json }],
      ['POST', '/v1/refunds', { body: JSON.stringify({ charge: 'ch_missing' }), headers: json }],
      ['POST', '/v1/charges', { body: 'x', headers: { 'Content-Type': 'text/plain' } }],
      ['POST', '/v1/charges', { body: JSON.stringify({ description: 'x'.repeat(1_100_000) }), headers: json }],
      ['PUT', '/v1/charges', {}],
      ['GET', '/nowhere', {}],
      ['GET', '/charges', { headers: { Accept: V2 } }],
      ['POST', '/admin/accounts', { body: JSON.stringify({ name: 'x', email: 'x@example.com' }), headers: json }],
    ];
    for (const [method, path, options] of requests) {
      const res = await raw(server, method, path, options);
      expect(res.status, `${method} ${path}: ${res.text}`).to.be.at.least(400);
      expectCleanError(res);
      if (res.status >= 500) {
        expect(res.body.error.message, 'a 500 says nothing but the request id').to.not.match(/status code|schema|sql|constraint/i);
      }
    }
  });
});
