import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Registry } from 'prom-client';
import { loadSpec } from '../../src/operations/spec.js';
import { ApiClient } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase, type Engine } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { ADMIN, FakeClock, startTestServer, type TestServer } from '../helpers/test-server.js';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process.js';

const ADMIN_BASIC = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`;

/** The app as main.ts assembles it (the composition root), with the process's metrics registry. */
interface MeasuredServer extends TestServer {
  registry: Registry;
}

/** `retryScheduleSeconds`: run the in-process webhook worker too, reporting its attempts to the same registry. */
async function startMeasuredServer(
  engine: Engine,
  options: { clock?: FakeClock; public?: boolean; retryScheduleSeconds?: number[] } = {},
): Promise<MeasuredServer> {
  const server = await startTestServer(engine, {
    clock: options.clock,
    metrics: { public: options.public ?? false },
    webhookAllowPrivateNetworks: true,
    webhookWorker: options.retryScheduleSeconds && { retryScheduleSeconds: options.retryScheduleSeconds },
  });
  return { ...server, registry: server.registry! };
}

interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus' text exposition format (the sample lines; comments skipped). */
function parseExposition(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels, or undefined when there is none. */
function sampleValue(samples: PromSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  const found = samples.find(
    (s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v),
  );
  return found?.value;
}

/** How much a counter moved between two scrapes (a series that did not exist yet counts from 0). */
function moved(before: PromSample[], after: PromSample[], name: string, labels: Record<string, string>): number {
  const now = sampleValue(after, name, labels);
  expect(now, `${name} ${JSON.stringify(labels)} in the scrape`).to.be.a('number');
  return now! - (sampleValue(before, name, labels) ?? 0);
}

/** `authorization`: the header to send; null sends none. */
async function scrape(url: string, authorization: string | null = ADMIN_BASIC): Promise<Response> {
  return fetch(`${url}/metrics`, { headers: authorization ? { Authorization: authorization } : {} });
}

async function scrapeSamples(url: string): Promise<PromSample[]> {
  const res = await scrape(url);
  expect(res.status).to.equal(200);
  return parseExposition(await res.text());
}

/** A URL on which nothing listens: every attempt to it gets no response. */
async function closedPortUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/webhooks`;
}

