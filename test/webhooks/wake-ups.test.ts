import { expect } from 'chai';
import { aCharge } from '../helpers/builders.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The worker is woken by each commit (Postgres: LISTEN on the events channel, which every process's
 * events announce; SQLite: the process's own commits), so it does not wait for its next poll. The
 * poll here is ten minutes: a delivery that arrives at all was woken.
 */
forEachDatabase('webhook worker wake-ups', (engine) => {
  let server: TestServer | undefined;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>> | undefined;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('attempts a delivery as soon as its event is committed, not at the next poll', async function () {
    this.timeout(30_000);
    receiver = await startCaptureReceiver();
    server = await startTestServer(engine, {
      webhookAllowPrivateNetworks: true,
      webhookWorker: { retryScheduleSeconds: [1] },
      workerPollIntervalMs: 600_000,
    });
    await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['charge.succeeded'] });
    // Let the worker's first look (at start) pass, so that it is pausing for its ten minutes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const charge = await aCharge(server.api);
    const [request] = await receiver.waitFor(1, 10_000);
    expect(JSON.parse(request.body).data.object).to.include({ id: charge.id });

    // And again: a wake-up that comes while it is busy is not lost either.
    const more = await Promise.all([aCharge(server.api), aCharge(server.api), aCharge(server.api)]);
    await receiver.waitFor(4, 10_000);
    const delivered = receiver.received.map((received) => JSON.parse(received.body).data.object.id);
    expect(delivered).to.have.members([charge.id, ...more.map((made) => made.id)]);
  });
});
