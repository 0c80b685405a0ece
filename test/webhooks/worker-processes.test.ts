import { expect } from 'chai';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process.js';

/** The ids of the events the receiver got (a delivery may arrive more than once after a crash). */
function receivedEventIds(receiver: Awaited<ReturnType<typeof startCaptureReceiver>>): string[] {
  return receiver.received.map((request) => request.headers['webhook-id'] as string);
}

async function allEventIds(server: TestServer): Promise<string[]> {
  const rows = await server.db.all<{ id: string }>('SELECT id FROM events ORDER BY seq');
  return rows.map((row) => row.id);
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

forEachDatabase('webhook worker processes', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop('SIGKILL')));
    await server?.close();
    await receiver?.close();
  });

  async function withEvents(count: number, delayMs: number): Promise<string[]> {
    receiver = await startCaptureReceiver(() => ({ status: 200 }), { delayMs });
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true });
    await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
    for (let i = 0; i < count; i++) await server.api.post('/v1/users', { email: `u${i}@example.com` });
    return allEventIds(server);
  }

  it('loses no event when a worker is killed with SIGKILL in the middle of a batch', async function () {
    this.timeout(60_000);
    const events = await withEvents(40, 300);
    const first = await startWorkerProcess(server.target, { WEBHOOK_LEASE_SECONDS: '1' });
    workers.push(first);
    await until(() => receiver.received.length >= 5, 20_000, 'the first deliveries');
    await first.stop('SIGKILL'); // attempts in flight die with it; their leases expire after 1 s
    const second = await startWorkerProcess(server.target, { WEBHOOK_LEASE_SECONDS: '1' });
    workers.push(second);
    await until(() => new Set(receivedEventIds(receiver)).size === events.length, 30_000, 'every event');
    expect([...new Set(receivedEventIds(receiver))].sort()).to.deep.equal([...events].sort());
    let unfinished = -1;
    for (let i = 0; i < 100 && unfinished !== 0; i++) {
      unfinished = (await server.db.all("SELECT id FROM webhook_deliveries WHERE status <> 'succeeded'")).length;
      if (unfinished) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(unfinished, 'deliveries not recorded as succeeded').to.equal(0);
  });

  it('never sends an attempt twice when two worker processes share the database', async function () {
    this.timeout(60_000);
    const events = await withEvents(100, 20);
    workers.push(...(await Promise.all([startWorkerProcess(server.target), startWorkerProcess(server.target)])));
    await until(() => receiver.received.length >= events.length, 30_000, 'every event');
    await new Promise((resolve) => setTimeout(resolve, 500)); // a double send would arrive meanwhile
    const ids = receivedEventIds(receiver);
    expect(ids).to.have.length(events.length);
    expect(new Set(ids).size).to.equal(events.length);
  });

  it('on SIGTERM finishes the attempts in flight, records them, and leaves no lease behind', async function () {
    this.timeout(60_000);
    await withEvents(10, 500);
    const worker = await startWorkerProcess(server.target);
    workers.push(worker);
    await until(() => receiver.received.length >= 1, 20_000, 'the first delivery');
    await worker.stop('SIGTERM');
    const attempts = await server.db.all<{ response_status: number | null }>('SELECT response_status FROM webhook_attempts');
    expect(attempts.length).to.equal(receiver.received.length);
    expect(attempts.every((attempt) => attempt.response_status === 200)).to.equal(true);
    expect(await server.db.all('SELECT id FROM webhook_deliveries WHERE lease_owner IS NOT NULL')).to.deep.equal([]);
  });
});