forEachDatabase('GET /metrics', (engine) => {
  let server: MeasuredServer | undefined;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>> | undefined;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
    server = receiver = undefined;
  });

  it('serves the process registry to the admin credentials only, with the error envelope otherwise', async () => {
    server = await startMeasuredServer(engine);
    const ok = await scrape(server.url);
    expect(ok.status).to.equal(200);
    expect(ok.headers.get('content-type')).to.equal(server.registry.contentType);
    const samples = parseExposition(await ok.text());
    expect(sampleValue(samples, 'process_cpu_user_seconds_total')).to.be.a('number');

    for (const authorization of [null, `Basic ${Buffer.from('admin:wrong').toString('base64')}`, 'Bearer sk_test_whatever']) {
      const refused = await scrape(server.url, authorization);
      const body = (await refused.json()) as { error: { request_id: string } };
      expectError({ status: refused.status, body, headers: refused.headers }, 401, 'admin_credentials_invalid');
      expect(body.error.request_id).to.equal(refused.headers.get('request-id'));
      expect(refused.headers.get('www-authenticate')).to.match(/^Basic /);
    }
  });

  it('answers without credentials when METRICS_PUBLIC is set', async () => {
    server = await startMeasuredServer(engine, { public: true });
    const res = await scrape(server.url, null);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.match(/^http_request_duration_seconds_count\{operation="retrieveCharge",method="GET"\} 0$/m);
  });

  it('counts and times requests by operationId, method and status, never by URL', async () => {
    server = await startMeasuredServer(engine);
    const before = await scrapeSamples(server.url);
    const customer = await aCustomer(server.api);
    const requestIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await server.api.get(`/v1/customers/${customer.id}`);
      expect(res.status).to.equal(200);
      requestIds.push(res.headers.get('request-id')!);
    }
    expect((await server.api.get('/v1/customers/cus_doesnotexist000')).status).to.equal(404);
    expect((await server.api.get(`/v1/nothing_here/${customer.id}`)).status).to.equal(404);
    expect((await new ApiClient(server.url).get('/v1/customers')).status).to.equal(401);
    expect((await server.api.post('/graphql', { query: '{ __typename }' })).status).to.equal(200);
    const after = await scrapeSamples(server.url);

    const requests = (operation: string, method: string, status: string) =>
      moved(before, after, 'http_requests_total', { operation, method, status });
    expect(requests('createCustomer', 'POST', '200')).to.equal(1);
    expect(requests('retrieveCustomer', 'GET', '200')).to.equal(2);
    expect(requests('retrieveCustomer', 'GET', '404')).to.equal(1);
    expect(requests('other', 'GET', '404')).to.equal(1);
    expect(requests('listCustomers', 'GET', '401')).to.equal(1);
    expect(requests('graphql', 'POST', '200')).to.equal(1);
    // The scrapes themselves are not API traffic.
    expect(sampleValue(after, 'http_requests_total', { operation: 'other', method: 'GET', status: '200' })).to.equal(undefined);

    const duration = { operation: 'retrieveCustomer', method: 'GET' };
    expect(moved(before, after, 'http_request_duration_seconds_count', duration)).to.equal(3);
    expect(moved(before, after, 'http_request_duration_seconds_bucket', { ...duration, le: '+Inf' })).to.equal(3);
    expect(moved(before, after, 'http_request_duration_seconds_sum', duration)).to.be.greaterThan(0);
    const buckets = after.filter((s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.operation === 'retrieveCustomer');
    expect(buckets.map((s) => s.value)).to.deep.equal([...buckets.map((s) => s.value)].sort((a, b) => a - b));

    const operationIds = Object.values(loadSpec().paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId),
    );
    for (const sample of after.filter((s) => s.name.startsWith('http_request'))) {
      expect([...operationIds, 'graphql', 'other']).to.include(sample.labels.operation);
    }
    const ids = [customer.id, 'cus_doesnotexist000', ...requestIds];
    for (const sample of after) {
      for (const value of Object.values(sample.labels)) {
        expect(ids.some((id) => value.includes(id)), `${sample.name} ${JSON.stringify(sample.labels)}`).to.equal(false);
        expect(value).not.to.include('/v1/');
      }
    }
  });

  it('counts webhook attempts by outcome, times them, and shows the deliveries that failed for good', async function () {
    this.timeout(20_000);
    receiver = await startCaptureReceiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    server = await startMeasuredServer(engine, { clock: new FakeClock(Date.now(), true), retryScheduleSeconds: [0.05] });
    for (const url of [receiver.url, await closedPortUrl()]) {
      const res = await server.api.post('/v1/webhook_endpoints', { url, enabled_events: ['customer.created'] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    const before = await scrapeSamples(server.url);
    expect(sampleValue(before, 'webhook_delivery_attempts_total', { outcome: 'no_response' })).to.equal(0);
    await aCustomer(server.api);
    await eventually(async () => {
      const rows = await server!.db.all<{ status: string }>("SELECT status FROM webhook_deliveries WHERE status = 'pending'");
      expect(rows).to.have.length(0);
    }, 10_000);
    const after = await scrapeSamples(server.url);

    const attempts = (outcome: string) => moved(before, after, 'webhook_delivery_attempts_total', { outcome });
    expect(attempts('failed')).to.equal(1);
    expect(attempts('succeeded')).to.equal(1);
    expect(attempts('no_response')).to.equal(2);
    expect(moved(before, after, 'webhook_delivery_attempt_duration_seconds_count', { outcome: 'no_response' })).to.equal(2);
    expect(moved(before, after, 'webhook_delivery_attempt_duration_seconds_count', { outcome: 'succeeded' })).to.equal(1);
    expect(sampleValue(after, 'webhook_deliveries', { status: 'failed' })).to.equal(1);
    expect(sampleValue(after, 'webhook_deliveries', { status: 'pending' })).to.equal(0);
    expect(sampleValue(after, 'webhook_oldest_pending_delivery_age_seconds')).to.equal(0);
  });

  it('shows the pending backlog and how long its oldest delivery has been due, read from the database', async () => {
    receiver = await startCaptureReceiver();
    server = await startMeasuredServer(engine);
    await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['customer.created'] });
    await aCustomer(server.api);
    server.clock.advance(30_000);
    await aCustomer(server.api);
    server.clock.advance(60_000);
    const samples = await scrapeSamples(server.url);
    expect(sampleValue(samples, 'webhook_deliveries', { status: 'pending' })).to.equal(2);
    expect(sampleValue(samples, 'webhook_deliveries', { status: 'failed' })).to.equal(0);
    expect(sampleValue(samples, 'webhook_oldest_pending_delivery_age_seconds')).to.equal(90);
    // No worker runs in this process: it has no attempt metrics to show.
    expect(sampleValue(samples, 'webhook_delivery_attempts_total', { outcome: 'succeeded' })).to.equal(undefined);
  });
});

forEachDatabase('a ROLE=worker process with METRICS_PORT', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  let server: MeasuredServer | undefined;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>> | undefined;
  let worker: WorkerProcess | undefined;
  afterEach(async () => {
    await worker?.stop('SIGKILL');
    await server?.close();
    await receiver?.close();
    server = receiver = worker = undefined;
  });

  it('serves its own attempts on that port, to the admin credentials only, and closes it on SIGTERM', async function () {
    this.timeout(40_000);
    receiver = await startCaptureReceiver();
    server = await startMeasuredServer(engine, { clock: new FakeClock(Date.now(), true) });
    await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['customer.created'] });
    await aCustomer(server.api);
    const metricsUrl = new URL(await closedPortUrl()).origin;
    worker = await startWorkerProcess(server.target, {
      METRICS_PORT: new URL(metricsUrl).port,
      ADMIN_USER: ADMIN.user,
      ADMIN_PASSWORD: ADMIN.password,
    });
    await receiver.waitFor(1);
    await eventually(async () => {
      const samples = await scrapeSamples(metricsUrl);
      expect(sampleValue(samples, 'webhook_delivery_attempts_total', { outcome: 'succeeded' })).to.equal(1);
      expect(sampleValue(samples, 'webhook_deliveries', { status: 'pending' })).to.equal(0);
    }, 10_000);
    const samples = await scrapeSamples(metricsUrl);
    expect(sampleValue(samples, 'process_cpu_user_seconds_total')).to.be.a('number');
    expect(samples.some((s) => s.name.startsWith('http_request'))).to.equal(false);
    expect((await scrape(metricsUrl, null)).status).to.equal(401);

    await worker.stop('SIGTERM');
    expect(worker.child.exitCode).to.equal(0);
    const refused = await scrape(metricsUrl).then(
      () => false,
      () => true,
    );
    expect(refused, 'the metrics port still answers after SIGTERM').to.equal(true);
  });
});
