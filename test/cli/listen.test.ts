import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { verifyWebhook } from '../../sdk/src/node.js';
import { ApiClient } from '../helpers/api-client.js';
import { freePort, startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { runCli, startCli, type CliProcess } from '../helpers/cli-process.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';

const API_KEY = 'sk_test_cliListenForwarding000001';

/** What a handler on the developer's machine saw of one request. */
interface Received {
  eventId: string | undefined;
  type: string | undefined;
  /** Why verification failed; undefined when the SDK accepted the signature. */
  refused?: string;
}

/**
 * A webhook handler on 127.0.0.1 that verifies every request with the SDK's `verifyWebhook`, as an
 * integrator's would, and records each one (duplicates included: this test counts them).
 */
async function startVerifyingReceiver(secret: () => string) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = verifyWebhook(body, req.headers['service-signature'] as string | undefined, secret());
        received.push({ eventId: event.id, type: event.type });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
      } catch (error) {
        received.push({ eventId: undefined, type: undefined, refused: (error as Error).message });
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

forEachDatabase('payments listen', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  // One server for the tests that only watch what happens from their start (listen and tail mark
  // the events already there as seen); the resume test, which counts every event of its database
  // and restarts its servers, has its own.
  let shared: { database: TestDatabase; server: ApiProcess } | undefined;
  let dataDir: string;
  let servers: ApiProcess[];
  let databases: TestDatabase[];
  let listener: CliProcess | undefined;
  let receiver: Awaited<ReturnType<typeof startVerifyingReceiver>>;
  let secret = '';

  before(async function () {
    this.timeout(60_000);
    const database = await createDatabase(engine);
    try {
      shared = { database, server: await startApiProcess(database.target, { BOOTSTRAP_API_KEY: API_KEY }) };
    } catch (error) {
      await database.drop();
      throw error;
    }
  });
  after(async function () {
    this.timeout(30_000);
    await shared?.server.stop();
    await shared?.database.drop();
    shared = undefined;
  });
  beforeEach(async function () {
    this.timeout(60_000);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-listen-'));
    servers = [];
    databases = [];
    receiver = await startVerifyingReceiver(() => secret);
  });
  afterEach(async function () {
    this.timeout(30_000);
    await listener?.stop();
    listener = undefined;
    await Promise.all(servers.map((server) => server.stop()));
    await receiver.close();
    for (const database of databases) await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const sharedServer = () => shared!.server;
  /** A server of the test's own database (`database`), stopped after the test. */
  const startServer = async (database: TestDatabase, env: Record<string, string> = {}) => {
    const server = await startApiProcess(database.target, { BOOTSTRAP_API_KEY: API_KEY, ...env });
    servers.push(server);
    return server;
  };
  const cliEnv = () => ({ PAYMENTS_API_KEY: API_KEY, DATA_DIR: dataDir });
  const listen = async (apiBase: string, ...args: string[]) => {
    const printed = await runCli(['listen', '--print-secret'], cliEnv());
    expect(printed.code).to.equal(0);
    secret = printed.stdout.trim();
    listener = startCli(['--api-base', apiBase, 'listen', '--forward-to', receiver.url, ...args], cliEnv());
    const ready = await listener.waitForErrLine(/^Ready!/, 30_000);
    return { ready, listener };
  };
  const receivedIds = () => receiver.received.map((request) => request.eventId);

  it('forwards the events that trigger makes in another process, signed with the secret it printed', async function () {
    this.timeout(90_000);
    const server = sharedServer();
    const { ready, listener } = await listen(server.url);
    expect(secret).to.match(/^whsec_[A-Za-z0-9]{32}$/);
    expect(ready).to.include(secret).and.to.include(receiver.url);

    const triggered = await runCli(['--api-base', server.url, 'trigger', 'charge.succeeded'], cliEnv());
    expect(triggered.code, triggered.stderr).to.equal(0);

    const api = new ApiClient(server.url, API_KEY);
    const [made] = (await api.get('/v1/events?type=charge.succeeded')).body.data;
    await eventually(() => expect(receiver.received.map((request) => request.type)).to.include('charge.succeeded'), 15_000);
    expect(receiver.received.filter((request) => request.refused)).to.deep.equal([]);
    expect(receivedIds()).to.include(made.id);
    // One line per event on stdout: its type, its id and what the handler answered.
    const line = await listener.waitForLine(new RegExp(made.id));
    expect(line).to.match(/charge\.succeeded/).and.to.match(/→ 200 \[\d+ ms\]/);
    // The secret is kept: a handler configured once keeps verifying after listen restarts.
    expect((await runCli(['listen', '--print-secret'], cliEnv())).stdout.trim()).to.equal(secret);
  });

  it('forwards only the types asked for, and says what a handler that cannot be reached did', async function () {
    this.timeout(90_000);
    const server = sharedServer();
    const { listener } = await listen(server.url, '--events', 'customer.created');
    const api = new ApiClient(server.url, API_KEY);
    await aCharge(api);
    const customer = await aCustomer(api);
    const [created] = (await api.get(`/v1/events?object_id=${customer.id}`)).body.data;
    await eventually(() => expect(receivedIds()).to.deep.equal([created.id]), 15_000);

    await receiver.close();
    const another = await aCustomer(api);
    const [next] = (await api.get(`/v1/events?object_id=${another.id}`)).body.data;
    const failed = await listener.waitForLine(new RegExp(next.id), 15_000);
    expect(failed).to.match(/error: ECONNREFUSED/);
  });

  it('resumes after the server restarts and forwards every event committed meanwhile, each once', async function () {
    this.timeout(120_000);
    const database = await createDatabase(engine);
    databases.push(database);
    const port = String(await freePort());
    const first = await startServer(database, { PORT: port });
    // The other process over the same database is started while the first serves (it finds the
    // database migrated and the key made), so that only the commits below fall in the outage.
    const [other, { listener }] = await Promise.all([startServer(database), listen(first.url)]);
    await aCharge(new ApiClient(first.url, API_KEY));
    await eventually(() => expect(receiver.received).to.have.length(3), 15_000);

    // The listened-to server goes away; another process over the same database keeps committing.
    await first.stop();
    await listener.waitForErrLine(/connection lost/);
    const throughOther = new ApiClient(other.url, API_KEY);
    await aCharge(throughOther);
    await aCustomer(throughOther);

    // The server comes back on its address: listen reconnects, catches up, and goes on live.
    const [again] = await Promise.all([startServer(database, { PORT: port }), other.stop()]);
    await listener.waitForErrLine(/^reconnected/, 30_000);
    const api = new ApiClient(again.url, API_KEY);
    await aCustomer(api);
    const all = (await api.get('/v1/events?limit=100')).body.data.map((event: { id: string }) => event.id);
    expect(all).to.have.length(3 + 3 + 1 + 1);
    await eventually(() => expect(receivedIds()).to.have.members(all), 30_000);
    // No event forwarded twice, although the catch-up and the live stream both saw some.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receivedIds()).to.have.length(all.length);
    expect(receiver.received.filter((request) => request.refused)).to.deep.equal([]);
  });

  it('events tail prints each new event as one line of JSON, and nothing from before it started', async function () {
    this.timeout(60_000);
    const server = sharedServer();
    const api = new ApiClient(server.url, API_KEY);
    await aCustomer(api);
    listener = startCli(['--api-base', server.url, 'events', 'tail', '--json'], cliEnv());
    await listener.waitForErrLine(/^Ready!/, 30_000);
    const customer = await aCustomer(api);
    const line = await listener.waitForLine(new RegExp(customer.id), 15_000);
    expect(JSON.parse(line)).to.deep.include({ object: 'event', type: 'customer.created' });
    expect(JSON.parse(line).data.object).to.include({ id: customer.id });
    expect(listener.lines()).to.have.length(1);
    expect(await listener.stop()).to.equal(0);
  });

  it('fails with exit 1 when the key is refused, and 2 for an unknown event type', async function () {
    this.timeout(60_000);
    const server = sharedServer();
    // Two independent runs, each with a data directory of its own (both would make a listen secret).
    const keyless = fs.mkdtempSync(path.join(dataDir, 'keyless-'));
    const [refused, unknown] = await Promise.all([
      runCli(['--api-base', server.url, '--api-key', 'sk_test_notAKeyOfThisServer00000', 'listen', '--forward-to', receiver.url], { DATA_DIR: keyless }),
      runCli(['--api-base', server.url, 'listen', '--events', 'charge.exploded'], cliEnv()),
    ]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/API key|Invalid|invalid/);

    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.include('charge.exploded');
  });
});
