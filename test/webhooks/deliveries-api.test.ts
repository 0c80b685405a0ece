import { expect } from 'chai';
import { expectError } from '../helpers/builders.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { useTestServer } from '../helpers/test-server.js';

forEachDatabase('webhook deliveries API', (engine) => {
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  let answer = 500;
  let endpointId: string;
  // Hooks run in the order they are declared: the receiver is up before the server, and stops after it.
  beforeEach(async () => {
    answer = 500;
    receiver = await startCaptureReceiver(() => ({ status: answer }));
  });
  const server = useTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: [0.05] } });
  beforeEach(async () => {
    endpointId = (await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['customer.created'] })).body.id;
  });
  afterEach(() => receiver.close());

  /** Creates customers and waits until each one's delivery has failed for good. */
  async function failedDeliveries(count: number): Promise<any[]> {
    for (let i = 0; i < count; i++) await server.api.post('/v1/customers', { email: `c${i}@example.com` });
    let failed: any[] = [];
    await eventually(async () => {
      failed = (await server.api.get('/v1/webhook_deliveries?status=failed')).body.data;
      expect(failed).to.have.length(count);
    });
    return failed;
  }

  it('shows a delivery that failed for good, with its attempts, in the failed views', async () => {
    const [delivery] = await failedDeliveries(1);
    expect(delivery).to.include({ object: 'webhook_delivery', endpoint: endpointId, status: 'failed', attempt_count: 2 });
    expect(delivery.next_attempt_at).to.equal(null);
    const detail = (await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).body;
    expect(detail.attempts.map((a: any) => [a.response_status, a.manual])).to.deep.equal([
      [500, false],
      [500, false],
    ]);
    expect(detail.attempts[0].response_body).to.equal('ok');
    const failedEvents = (await server.api.get('/v1/events?delivery_success=false')).body.data;
    expect(failedEvents.map((e: any) => e.id)).to.deep.equal([delivery.event]);
    expect((await server.api.get('/v1/events?delivery_success=true')).body.data).to.deep.equal([]);
    const byEndpoint = await server.api.get(`/v1/webhook_deliveries?endpoint=${endpointId}&event=${delivery.event}`);
    expect(byEndpoint.body.data.map((d: any) => d.id)).to.deep.equal([delivery.id]);
  });

  it('retries one delivery by hand: a manual attempt, then succeeded', async () => {
    const [delivery] = await failedDeliveries(1);
    answer = 200;
    const retried = await server.api.post(`/v1/webhook_deliveries/${delivery.id}/retry`);
    expect(retried.status).to.equal(200);
    expect(retried.body.status).to.equal('pending');
    await eventually(async () => {
      const detail = (await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).body;
      expect(detail.status).to.equal('succeeded');
      expect(detail.attempts.at(-1)).to.include({ response_status: 200, manual: true });
    });
    expect((await server.api.get('/v1/events?delivery_success=false')).body.data).to.deep.equal([]);
    expect((await server.api.get(`/v1/events/${delivery.event}`)).body.pending_webhooks).to.equal(0);
  });

  it('replays an endpoint by time range, with a dry run that sends nothing', async () => {
    await failedDeliveries(3);
    const sentBefore = receiver.received.length;
    const dry = await server.api.post(`/v1/webhook_endpoints/${endpointId}/replay`, { dry_run: true });
    expect(dry.body).to.deep.equal({ object: 'webhook_replay', count: 3, dry_run: true });
    const past = Math.floor(server.clock.nowMs() / 1000) - 3600;
    const none = await server.api.post(`/v1/webhook_endpoints/${endpointId}/replay`, { 'created[lte]': past }, { form: true });
    expect(none.body.count).to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.length).to.equal(sentBefore);
    answer = 200;
    const replay = await server.api.post(`/v1/webhook_endpoints/${endpointId}/replay`, { created: { gte: past } });
    expect(replay.body).to.deep.equal({ object: 'webhook_replay', count: 3, dry_run: false });
    await eventually(async () => {
      expect((await server.api.get('/v1/webhook_deliveries?status=succeeded')).body.data).to.have.length(3);
    });
  });

  it("answers 404 for another account's delivery or endpoint", async () => {
    const [delivery] = await failedDeliveries(1);
    expectError(await server.otherApi.get(`/v1/webhook_deliveries/${delivery.id}`), 404, 'resource_missing');
    expectError(await server.otherApi.post(`/v1/webhook_deliveries/${delivery.id}/retry`), 404, 'resource_missing');
    expectError(await server.otherApi.post(`/v1/webhook_endpoints/${endpointId}/replay`, {}), 404, 'resource_missing');
    expect((await server.otherApi.get('/v1/webhook_deliveries')).body.data).to.deep.equal([]);
  });
});
