import { expect } from 'chai';
import pg from 'pg';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { expectError } from '../helpers/builders.js';
import { startApiProcessesInTurn, type ApiProcess } from '../helpers/api-process.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { graphql } from '../helpers/graphql-client.js';
import { ADMIN_AUTHORIZATION, startTestServer, useTestServer } from '../helpers/test-server.js';

const CHARGE = { amount: 2000, currency: 'usd', source: 'tok_visa' };

/** The events of one successful charge, oldest first: it is made as a payment intent confirmed at once. */
const CHARGE_EVENTS = ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded'];

/** Every charge of the account (the tests below stay well under one page of 100). */
async function chargeIds(api: ApiClient): Promise<string[]> {
  const res = await api.get('/v1/charges?limit=100');
  expect(res.status).to.equal(200);
  expect(res.body.has_more).to.equal(false);
  return res.body.data.map((c: any) => c.id);
}

/** The types of every event of the account, oldest first. */
async function eventTypes(api: ApiClient): Promise<string[]> {
  const res = await api.get('/v1/events?limit=100');
  expect(res.status).to.equal(200);
  return res.body.data.map((e: any) => e.type).reverse();
}

/** The stored response again; an error body names this response's own request id, as every error does. */
function expectReplayed(res: ApiResponse, first: ApiResponse): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(first.status);
  const expected = first.body.error
    ? { error: { ...first.body.error, request_id: res.headers.get('request-id') } }
    : first.body;
  expect(res.body).to.deep.equal(expected);
  expect(res.headers.get('idempotent-replayed')).to.equal('true');
}

function expectNotReplayed(res: ApiResponse): void {
  expect(res.headers.get('idempotent-replayed')).to.equal(null);
}

