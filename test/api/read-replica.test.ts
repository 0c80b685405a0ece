import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { adminCredentialsDigest } from '../../src/auth/authenticator.js';
import { createServices, startRoles, type CompositionConfig, type Roles, type Services } from '../../src/composition.js';
import { loadConfig } from '../../src/config.js';
import { createAccount } from '../../src/resources/accounts/accounts.service.js';
import { ApiClient } from '../helpers/api-client.js';
import { startApiProcess } from '../helpers/api-process.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { graphql } from '../helpers/graphql-client.js';
import { replicaUnavailableReason, startReplicatedPostgres, type ReplicatedPostgres } from '../helpers/postgres-replica.js';
import { runMain } from '../helpers/run-main.js';
import { FakeClock, testConfig } from '../helpers/test-server.js';

const CHARGE = { amount: 2500, currency: 'usd', source: 'tok_visa' };

/** The ids of a list response's objects. */
function idsOf(response: { status: number; body: { data: Array<{ id: string }> } }): string[] {
  expect(response.status).to.equal(200);
  return response.body.data.map((object) => object.id);
}

/**
 * `DATABASE_READ_URL`: lists and events are read from a streaming replica, which may lag; what a
 * client just wrote and reads back is read from the primary. Proved on a real primary and replica
 * made by the test, with the replica's replay paused so that it lags for as long as a test needs.
 */
