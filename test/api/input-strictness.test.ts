import { expect } from 'chai';
import { aCharge, aUser, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** Integers a loose parser (`Number()`, Ajv's coerceTypes) would take, and a strict one refuses. */
const LOOSE_INTEGERS = [
  '0x10',
  '0b11',
  '0o7',
  '1e3',
  '+100',
  ' 100',
  '100 ',
  '1.0',
  '1_000',
  'Infinity',
  '１００',
  '99999999999999999999',
];
const NOT_BOOLEANS = ['1', '0', 'yes', 'no', 'on', 't', ' true', 'true '];

interface RawResponse {
  status: number;
  headers: Headers;
  body: any;
}

forEachDatabase('hostile input over REST', (engine) => {
  // One server for the file: every case asserts what it created (or did not) by counting.
  const server = useTestServer(engine, {}, { per: 'suite' });

  /** Sends exactly these bytes, with the first account's key. */
  async function send(
    method: string,
    path: string,
    body?: string,
    contentType = 'application/x-www-form-urlencoded',
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { Authorization: `Bearer ${server.api.apiKey}` };
    if (body !== undefined) headers['Content-Type'] = contentType;
    const res = await fetch(server.url + path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** How many objects a list shows (all of them: the tests create fewer than 100). */
  async function count(listPath: string): Promise<number> {
    const res = await server.api.get(`${listPath}${listPath.includes('?') ? '&' : '?'}limit=100`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.length;
  }

  /** Sends a request that must be refused with this code and param, and proves nothing was created. */
  async function expectRefused(
    listPath: string,
    request: () => Promise<RawResponse>,
    code: string,
    param?: string,
  ): Promise<any> {
    const before = await count(listPath);
    const error = expectError(await request(), 400, code, param);
    expect(error.type).to.equal('invalid_request_error');
    expect(await count(listPath)).to.equal(before);
    return error;
  }

  const form = (fields: Record<string, string>) =>
    Object.entries(fields)
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');

  describe('integers in form bodies', () => {
    for (const amount of LOOSE_INTEGERS) {
      it(`refuses amount=${JSON.stringify(amount)} for a charge, naming amount`, async () => {
        const body = form({ amount, currency: 'usd', source: 'tok_visa' });
        const error = await expectRefused('/v1/charges', () => send('POST', '/v1/charges', body), 'parameter_invalid', 'amount');
        expect(error.message).to.match(/^Invalid amount: /);
      });
    }

    it('refuses loose refund amounts, naming amount, and refunds nothing', async () => {
      const charge = await aCharge(server.api, { amount: 5000 });
      for (const amount of ['0x10', '1e3', '+100', ' 100', '1.0']) {
        await expectRefused(
          '/v1/refunds',
          () => send('POST', '/v1/refunds', form({ charge: charge.id, amount })),
          'parameter_invalid',
          'amount',
        );
      }
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.amount_refunded).to.equal(0);
    });

    it('refuses loose order amounts, naming amount', async () => {
      const user = await aUser(server.api);
      const orders = `/v1/users/${user.id}/orders`;
      for (const amount of ['0x10', '0b11', '1e3', '+100', '1.0']) {
        await expectRefused(orders, () => send('POST', orders, form({ amount, currency: 'usd' })), 'parameter_invalid', 'amount');
      }
    });

    it('accepts plain decimals: amount=2000, and leading zeros', async () => {
      for (const [amount, expected] of [
        ['2000', 2000],
        ['0150', 150],
      ] as const) {
        const res = await send('POST', '/v1/charges', form({ amount, currency: 'usd', source: 'tok_visa' }));
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.amount).to.equal(expected);
      }
    });

    it('leaves bounds to the schema: amount=0 and a negative amount are refused, naming amount', async () => {
      for (const amount of ['0', '-5', '100000000']) {
        await expectRefused(
          '/v1/charges',
          () => send('POST', '/v1/charges', form({ amount, currency: 'usd', source: 'tok_visa' })),
          'parameter_invalid',
          'amount',
        );
      }
    });

    it('still refuses a string amount in JSON (JSON is never coerced)', async () => {
      const body = JSON.stringify({ amount: '2000', currency: 'usd', source: 'tok_visa' });
      await expectRefused(
        '/v1/charges',
        () => send('POST', '/v1/charges', body, 'application/json'),
        'parameter_invalid',
        'amount',
      );
    });

    it('refuses a loose nested integer (created[gte]) naming it in bracket notation', async () => {
      const endpoint = await server.api.post('/v1/webhook_endpoints', {
        url: 'https://hooks.example.com/x',
        enabled_events: ['*'],
      });
      const res = await send('POST', `/v1/webhook_endpoints/${endpoint.body.id}/replay`, 'created[gte]=1e3');
      expectError(res, 400, 'parameter_invalid', 'created[gte]');
    });
  });

  describe('integers in query strings', () => {
    for (const limit of ['1e1', '0x10', '+10', ' 10', '10.0', '0b11']) {
      it(`refuses limit=${JSON.stringify(limit)}, naming limit`, async () => {
        expectError(await send('GET', `/v1/charges?limit=${encodeURIComponent(limit)}`), 400, 'parameter_invalid', 'limit');
      });
    }

    it('refuses limit sent twice or as an object, naming limit', async () => {
      expectError(await send('GET', '/v1/charges?limit=1&limit=2'), 400, 'parameter_invalid', 'limit');
      expectError(await send('GET', '/v1/charges?limit[x]=1'), 400, 'parameter_invalid', 'limit');
    });

    it('accepts limit=10 and limit=1, and keeps the schema bounds (limit=0, limit=101)', async () => {
      await aCharge(server.api);
      await aCharge(server.api);
      expect((await send('GET', '/v1/charges?limit=10')).body.data.length).to.be.at.least(2);
      expect((await send('GET', '/v1/charges?limit=1')).body.data).to.have.length(1);
      expectError(await send('GET', '/v1/charges?limit=0'), 400, 'parameter_invalid', 'limit');
      expectError(await send('GET', '/v1/charges?limit=101'), 400, 'parameter_invalid', 'limit');
    });

    it('still takes expand as expand[]=, expand[0]= or a single expand=', async () => {
      const customer = (await server.api.post('/v1/customers', { email: 'q@example.com' })).body;
      const charge = await aCharge(server.api, { customer: customer.id });
      for (const query of ['expand[]=customer', 'expand[0]=customer', 'expand=customer']) {
        const res = await send('GET', `/v1/charges/${charge.id}?${query}`);
        expect(res.status, `${query}: ${JSON.stringify(res.body)}`).to.equal(200);
        expect(res.body.customer.id).to.equal(customer.id);
      }
    });
  });

  describe('booleans', () => {
    for (const value of ['true', 'True', 'TRUE', 'false', 'False', 'FALSE']) {
      it(`accepts delivery_success=${value} in a query`, async () => {
        const res = await send('GET', `/v1/events?delivery_success=${value}`);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.object).to.equal('list');
      });
    }

    for (const value of NOT_BOOLEANS) {
      it(`refuses delivery_success=${JSON.stringify(value)} in a query, naming it`, async () => {
        expectError(
          await send('GET', `/v1/events?delivery_success=${encodeURIComponent(value)}`),
          400,
          'parameter_invalid',
          'delivery_success',
        );
      });
    }

    it('accepts dry_run=True and dry_run=FALSE in a form body, and refuses dry_run=1 or yes, naming it', async () => {
      const endpoint = await server.api.post('/v1/webhook_endpoints', {
        url: 'https://hooks.example.com/y',
        enabled_events: ['*'],
      });
      const replay = `/v1/webhook_endpoints/${endpoint.body.id}/replay`;
      const dry = await send('POST', replay, 'dry_run=True');
      expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
      expect(dry.body).to.include({ object: 'webhook_replay', dry_run: true });
      const wet = await send('POST', replay, 'dry_run=FALSE');
      expect(wet.body).to.include({ dry_run: false });
      for (const value of ['1', 'yes'])
        expectError(await send('POST', replay, `dry_run=${value}`), 400, 'parameter_invalid', 'dry_run');
    });

    it('disables an endpoint with disabled=TRUE, and refuses disabled=on without changing it', async () => {
      const endpoint = (
        await server.api.post('/v1/webhook_endpoints', { url: 'https://hooks.example.com/z', enabled_events: ['*'] })
      ).body;
      expectError(
        await send('POST', `/v1/webhook_endpoints/${endpoint.id}`, 'disabled=on'),
        400,
        'parameter_invalid',
        'disabled',
      );
      expect((await server.api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status).to.equal('enabled');
      const res = await send('POST', `/v1/webhook_endpoints/${endpoint.id}`, 'disabled=TRUE');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.status).to.equal('disabled');
    });
  });

  describe('the NUL character', () => {
    const NUL_BODIES: Array<[string, string, string, string]> = [
      ['a form value', 'name=a%00b', 'application/x-www-form-urlencoded', 'name'],
      ['a form metadata value', 'metadata[order]=67%0035', 'application/x-www-form-urlencoded', 'metadata[order]'],
      ['a form metadata key', 'metadata[or%00der]=6735', 'application/x-www-form-urlencoded', 'metadata[or\u0000der]'],
      ['a form field name', 'na%00me=x', 'application/x-www-form-urlencoded', 'na\u0000me'],
      ['a JSON value', JSON.stringify({ name: 'a\u0000b' }), 'application/json', 'name'],
      ['a JSON metadata value', JSON.stringify({ metadata: { order: '\u0000' } }), 'application/json', 'metadata[order]'],
      ['a JSON metadata key', JSON.stringify({ metadata: { '\u0000': 'x' } }), 'application/json', 'metadata[\u0000]'],
    ];
    for (const [where, body, contentType, param] of NUL_BODIES) {
      it(`refuses it in ${where} with 400 naming ${JSON.stringify(param)}, and creates nothing`, async () => {
        const error = await expectRefused(
          '/v1/customers',
          () => send('POST', '/v1/customers', body, contentType),
          'parameter_invalid',
          param,
        );
        expect(error.message).to.include('NUL');
      });
    }

    it('refuses it in a charge description and in an update, changing nothing', async () => {
      const charge = await aCharge(server.api, { description: 'before' });
      await expectRefused(
        '/v1/charges',
        () => send('POST', '/v1/charges', 'amount=100&currency=usd&source=tok_visa&description=%00'),
        'parameter_invalid',
        'description',
      );
      expectError(
        await send('PATCH', `/v1/charges/${charge.id}`, JSON.stringify({ description: 'x\u0000' }), 'application/json'),
        400,
        'parameter_invalid',
        'description',
      );
      expect((await server.api.get(`/v1/charges/${charge.id}`)).body.description).to.equal('before');
    });

    for (const [method, path] of [
      ['GET', '/v1/customers/%00abc'],
      ['POST', '/v1/customers/%00abc'],
      ['DELETE', '/v1/customers/cus_%00'],
      ['GET', '/v1/charges/ch_%00x'],
    ] as const) {
      it(`refuses it in the path parameter of ${method} ${path}, naming id`, async () => {
        expectError(await send(method, path, method === 'POST' ? 'name=x' : undefined), 400, 'parameter_invalid', 'id');
      });
    }

    it('refuses it in a nested path parameter (order_id), naming it', async () => {
      const user = await aUser(server.api);
      expectError(await send('GET', `/v1/users/${user.id}/orders/ord_%00`), 400, 'parameter_invalid', 'order_id');
    });

    for (const [query, param] of [
      ['starting_after=cus_%00', 'starting_after'],
      ['email=a%00b', 'email'],
      ['expand[]=%00', 'expand[0]'],
      ['no%00such=1', 'no\u0000such'],
    ]) {
      it(`refuses it in the query ${query}, naming ${JSON.stringify(param)}`, async () => {
        const error = expectError(await send('GET', `/v1/customers?${query}`), 400, 'parameter_invalid', param);
        expect(error.message).to.include('NUL');
      });
    }

    it('refuses it with an Idempotency-Key, storing nothing: the key then serves a valid request', async () => {
      const headers = {
        Authorization: `Bearer ${server.api.apiKey}`,
        'Idempotency-Key': `nul-${engine}`,
        'Content-Type': 'application/json',
      };
      const bad = await fetch(`${server.url}/v1/customers`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: '\u0000' }),
      });
      expect(bad.status).to.equal(400);
      const good = await fetch(`${server.url}/v1/customers`, { method: 'POST', headers, body: JSON.stringify({ name: 'ok' }) });
      expect(good.status).to.equal(200);
      expect(((await good.json()) as any).name).to.equal('ok');
    });

    it('keeps tabs, newlines and other control characters as text', async () => {
      const description = 'line one\nline\ttwo\r\u0001\u001f';
      const res = await send('POST', '/v1/customers', JSON.stringify({ description }), 'application/json');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect((await server.api.get(`/v1/customers/${res.body.id}`)).body.description).to.equal(description);
    });
  });

  describe('duplicate and conflicting form fields', () => {
    const CASES: Array<[string, string, string]> = [
      ['metadata given as an object and twice as a value', 'metadata[k]=v&metadata=1&metadata=2', 'metadata'],
      ['metadata given as a value', 'metadata=1', 'metadata'],
      ['metadata given twice as a value', 'metadata=1&metadata=2', 'metadata'],
      ['a value, then an object', 'metadata=1&metadata[k]=v', 'metadata'],
      ['a metadata key given twice', 'metadata[k]=a&metadata[k]=b', 'metadata[k]'],
      ['a metadata value given as an object', 'metadata[k][x]=1', 'metadata[k]'],
      ['name given twice', 'name=a&name=b', 'name'],
      ['name given as an object', 'name[x]=a', 'name'],
    ];
    for (const [what, body, param] of CASES) {
      it(`refuses ${what} (${body}), naming ${param}, and creates nothing`, async () => {
        await expectRefused('/v1/customers', () => send('POST', '/v1/customers', body), 'parameter_invalid', param);
      });
    }

    for (const body of [
      'amount[x]=1&currency=usd&source=tok_visa',
      'amount=1&amount=2&currency=usd&source=tok_visa',
      'amount[]=1&currency=usd&source=tok_visa',
    ]) {
      it(`refuses ${body}, naming amount`, async () => {
        await expectRefused('/v1/charges', () => send('POST', '/v1/charges', body), 'parameter_invalid', 'amount');
      });
    }

    it('refuses enabled_events given as an object of names, naming it', async () => {
      const res = await send('POST', '/v1/webhook_endpoints', 'url=https://hooks.example.com/e&enabled_events[x]=*');
      expectError(res, 400, 'parameter_invalid', 'enabled_events');
    });

    it('takes lists as name[]=, name[0]= (in index order) or a repeated name', async () => {
      for (const body of [
        'enabled_events[]=charge.failed&enabled_events[]=charge.succeeded',
        'enabled_events[1]=charge.succeeded&enabled_events[0]=charge.failed',
        'enabled_events=charge.failed&enabled_events=charge.succeeded',
      ]) {
        const res = await send('POST', '/v1/webhook_endpoints', `url=https://hooks.example.com/l&${body}`);
        expect(res.status, `${body}: ${JSON.stringify(res.body)}`).to.equal(200);
        expect(res.body.enabled_events).to.deep.equal(['charge.failed', 'charge.succeeded']);
      }
    });

    for (const [body, param] of [
      ['__proto__[x]=1', '__proto__'],
      ['constructor[prototype][x]=1', 'constructor'],
      ['__proto__=1', '__proto__'],
      ['prototype[x]=1', 'prototype'],
    ]) {
      it(`refuses ${body} as an unknown parameter, polluting nothing`, async () => {
        await expectRefused('/v1/customers', () => send('POST', '/v1/customers', body), 'parameter_unknown', param);
        expect(({} as Record<string, unknown>).x).to.equal(undefined);
        expect(Object.prototype).to.not.have.property('x');
      });
    }

    it('refuses __proto__ in a query as an unknown parameter', async () => {
      expectError(await send('GET', '/v1/charges?__proto__[x]=1'), 400, 'parameter_unknown', '__proto__');
      expect(({} as Record<string, unknown>).x).to.equal(undefined);
    });

    it('keeps metadata[__proto__] and metadata[constructor] as plain keys', async () => {
      const res = await send('POST', '/v1/customers', 'metadata[__proto__]=a&metadata[constructor]=b');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const stored = (await server.api.get(`/v1/customers/${res.body.id}`)).body.metadata;
      expect(Object.entries(stored)).to.deep.equal([
        ['__proto__', 'a'],
        ['constructor', 'b'],
      ]);
    });

    it('refuses malformed bracket names and nesting deeper than 4, naming them', async () => {
      expectError(await send('POST', '/v1/customers', 'metadata[k=1'), 400, 'parameter_invalid', 'metadata[k');
      expectError(await send('POST', '/v1/customers', 'metadata[a][b][c][d][e]=1'), 400, 'parameter_invalid', 'metadata');
    });

    it('shortens a huge unknown parameter name to what the error envelope allows', async () => {
      const name = 'x'.repeat(5000);
      const error = expectError(await send('POST', '/v1/customers', `${name}=1`), 400, 'parameter_unknown');
      expect(error.param.length).to.be.at.most(200);
      expect(error.message.length).to.be.at.most(1000);
    });

    it('still reads a plain form body: empty values unset, metadata and expand in brackets', async () => {
      const customer = (await server.api.post('/v1/customers', { email: 'f@example.com' })).body;
      const res = await send(
        'POST',
        '/v1/charges',
        `amount=2000&currency=usd&source=tok_visa&customer=${customer.id}&description=&metadata[order]=6735&metadata[gone]=&expand[0]=customer`,
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ amount: 2000, description: null });
      expect(res.body.metadata).to.deep.equal({ order: '6735' });
      expect(res.body.customer.id).to.equal(customer.id);
    });
  });
});