forEachDatabase('idempotency', (engine) => {
  const server = useTestServer(engine);

  describe('same key, same body', () => {
    it('answers the stored status and body with Idempotent-Replayed, and creates one charge and one set of events', async () => {
      const first = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'order-6735' });
      expect(first.status).to.equal(200);
      expectNotReplayed(first);
      for (let i = 0; i < 3; i++) {
        expectReplayed(await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'order-6735' }), first);
      }
      expect(await chargeIds(server.api)).to.deep.equal([first.body.id]);
      expect(await eventTypes(server.api)).to.deep.equal(CHARGE_EVENTS);
    });

    it('replays a form-encoded request', async () => {
      const params = { ...CHARGE, metadata: { order: '6735' } };
      const first = await server.api.post('/v1/charges', params, { idempotencyKey: 'form-key', form: true });
      expect(first.status).to.equal(200);
      expectReplayed(await server.api.post('/v1/charges', params, { idempotencyKey: 'form-key', form: true }), first);
      expect(await chargeIds(server.api)).to.deep.equal([first.body.id]);
    });

    it('treats a JSON body and a form body that mean the same thing as the same body', async () => {
      const params = { ...CHARGE, description: 'Order 6735', metadata: { order: '6735', channel: 'web' } };
      const json = await server.api.post('/v1/charges', params, { idempotencyKey: 'json-then-form' });
      expect(json.status).to.equal(200);
      // Another key order and form encoding: numbers arrive as strings and are coerced first.
      const reordered = { metadata: { channel: 'web', order: '6735' }, source: 'tok_visa', description: 'Order 6735', currency: 'usd', amount: 2000 };
      expectReplayed(await server.api.post('/v1/charges', reordered, { idempotencyKey: 'json-then-form', form: true }), json);

      const form = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'form-then-json', form: true });
      expect(form.status).to.equal(200);
      expectReplayed(await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'form-then-json' }), form);
      expect(await chargeIds(server.api)).to.have.members([json.body.id, form.body.id]).and.have.length(2);
    });
  });

  describe('keys restricted to some scopes', () => {
    /** A new account's secret key, and a restricted key of the same account holding `scopes`. */
    async function keysOfOneAccount(scopes: string[]): Promise<{ secret: ApiClient; restricted: ApiClient }> {
      const admin = { Authorization: ADMIN_AUTHORIZATION };
      const account = await server.anonymous.post('/admin/accounts', { name: 'Scoped', email: 'scoped@example.com' }, { headers: admin });
      const key = await server.anonymous.post(`/admin/accounts/${account.body.id}/api_keys`, { scopes }, { headers: admin });
      return { secret: new ApiClient(server.url, account.body.api_key), restricted: new ApiClient(server.url, key.body.secret) };
    }

    it("never replay a stored response to a key without the operation's scope", async () => {
      const { secret, restricted } = await keysOfOneAccount(['customers:read']);
      const first = await secret.post('/v1/charges', CHARGE, { idempotencyKey: 'scoped-1' });
      expect(first.status).to.equal(200);
      const refused = await restricted.post('/v1/charges', CHARGE, { idempotencyKey: 'scoped-1' });
      expect(expectError(refused, 403, 'insufficient_scope').message).to.include('charges:write');
      expectNotReplayed(refused);
    });

    it("replay it to a key that holds the operation's scope", async () => {
      const { secret, restricted } = await keysOfOneAccount(['charges:write']);
      const first = await secret.post('/v1/charges', CHARGE, { idempotencyKey: 'scoped-2' });
      expectReplayed(await restricted.post('/v1/charges', CHARGE, { idempotencyKey: 'scoped-2' }), first);
    });
  });

  describe('same key, another request', () => {
    it('answers 400 idempotency_key_reused to another body, creating nothing', async () => {
      const first = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'k1' });
      expect(first.status).to.equal(200);
      const res = await server.api.post('/v1/charges', { ...CHARGE, amount: 2001 }, { idempotencyKey: 'k1' });
      const error = expectError(res, 400, 'idempotency_key_reused');
      expect(error.type).to.equal('idempotency_error');
      expectNotReplayed(res);
      expect(await chargeIds(server.api)).to.deep.equal([first.body.id]);
      // The key still answers its own request.
      expectReplayed(await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'k1' }), first);
    });

    it('answers 400 idempotency_key_reused to another path, creating nothing', async () => {
      expect((await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'k1' })).status).to.equal(200);
      const res = await server.api.post('/v1/customers', { email: 'jenny@example.com' }, { idempotencyKey: 'k1' });
      expect(expectError(res, 400, 'idempotency_key_reused').type).to.equal('idempotency_error');
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });
  });

  describe('what is stored', () => {
    it('replays a 402 decline as 402 with the same failed charge', async () => {
      const params = { ...CHARGE, source: 'tok_chargeDeclined' };
      const first = await server.api.post('/v1/charges', params, { idempotencyKey: 'declined' });
      const error = expectError(first, 402, 'card_declined');
      expect(error.charge).to.match(/^ch_/);
      const replay = await server.api.post('/v1/charges', params, { idempotencyKey: 'declined' });
      expectReplayed(replay, first);
      expect(replay.body.error.charge).to.equal(error.charge);
      expect(await chargeIds(server.api)).to.deep.equal([error.charge]);
      expect(await eventTypes(server.api)).to.deep.equal(['payment_intent.created', 'charge.failed', 'payment_intent.payment_failed']);
    });

    it('replays an error raised once execution started (an unknown test source)', async () => {
      const params = { ...CHARGE, source: 'tok_unknown' };
      const first = await server.api.post('/v1/charges', params, { idempotencyKey: 'bad-source' });
      expectError(first, 400, 'parameter_invalid', 'source');
      expectReplayed(await server.api.post('/v1/charges', params, { idempotencyKey: 'bad-source' }), first);
    });

    it('does not store a validation failure: the corrected retry with the same key succeeds', async () => {
      const invalid = await server.api.post('/v1/charges', { ...CHARGE, amount: 'abc' }, { idempotencyKey: 'retry-me' });
      expectError(invalid, 400, 'parameter_invalid', 'amount');
      const corrected = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'retry-me' });
      expect(corrected.status).to.equal(200);
      expectNotReplayed(corrected);
      expectReplayed(await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'retry-me' }), corrected);
    });

    it('does not store a 401: the retry with credentials executes', async () => {
      expectError(await server.anonymous.post('/v1/charges', CHARGE, { idempotencyKey: 'no-auth' }), 401, 'api_key_missing');
      const wrongKey = await server.anonymous.post('/v1/charges', CHARGE, {
        idempotencyKey: 'no-auth',
        headers: { Authorization: 'Bearer sk_test_wrongwrongwrong' },
      });
      expectError(wrongKey, 401, 'api_key_invalid');
      const res = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'no-auth' });
      expect(res.status).to.equal(200);
      expectNotReplayed(res);
      expect(await chargeIds(server.api)).to.deep.equal([res.body.id]);
    });
  });

  it('scopes keys to the account: another account uses the same key independently', async () => {
    const mine = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'shared-key' });
    expect(mine.status).to.equal(200);
    // Another body too: the other account's key carries no fingerprint of this one's request.
    const theirs = await server.otherApi.post('/v1/charges', { ...CHARGE, amount: 500 }, { idempotencyKey: 'shared-key' });
    expect(theirs.status).to.equal(200);
    expectNotReplayed(theirs);
    expect(theirs.body.id).to.not.equal(mine.body.id);
    expect(theirs.body.amount).to.equal(500);
    expect(await chargeIds(server.api)).to.deep.equal([mine.body.id]);
    expect(await chargeIds(server.otherApi)).to.deep.equal([theirs.body.id]);
    expectReplayed(await server.otherApi.post('/v1/charges', { ...CHARGE, amount: 500 }, { idempotencyKey: 'shared-key' }), theirs);
  });

  it('executes once under 50 concurrent copies: each answer is the charge or 409 idempotency_key_in_use', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'concurrent' })),
    );
    const charges = await chargeIds(server.api);
    expect(charges).to.have.length(1);
    for (const res of responses) {
      if (res.status === 409) {
        expect(expectError(res, 409, 'idempotency_key_in_use').type).to.equal('idempotency_error');
      } else {
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.id).to.equal(charges[0]);
      }
    }
    expect(responses.filter((r) => r.status === 200 && !r.headers.get('idempotent-replayed'))).to.have.length(1);
    expect(await eventTypes(server.api)).to.deep.equal(CHARGE_EVENTS);
    // Whoever got 409 retries and gets the charge.
    const retry = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'concurrent' });
    expect(retry.status).to.equal(200);
    expect(retry.body.id).to.equal(charges[0]);
  });

  if (engine === 'postgres') {
    it('answers 409 at once while another process executes the key, and executes it once that one is done', async () => {
      const earlier = await server.api.post('/v1/charges', CHARGE);
      const account = await server.db.one<{ account_id: string }>('SELECT account_id FROM charges WHERE id = ?', [earlier.body.id]);
      // Another process executing the key holds its advisory lock until its transaction ends.
      const other = new pg.Client({ connectionString: (server.target as { url: string }).url });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`idempotency\n${account!.account_id}\nbusy`]);
        const refused = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'busy' });
        expectError(refused, 409, 'idempotency_key_in_use');
        await other.query('ROLLBACK');
      } finally {
        await other.end();
      }
      const retried = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'busy' });
      expect(retried.status).to.equal(200);
      expectNotReplayed(retried);
      expect(await chargeIds(server.api)).to.deep.equal([retried.body.id, earlier.body.id]);
    });
  }

  if (engine === 'postgres') {
    it('rolls back a request whose key another request stored after its replay check, and answers that one', async () => {
      const first = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'first' });
      // Another process stores the same request under the key 'raced' and has not committed yet,
      // so the replay check below finds the key unused.
      const other = new pg.Client({ connectionString: (server.target as { url: string }).url });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query(
          `INSERT INTO idempotency_keys (account_id, key, request_method, request_path, request_hash, state,
             response_status, response_body, created, locked_at)
           SELECT account_id, 'raced', request_method, request_path, request_hash, state,
             response_status, response_body, created, locked_at
           FROM idempotency_keys WHERE key = 'first'`,
        );
        const raced = server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'raced' });
        // The request has executed and now waits to store its key behind the uncommitted row.
        await eventually(async () => {
          const waiting = await other.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          expect(waiting.rowCount).to.equal(1);
        });
        await other.query('COMMIT');
        expectReplayed(await raced, first);
      } finally {
        await other.end();
      }
      expect(await chargeIds(server.api)).to.deep.equal([first.body.id]);
      expect(await eventTypes(server.api)).to.deep.equal(CHARGE_EVENTS);
    });
  }

  it('frees the key after the TTL', async () => {
    const short = await startTestServer(engine, { idempotencyTtlSeconds: 60 });
    try {
      const first = await short.api.post('/v1/charges', CHARGE, { idempotencyKey: 'ttl' });
      expect(first.status).to.equal(200);
      short.clock.advance(59_000);
      expectReplayed(await short.api.post('/v1/charges', CHARGE, { idempotencyKey: 'ttl' }), first);
      short.clock.advance(2_000);
      // Expired: the key may even carry another body now.
      const later = await short.api.post('/v1/charges', { ...CHARGE, amount: 300 }, { idempotencyKey: 'ttl' });
      expect(later.status, JSON.stringify(later.body)).to.equal(200);
      expectNotReplayed(later);
      expect(later.body.id).to.not.equal(first.body.id);
      expect(await chargeIds(short.api)).to.deep.equal([later.body.id, first.body.id]);
    } finally {
      await short.close();
    }
  });

  describe('the key itself', () => {
    it('accepts 255 characters and refuses 256 with param Idempotency-Key', async () => {
      const tooLong = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'k'.repeat(256) });
      expectError(tooLong, 400, 'parameter_invalid', 'Idempotency-Key');
      expect(await chargeIds(server.api)).to.deep.equal([]);
      const longest = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'k'.repeat(255) });
      expect(longest.status).to.equal(200);
      expectReplayed(await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'k'.repeat(255) }), longest);
    });

    it('refuses a key with a space (only printable ASCII is allowed)', async () => {
      const res = await server.api.post('/v1/charges', CHARGE, { headers: { 'Idempotency-Key': 'two words' } });
      expectError(res, 400, 'parameter_invalid', 'Idempotency-Key');
    });

    it('is the same rule through GraphQL, refused with the same words, as header or as argument', async () => {
      const document = `mutation ($input: CreateChargeInput!, $key: String) { createCharge(input: $input, idempotencyKey: $key) { id } }`;
      for (const key of ['k'.repeat(256), 'two words', 'clé']) {
        const rest = await server.api.post('/v1/charges', CHARGE, { headers: { 'Idempotency-Key': key } });
        const restError = expectError(rest, 400, 'parameter_invalid', 'Idempotency-Key');
        const viaHeader = await graphql(server.url, server.api.apiKey, document, { input: CHARGE }, { headers: { 'Idempotency-Key': key } });
        expect(viaHeader.body.errors![0], key).to.deep.include({ message: restError.message });
        expect(viaHeader.body.errors![0].extensions).to.include({ code: 'parameter_invalid', param: 'Idempotency-Key' });
        const viaArgument = await graphql(server.url, server.api.apiKey, document, { input: CHARGE, key });
        expect(viaArgument.body.errors![0].extensions).to.include({ code: 'parameter_invalid', param: 'idempotencyKey' });
      }
      expect(await chargeIds(server.api)).to.deep.equal([]);
    });
  });

  it('treats a row left `running` by an earlier version as a free key', async () => {
    const earlier = await server.api.post('/v1/charges', CHARGE);
    const account = await server.db.one<{ account_id: string }>('SELECT account_id FROM charges WHERE id = ?', [earlier.body.id]);
    // Earlier versions committed the key as `running` before executing, with no response.
    await server.db.run(
      `INSERT INTO idempotency_keys (account_id, key, request_method, request_path, request_hash, state, created, locked_at)
       VALUES (?, 'legacy', 'POST', '/v1/charges', 'f00d', 'running', ?, ?)`,
      [account!.account_id, Math.floor(server.clock.nowMs() / 1000), server.clock.nowMs()],
    );
    const res = await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'legacy' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expectNotReplayed(res);
    expectReplayed(await server.api.post('/v1/charges', CHARGE, { idempotencyKey: 'legacy' }), res);
    expect(await chargeIds(server.api)).to.deep.equal([res.body.id, earlier.body.id]);
    const states = await server.db.all<{ state: string }>("SELECT state FROM idempotency_keys WHERE key = 'legacy'");
    expect(states).to.deep.equal([{ state: 'done' }]);
  });
  describe('across API processes over one database', () => {
    before(function () {
      requireProcesses(this);
    });
    const apiKey = 'sk_test_idempotencyscaleout';
    let database: TestDatabase;
    const processes: ApiProcess[] = [];
    afterEach(async () => {
      await Promise.all(processes.splice(0).map((p) => p.stop()));
      await database?.drop();
    });

    it('executes once when copies are spread over two processes: each answer is the charge or 409', async function () {
      this.timeout(90_000);
      database = await createDatabase(engine);
      const started = await startApiProcessesInTurn(database.target, { BOOTSTRAP_API_KEY: apiKey }, 2, processes);
      const clients = started.map((p) => new ApiClient(p.url, apiKey));
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => clients[i % 2].post('/v1/charges', CHARGE, { idempotencyKey: 'spread' })),
      );
      const charges = await chargeIds(clients[0]);
      expect(charges).to.have.length(1);
      for (const res of responses) {
        if (res.status === 409) expectError(res, 409, 'idempotency_key_in_use');
        else expect(res.body.id, JSON.stringify(res.body)).to.equal(charges[0]);
      }
      expect(responses.filter((r) => r.status === 200 && !r.headers.get('idempotent-replayed'))).to.have.length(1);
      // Both processes answer a later copy with the stored charge.
      for (const client of clients) {
        const later = await client.post('/v1/charges', CHARGE, { idempotencyKey: 'spread' });
        expect(later.headers.get('idempotent-replayed')).to.equal('true');
        expect(later.body.id).to.equal(charges[0]);
      }
    });

    it('sends, unvalidated as in production, the very text it stored: the first answer and its replay are the same bytes', async function () {
      this.timeout(60_000);
      database = await createDatabase(engine);
      const [server] = await startApiProcessesInTurn(database.target, { BOOTSTRAP_API_KEY: apiKey, VALIDATE_RESPONSES: 'false' }, 1, processes);
      const post = () =>
        fetch(`${server.url}/v1/charges`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'bytes' },
          body: JSON.stringify(CHARGE),
        });
      const first = await post();
      const firstText = await first.text();
      const replay = await post();
      expect(first.status).to.equal(200);
      expect(first.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(JSON.parse(firstText)).to.include({ object: 'charge', amount: 2000 });
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.headers.get('content-type')).to.equal(first.headers.get('content-type'));
      expect(await replay.text()).to.equal(firstText);
    });
  });
});
