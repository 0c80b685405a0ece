import { expect } from 'chai';
import { runCli } from '../helpers/cli-process.js';
import { eventually } from '../helpers/eventually.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { against, useCliServer } from './cli-server.js';

type Receiver = Awaited<ReturnType<typeof startCaptureReceiver>>;

forEachDatabase('payments events resend', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  // The worker runs in the API process (ROLE=all) and may deliver to the receivers on 127.0.0.1.
  const server = useCliServer(engine, { ROLE: 'all', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const receivers: Receiver[] = [];
  const endpoints: string[] = [];
  let chargeEvent: string;

  before(async function () {
    this.timeout(30_000);
    for (let i = 0; i < 2; i++) {
      const receiver = await startCaptureReceiver();
      receivers.push(receiver);
      const endpoint = await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['charge.succeeded'] });
      expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(200);
      endpoints.push(endpoint.body.id);
    }
    const charge = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa' });
    const events = await server.api.get(`/v1/events?type=charge.succeeded&object_id=${charge.body.id}`);
    chargeEvent = events.body.data[0].id;
    for (const receiver of receivers) await receiver.waitFor(1, 15_000);
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  /** The event ids of what `receiver` got, in order. */
  const eventIds = (receiver: Receiver) => receiver.received.map((request) => (JSON.parse(request.body) as { id: string }).id);

  it("sends the event again to every endpoint that received it, printing the deliveries", async function () {
    this.timeout(30_000);
    const result = await runCli(against(server, 'events', 'resend', chargeEvent), server.cliEnv());
    expect(result.code, result.stderr).to.equal(0);
    const deliveries = JSON.parse(result.stdout) as Array<{ object: string; event: string; endpoint: string }>;
    expect(deliveries.map((delivery) => delivery.endpoint)).to.have.members(endpoints);
    for (const delivery of deliveries) expect(delivery).to.include({ object: 'webhook_delivery', event: chargeEvent });
    expect(result.stderr).to.include(`Resent ${chargeEvent} to 2 endpoints`);
    // Both had succeeded: the API resends succeeded deliveries as well as failed ones.
    for (const receiver of receivers) {
      await receiver.waitFor(2, 15_000);
      expect(eventIds(receiver)).to.deep.equal([chargeEvent, chargeEvent]);
    }
  });

  it('sends it to the one endpoint named by --webhook-endpoint', async function () {
    this.timeout(30_000);
    const deliveryTo = async (endpoint: string) =>
      (await server.api.get(`/v1/webhook_deliveries?event=${chargeEvent}&endpoint=${endpoint}`)).body.data[0];
    // Attempts are recorded once answered: wait until every attempt so far is.
    await eventually(async () => {
      for (const [index, endpoint] of endpoints.entries()) {
        expect(await deliveryTo(endpoint)).to.include({ status: 'succeeded', attempt_count: receivers[index].received.length });
      }
    }, 15_000);
    const received = receivers.map((receiver) => receiver.received.length);
    const result = await runCli(against(server, 'events', 'resend', chargeEvent, '--webhook-endpoint', endpoints[1]), server.cliEnv());
    expect(result.code, result.stderr).to.equal(0);
    const deliveries = JSON.parse(result.stdout) as Array<{ id: string; endpoint: string; status: string }>;
    expect(deliveries.map((delivery) => delivery.endpoint)).to.deep.equal([endpoints[1]]);
    // The other endpoint's delivery was not queued again (a retry makes it pending at once).
    expect(await deliveryTo(endpoints[0])).to.include({ status: 'succeeded', attempt_count: received[0] });
    await receivers[1].waitFor(received[1] + 1, 15_000);
    expect(eventIds(receivers[1]).at(-1)).to.equal(chargeEvent);
  });

  it('exits 1 saying so for an event that went to no endpoint (or not to the one named)', async () => {
    const customer = await server.api.post('/v1/customers', { email: 'nobody-listens@example.com' });
    const events = await server.api.get(`/v1/events?type=customer.created&object_id=${customer.body.id}`);
    const event = events.body.data[0].id as string;
    const [anyEndpoint, named] = await Promise.all([
      runCli(against(server, 'events', 'resend', event), server.cliEnv()),
      runCli(against(server, 'events', 'resend', event, '--webhook-endpoint', endpoints[0]), server.cliEnv()),
    ]);
    expect(anyEndpoint.code).to.equal(1);
    expect(anyEndpoint.stdout).to.equal('');
    expect(anyEndpoint.stderr).to.include(`event ${event} was not sent to any webhook endpoint`);
    expect(named.code).to.equal(1);
    expect(named.stderr).to.include(`event ${event} was not sent to webhook endpoint ${endpoints[0]}`);
  });

  it('exits 1 with the 404 envelope for an unknown event', async () => {
    const result = await runCli(against(server, 'events', 'resend', 'evt_doesNotExist'), server.cliEnv());
    expect(result.code).to.equal(1);
    expect(JSON.parse(result.stderr).error).to.include({ type: 'invalid_request_error', code: 'resource_missing' });
  });
});
