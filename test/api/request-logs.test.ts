import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { unixSeconds } from '../../src/domain/clock.js';
import { createRequestLogBuffer } from '../../src/resources/request-logs/request-log-buffer.js';
import { insertRequestLogs, purgeRequestLogs, type NewRequestLogRow } from '../../src/resources/request-logs/request-logs.repo.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { graphql } from '../helpers/graphql-client.js';
import { RawConnection, requestHead } from '../helpers/raw-http.js';
import { ADMIN_AUTHORIZATION, useTestServer } from '../helpers/test-server.js';

const HOUR_MS = 3_600_000;
/** Postgres: how many statements of this database wait for a lock on `customers`. */
const WAITING_ON_CUSTOMERS = `SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND relation = 'customers'::regclass
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
const VERSIONED = { Accept: 'application/vnd.api.v1+json' };

/** The request log of the account behind `api`, after writing what the server has recorded. */
async function logOf(server: { flushRequestLogs(): Promise<void> }, api: ApiClient, query = ''): Promise<ApiResponse> {
  await server.flushRequestLogs();
  const res = await api.get(`/v1/request_logs${query}`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res;
}

const requestIdOf = (res: ApiResponse): string => res.headers.get('request-id')!;

/** An entry as the recorder writes it, for the purge and buffer tests that write rows themselves. */
function anEntry(accountId: string, created: number, id: string): NewRequestLogRow {
  return { id, account_id: accountId, created, method: 'GET', path: '/v1/charges', status: 200, duration_ms: 1.5, idempotency_key: null };
}

/** A pino logger whose lines the test reads. */
function capturingLogger(): { logger: pino.Logger; lines: () => any[] } {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  const lines = () => written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  return { logger: pino({ level: 'warn' }, stream), lines };
}

forEachDatabase('request logs', (engine) => {
  const server = useTestServer(engine);

  describe('recording', () => {
    it('records a request: method, path without its query, status, Request-Id, Idempotency-Key, duration', async () => {
      server.clock.advance(42_000);
      const created = await server.api.post('/v1/customers', { email: 'a@example.com' }, { idempotencyKey: 'order-6735' });
      const listed = await server.api.get('/v1/customers?limit=3');
      expect(listed.status).to.equal(200);
      const log = await logOf(server, server.api);
      expect(log.body).to.include({ object: 'list', has_more: false, url: '/v1/request_logs' });
      const [get, post] = log.body.data;
      expect(log.body.data).to.have.length(2);
      expect(get).to.include({ id: requestIdOf(listed), object: 'request_log', livemode: false, method: 'GET', path: '/v1/customers' });
      expect(get).to.include({ status: 200, idempotency_key: null, created: unixSeconds(server.clock) });
      expect(created.status).to.equal(200);
      expect(post).to.include({ id: requestIdOf(created), method: 'POST', path: '/v1/customers', status: 200 });
      expect(post.idempotency_key).to.equal('order-6735');
      for (const entry of log.body.data) expect(entry.duration_ms).to.be.a('number').at.least(0);
    });

    it('lists a 402 decline and a 404 with their status', async () => {
      const declined = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' });
      expectError(declined, 402, 'card_declined');
      const missing = await server.api.get('/v1/customers/cus_missing');
      expectError(missing, 404, 'resource_missing');
      const { data } = (await logOf(server, server.api)).body;
      expect(data.map((e: any) => [e.id, e.method, e.path, e.status])).to.deep.equal([
        [requestIdOf(missing), 'GET', '/v1/customers/cus_missing', 404],
        [requestIdOf(declined), 'POST', '/v1/charges', 402],
      ]);
    });

    it("never lists another account's requests", async () => {
      const mine = await server.api.get('/v1/charges');
      const theirs = await server.otherApi.get('/v1/customers');
      expect((await logOf(server, server.api)).body.data.map((e: any) => e.id)).to.deep.equal([requestIdOf(mine)]);
      expect((await logOf(server, server.otherApi)).body.data.map((e: any) => e.id)).to.deep.equal([requestIdOf(theirs)]);
      const unknown = await server.otherApi.get(`/v1/request_logs?starting_after=${requestIdOf(mine)}`);
      expectError(unknown, 400, 'parameter_invalid', 'starting_after');
    });

    it('does not log reads of the request log itself, by path or by Accept', async () => {
      await server.api.get('/v1/request_logs');
      await server.api.get('/v1/request_logs?limit=200');
      await server.api.get('/request_logs', { headers: VERSIONED });
      expect((await logOf(server, server.api)).body.data).to.deep.equal([]);
    });

    it('records a path versioned by Accept as it was sent', async () => {
      const res = await server.api.get('/customers?limit=1', { headers: VERSIONED });
      expect(res.status).to.equal(200);
      expect((await logOf(server, server.api)).body.data.map((e: any) => [e.id, e.path])).to.deep.equal([[requestIdOf(res), '/customers']]);
    });

    it("does not record refused credentials, nor the operator's, in any account", async () => {
      const refused = new ApiClient(server.url, 'sk_test_notAKeyOfAnyAccount');
      expectError(await refused.get('/v1/customers'), 401, 'api_key_invalid');
      expectError(await refused.post('/v1/customers', { email: 'a@example.com' }), 401, 'api_key_invalid');
      expect((await refused.get('/v1/request_logs')).status).to.equal(401);
      const headers = { Authorization: ADMIN_AUTHORIZATION };
      expect((await server.anonymous.get(`/admin/accounts/${server.accountIds.first}/api_keys`, { headers })).status).to.equal(200);
      expect((await logOf(server, server.api)).body.data).to.deep.equal([]);
      expect((await logOf(server, server.otherApi)).body.data).to.deep.equal([]);
    });

    it('records GraphQL over HTTP as POST /graphql', async () => {
      const result = await graphql(server.url, server.apiKeys.first, '{ charges(first: 1) { edges { node { id } } } }');
      expect(result.status, JSON.stringify(result.body)).to.equal(200);
      const { data } = (await logOf(server, server.api)).body;
      const requestId = result.headers.get('request-id');
      expect(data.map((e: any) => [e.id, e.method, e.path, e.status])).to.deep.equal([[requestId, 'POST', '/graphql', 200]]);
    });

    it('records a request whose client went away before the answer, with the status the server gave', async () => {
      const connection = await RawConnection.open(server.url);
      const head = requestHead('POST', '/v1/customers', [
        ['Authorization', `Bearer ${server.apiKeys.first}`],
        ['Content-Type', 'application/json'],
        ['Expect', '100-continue'],
        ['Content-Length', '100'],
      ]);
      connection.write(head);
      // Invited, the request has passed authentication: the server is waiting for its body when
      // the client sends part of it and leaves, and answers that request with an error nobody reads.
      expect((await connection.response()).status).to.equal(100);
      connection.write('{"email":');
      connection.destroy();
      await eventually(async () => {
        const { data } = (await logOf(server, server.api)).body;
        expect(data.map((e: any) => [e.method, e.path])).to.deep.equal([['POST', '/v1/customers']]);
        expect(data[0].status).to.be.within(400, 599);
      });
    });

    it('records a request whose client went away while the server worked on it, with the answer the server gave later', async function () {
      // Postgres shows when the request waits on a lock the test holds (pg_locks), so the client
      // can leave at that moment, neither before the server read the request nor after it answered.
      if (engine !== 'postgres') this.skip();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const holding = server.db.transaction(async (tx) => {
        await tx.run('LOCK TABLE customers IN SHARE MODE');
        await released;
      });
      const connection = await RawConnection.open(server.url);
      const body = '{"email":"late@example.com"}';
      const headers: Array<[string, string]> = [['Authorization', `Bearer ${server.apiKeys.first}`], ['Content-Type', 'application/json']];
      connection.write(requestHead('POST', '/v1/customers', [...headers, ['Content-Length', String(body.length)]]) + body);
      await eventually(async () => expect((await server.db.one<{ n: number }>(WAITING_ON_CUSTOMERS))?.n).to.be.above(0));
      connection.destroy();
      release();
      await holding;
      await eventually(async () => {
        const { data } = (await logOf(server, server.api)).body;
        expect(data.map((e: any) => [e.method, e.path, e.status])).to.deep.equal([['POST', '/v1/customers', 200]]);
      });
      expect((await server.api.get('/v1/customers')).body.data.map((c: any) => c.email)).to.deep.equal(['late@example.com']);
    });

    it('writes entries without a flush, within a bounded wait', async () => {
      const res = await server.api.get('/v1/events');
      await eventually(async () => {
        const log = await server.api.get('/v1/request_logs');
        expect(log.body.data.map((e: any) => e.id)).to.deep.equal([requestIdOf(res)]);
      });
    });
  });

  describe('listRequestLogs', () => {
    it('needs request_logs:read: a restricted key without it gets 403, one with it the list', async () => {
      await aCustomer(server.api);
      const without = await server.api.post('/v1/api_keys', { scopes: ['charges:read'] });
      const withScope = await server.api.post('/v1/api_keys', { scopes: ['request_logs:read'] });
      expect(without.status, JSON.stringify(without.body)).to.equal(200);
      const refused = await new ApiClient(server.url, without.body.secret).get('/v1/request_logs');
      expect(expectError(refused, 403, 'insufficient_scope').message).to.include('request_logs:read');
      const reader = new ApiClient(server.url, withScope.body.secret);
      const { data } = (await logOf(server, reader)).body;
      // The secret key's requests and the restricted keys' alike: the log is the account's.
      expect(data.map((e: any) => e.path)).to.deep.equal(['/v1/api_keys', '/v1/api_keys', '/v1/customers']);
    });

    it('pages with starting_after and ending_before, and refuses an unknown cursor naming it', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.unshift(requestIdOf(await server.api.get(`/v1/customers/cus_${i}`)));
      const first = (await logOf(server, server.api, '?limit=2')).body;
      expect(first.data.map((e: any) => e.id)).to.deep.equal(ids.slice(0, 2));
      expect(first.has_more).to.equal(true);
      const second = (await logOf(server, server.api, `?limit=2&starting_after=${ids[1]}`)).body;
      expect(second.data.map((e: any) => e.id)).to.deep.equal(ids.slice(2, 4));
      const last = (await logOf(server, server.api, `?limit=2&starting_after=${ids[3]}`)).body;
      expect(last).to.include({ has_more: false });
      expect(last.data.map((e: any) => e.id)).to.deep.equal(ids.slice(4));
      const back = (await logOf(server, server.api, `?limit=2&ending_before=${ids[4]}`)).body;
      expect(back.data.map((e: any) => e.id)).to.deep.equal(ids.slice(2, 4));
      expect(back.has_more).to.equal(true);
      expectError(await server.api.get('/v1/request_logs?starting_after=req_unknown0'), 400, 'parameter_invalid', 'starting_after');
      expectError(await server.api.get('/v1/request_logs?ending_before=req_unknown0'), 400, 'parameter_invalid', 'ending_before');
      expectError(await server.api.get('/v1/request_logs?starting_after=cus_0'), 400, 'parameter_invalid', 'starting_after');
    });

    it('filters by created', async () => {
      const old = await server.api.get('/v1/charges');
      server.clock.advance(HOUR_MS);
      const recent = await server.api.get('/v1/charges');
      const since = unixSeconds(server.clock);
      const { data } = (await logOf(server, server.api, `?created[gte]=${since}`)).body;
      expect(data.map((e: any) => e.id)).to.deep.equal([requestIdOf(recent)]);
      const before = (await logOf(server, server.api, `?created[lt]=${since}`)).body.data;
      expect(before.map((e: any) => e.id)).to.deep.equal([requestIdOf(old)]);
    });
  });

  describe('retention', () => {
    it('purges the entries older than the retention and keeps the newer ones', async () => {
      const old = await server.api.get('/v1/charges');
      server.clock.advance(23 * HOUR_MS);
      const recent = await server.api.get('/v1/charges');
      const both = (await logOf(server, server.api)).body.data.map((e: any) => e.id);
      expect(both).to.deep.equal([requestIdOf(recent), requestIdOf(old)]);
      server.clock.advance(2 * HOUR_MS);
      expect(await purgeRequestLogs(server.db, unixSeconds(server.clock) - 24 * 3600)).to.equal(1);
      expect((await logOf(server, server.api)).body.data.map((e: any) => e.id)).to.deep.equal([requestIdOf(recent)]);
    });

    it('purges in bounded batches until none is left', async () => {
      const created = unixSeconds(server.clock);
      const old = Array.from({ length: 5003 }, (_, i) => anEntry(server.accountIds.first, created - 100 - i, `req_old${i}`));
      await insertRequestLogs(server.db, old);
      await insertRequestLogs(server.db, [anEntry(server.accountIds.first, created, 'req_kept')]);
      expect(await purgeRequestLogs(server.db, created - 50)).to.equal(5003);
      expect((await logOf(server, server.api)).body.data.map((e: any) => e.id)).to.deep.equal(['req_kept']);
    });

    it('reads REQUEST_LOG_RETENTION_HOURS: 24 by default, a whole number of at least 1', () => {
      expect(loadConfig({}).requestLogRetentionHours).to.equal(24);
      expect(loadConfig({ REQUEST_LOG_RETENTION_HOURS: '72' }).requestLogRetentionHours).to.equal(72);
      expect(() => loadConfig({ REQUEST_LOG_RETENTION_HOURS: '0' })).to.throw('REQUEST_LOG_RETENTION_HOURS must be at least 1');
      expect(() => loadConfig({ REQUEST_LOG_RETENTION_HOURS: '1.5' })).to.throw(
        'REQUEST_LOG_RETENTION_HOURS must be a whole number, got "1.5"',
      );
    });
  });

  describe('the buffer', () => {
    it('drops the oldest entries past its bound, and says how many', async () => {
      const { logger, lines } = capturingLogger();
      const buffer = createRequestLogBuffer(server.db, logger, { maxBuffered: 3, batchSize: 100, intervalMs: 60_000 });
      const now = unixSeconds(server.clock);
      for (let i = 0; i < 5; i++) buffer.record(anEntry(server.accountIds.first, now, `req_bound${i}`));
      await buffer.close();
      const ids = (await logOf(server, server.api)).body.data.map((e: any) => e.id);
      expect(ids).to.deep.equal(['req_bound4', 'req_bound3', 'req_bound2']);
      expect(lines().map((line) => [line.msg, line.dropped])).to.deep.equal([['request log entries dropped: writes fell behind', 2]]);
    });

    it('logs a failed write with the entries it dropped, and goes on writing', async () => {
      const { logger, lines } = capturingLogger();
      const buffer = createRequestLogBuffer(server.db, logger, { intervalMs: 60_000 });
      const now = unixSeconds(server.clock);
      buffer.record(anEntry(server.accountIds.first, now, 'req_twice'));
      buffer.record(anEntry(server.accountIds.first, now, 'req_twice'));
      await buffer.flush();
      expect(lines().map((line) => [line.msg, line.lost])).to.deep.equal([['writing the request log (its entries are dropped) failed', 2]]);
      buffer.record(anEntry(server.accountIds.first, now, 'req_after'));
      await buffer.close();
      buffer.record(anEntry(server.accountIds.first, now, 'req_closed'));
      await buffer.flush();
      expect((await logOf(server, server.api)).body.data.map((e: any) => e.id)).to.deep.equal(['req_after']);
    });

    it('writes at once when a batch is full, without waiting for the interval', async () => {
      const buffer = createRequestLogBuffer(server.db, pino({ level: 'silent' }), { batchSize: 3, intervalMs: 3_600_000 });
      const now = unixSeconds(server.clock);
      for (let i = 0; i < 3; i++) buffer.record(anEntry(server.accountIds.first, now, `req_full${i}`));
      await eventually(async () => {
        const { body } = await server.api.get('/v1/request_logs');
        expect(body.data.map((e: any) => e.id)).to.deep.equal(['req_full2', 'req_full1', 'req_full0']);
      });
      await buffer.close();
    });
  });
});