describe('read replicas (DATABASE_READ_URL)', function () {
  before(function () {
    requireProcesses(this);
  });
  let cluster: ReplicatedPostgres | undefined;
  let services: Services | undefined;
  let roles: Roles | undefined;
  let api: ApiClient;
  let apiKey: string;

  before(async function () {
    const unavailable = replicaUnavailableReason();
    if (unavailable) {
      this.test!.parent!.title += ` (skipped: ${unavailable})`;
      this.skip();
    }
    this.timeout(120_000);
    cluster = await startReplicatedPostgres();
    const config: CompositionConfig = { ...testConfig(), databaseReadUrl: cluster.replicaUrl };
    const clock = new FakeClock();
    // The composition root migrates the primary and opens the replica, as `npm start` does.
    services = await createServices(config, {
      target: { kind: 'postgres', url: cluster.primaryUrl },
      clock,
      logger: pino({ level: 'silent' }),
      adminDigest: adminCredentialsDigest('admin:password'),
      metrics: false,
    });
    await services.eventStream!.ready();
    const account = await services.db.transaction((tx) => createAccount(tx, clock, { name: 'Test', email: 'owner@example.com' }));
    apiKey = account.api_key;
    roles = await startRoles(services, { cutConnectionsOnClose: true });
    api = new ApiClient(roles.api!.url, apiKey);
    await cluster.caughtUp();
  });

  afterEach(async () => {
    // A test that failed while the replica lagged leaves it caught up for the next.
    await cluster?.resumeReplay();
    await cluster?.caughtUp();
  });

  after(async function () {
    this.timeout(60_000);
    // Stopping the roles closes the services too (the primary's and the replica's pools).
    await roles?.close();
    if (!roles) await services?.opened.closeAll();
    await cluster?.stop();
  });

  it('reads a customer just created from the primary, while the list, read from the lagging replica, has it only once it catches up', async () => {
    await cluster!.pauseReplay();
    const created = await api.post('/v1/customers', { email: 'lag@example.com' });
    expect(created.status).to.equal(200);
    const { id } = created.body;

    const retrieved = await api.get(`/v1/customers/${id}`);
    expect(retrieved.status).to.equal(200);
    expect(retrieved.body).to.include({ id, email: 'lag@example.com' });
    expect(idsOf(await api.get('/v1/customers'))).to.not.include(id);
    // A cursor the replica does not know yet is found on the primary, not refused.
    expect((await api.get(`/v1/customers?starting_after=${id}`)).status).to.equal(200);
    // A nested list whose parent the replica lacks finds it on the primary: an empty page, not a 404.
    expect(idsOf(await api.get(`/v1/customers/${id}/charges`))).to.deep.equal([]);

    await cluster!.resumeReplay();
    await cluster!.caughtUp();
    expect(idsOf(await api.get('/v1/customers'))).to.include(id);
  });

  it("retrieves a charge's event at once while the replica lags (a miss there is read again on the primary); the events list lags", async () => {
    await cluster!.pauseReplay();
    const charge = await api.post('/v1/charges', CHARGE);
    expect(charge.status).to.equal(200);
    // The event's id as a webhook consumer would receive it; read where it was written.
    const row = await services!.db.one<{ id: string }>('SELECT id FROM events WHERE object_id = ? AND type = ?', [
      charge.body.id,
      'charge.succeeded',
    ]);
    const eventId = row!.id;

    const event = await api.get(`/v1/events/${eventId}`);
    expect(event.status).to.equal(200);
    expect(event.body).to.include({ id: eventId, type: 'charge.succeeded' });
    expect(event.body.data.object.id).to.equal(charge.body.id);
    // An event on neither is still a 404.
    expect((await api.get('/v1/events/evt_doesnotexist000000000')).status).to.equal(404);
    expect(idsOf(await api.get('/v1/events'))).to.not.include(eventId);
    // Inside a write, reads are the transaction's, on the primary: the refund finds the new charge.
    expect((await api.post('/v1/refunds', { charge: charge.body.id })).status).to.equal(200);
    // GraphQL: retrieve from the primary, the connection from the replica.
    const answer = await graphql(roles!.api!.url, apiKey, `{ charge(id: "${charge.body.id}") { id } charges(first: 100) { edges { node { id } } } }`);
    expect(answer.body.errors).to.equal(undefined);
    expect(answer.body.data!.charge.id).to.equal(charge.body.id);
    expect(answer.body.data!.charges.edges.map((edge: { node: { id: string } }) => edge.node.id)).to.not.include(charge.body.id);

    await cluster!.resumeReplay();
    await cluster!.caughtUp();
    expect(idsOf(await api.get('/v1/events'))).to.include(eventId);
  });

  it('replays an idempotent POST from the primary while the replica lags: the stored response, no second object', async () => {
    await cluster!.pauseReplay();
    const body = { email: 'once@example.com', name: 'Once' };
    const first = await api.post('/v1/customers', body, { idempotencyKey: 'replica-replay-1' });
    expect(first.status).to.equal(200);
    const again = await api.post('/v1/customers', body, { idempotencyKey: 'replica-replay-1' });
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);

    await cluster!.resumeReplay();
    await cluster!.caughtUp();
    const sameEmail = await api.get(`/v1/customers?email=${encodeURIComponent(body.email)}`);
    expect(idsOf(sameEmail)).to.deep.equal([first.body.id]);
  });

  it('serves the lists from the primary while the replica is down, and from the replica again once it is back', async function () {
    this.timeout(90_000);
    await cluster!.stopReplica();
    try {
      const created = await api.post('/v1/customers', { email: 'down@example.com' });
      expect(created.status).to.equal(200);
      const listed = await api.get('/v1/customers');
      expect(listed.status).to.equal(200);
      expect(idsOf(listed)).to.include(created.body.id);
      expect((await api.get('/v1/events')).status).to.equal(200);
    } finally {
      await cluster!.startReplica();
    }
    await cluster!.caughtUp();
    // Connections the restart broke are replaced as they fail (each such read went to the primary).
    for (let i = 0; i < 12; i++) expect((await api.get('/v1/customers')).status).to.equal(200);
    await cluster!.pauseReplay();
    const lagging = await api.post('/v1/customers', { email: 'back@example.com' });
    expect(idsOf(await api.get('/v1/customers'))).to.not.include(lagging.body.id);
  });

  it('names the replica by host and port in the start-up line, never its password', async function () {
    this.timeout(60_000);
    const replica = new URL(cluster!.replicaUrl);
    // Trust authentication ignores it; the process must not print it.
    replica.password = 'not-to-be-printed';
    const started = await startApiProcess(
      { kind: 'postgres', url: cluster!.primaryUrl },
      { DATABASE_READ_URL: replica.toString(), LOG_LEVEL: 'info', BOOTSTRAP_API_KEY: 'sk_test_replicasummary' },
    );
    try {
      await eventually(() => expect(started.output()).to.include('Ready at'), 30_000);
      const ready = started.output().split('\n').find((line) => line.includes('Ready at'))!;
      expect(JSON.parse(ready)).to.include({ read_replica: `127.0.0.1:${replica.port}` });
      expect(ready).to.include(`(lists and events read from the replica at 127.0.0.1:${replica.port})`);
      expect(started.output()).to.not.include('not-to-be-printed');
    } finally {
      await started.stop();
    }
  });

  it('refuses to start when the replica cannot be reached, naming its host and port but never its password', async function () {
    this.timeout(60_000);
    const unreachable = new URL(cluster!.replicaUrl);
    unreachable.port = '1';
    unreachable.password = 'not-to-be-printed';
    const run = await runMain({ DATABASE_URL: cluster!.primaryUrl, DATABASE_READ_URL: unreachable.toString() });
    expect(run.timedOut).to.equal(false);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include('payments-api: cannot open the read replica (DATABASE_READ_URL, 127.0.0.1:1)');
    expect(run.stderr + run.stdout).to.not.include('not-to-be-printed');
  });
});

describe('DATABASE_READ_URL settings', () => {
  it('is refused beside SQLite, where there is no primary to replicate', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://replica.internal/payments' })).to.throw(
      'DATABASE_READ_URL needs a Postgres DATABASE_URL',
    );
  });

  it('must be a postgres:// URL, and is read beside a Postgres DATABASE_URL', () => {
    const primary = 'postgres://primary.internal/payments';
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'mysql://replica.internal/payments' })).to.throw(
      'DATABASE_READ_URL must be a postgres:// URL',
    );
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'postgres://replica.internal/payments' }).databaseReadUrl).to.equal(
      'postgres://replica.internal/payments',
    );
    expect(loadConfig({ DATABASE_URL: primary }).databaseReadUrl).to.equal(undefined);
  });

  it('stops a start on SQLite with one clear line and status 1', async function () {
    requireProcesses(this);
    this.timeout(60_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-read-url-'));
    try {
      const run = await runMain({ DATA_DIR: dataDir, DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:5432/test' });
      expect(run.timedOut).to.equal(false);
      expect(run.code).to.equal(1);
      expect(run.stderr.trim()).to.equal(
        'payments-api: invalid configuration: DATABASE_READ_URL needs a Postgres DATABASE_URL: a read replica is of a Postgres primary (unset DATABASE_READ_URL on SQLite)',
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
