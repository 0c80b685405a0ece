import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { verifyWebhook, WebhookSignatureError } from '../../sdk/src/node.js';
import { aCharge } from '../helpers/builders.js';
import { startCaptureReceiver, type CapturedRequest } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const FAST = [0.05, 0.05, 0.05];

async function anEndpoint(server: TestServer, url: string, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
  const res = await server.api.post('/v1/webhook_endpoints', { url, enabled_events: events });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

function standardWebhooksSignature(request: CapturedRequest, secret: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

forEachDatabase('webhook delivery', (engine) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('delivers each subscribed event once, signed both ways, and counts it off pending_webhooks', async () => {
    receiver = await startCaptureReceiver();
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: FAST } });
    const endpoint = await anEndpoint(server, receiver.url, ['charge.succeeded']);
    const charge = await aCharge(server.api);
    const [request] = await receiver.waitFor(1);
    const event = verifyWebhook<any>(request.body, request.headers['service-signature'] as string, endpoint.secret);
    expect(event).to.include({ object: 'event', type: 'charge.succeeded' });
    expect(event.data.object.id).to.equal(charge.id);
    expect(request.headers['webhook-id']).to.equal(event.id);
    expect(request.headers['webhook-signature']).to.equal(standardWebhooksSignature(request, endpoint.secret));
    expect(() => verifyWebhook(request.body, request.headers['service-signature'] as string, 'whsec_wrong')).to.throw(WebhookSignatureError);
    await eventually(async () => {
      expect((await server.api.get(`/v1/events/${event.id}`)).body.pending_webhooks).to.equal(0);
    });
    const deliveries = await server.db.all<any>('SELECT status, attempts FROM webhook_deliveries');
    expect(deliveries).to.deep.equal([{ status: 'succeeded', attempts: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).to.have.length(1); // the payment_intent.* events are not subscribed
  });

  it('sends an endpoint created with an api_version the events in that version, and the others in the account\'s', async () => {
    receiver = await startCaptureReceiver();
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: FAST } });
    const pinned = await server.api.post(
      '/v1/webhook_endpoints',
      { url: receiver.url, enabled_events: ['charge.succeeded'], api_version: '2025-03-31.basil' },
      { form: true },
    );
    expect(pinned.status, JSON.stringify(pinned.body)).to.equal(200);
    const plain = await anEndpoint(server, receiver.url, ['charge.succeeded']);
    await aCharge(server.api);
    const requests = await receiver.waitFor(2);
    // Each endpoint's request is the one its own secret signed.
    const versionFor = (secret: string) => {
      const signed = requests.filter((r) => {
        try {
          return verifyWebhook(r.body, r.headers['service-signature'] as string, secret) !== undefined;
        } catch {
          return false;
        }
      });
      expect(signed).to.have.length(1);
      return JSON.parse(signed[0].body).api_version;
    };
    expect(versionFor(pinned.body.secret)).to.equal('2025-03-31.basil');
    expect(versionFor(plain.secret)).to.equal('2026-11-01');
    // The event itself, as the API lists it, stays in the account's version.
    const [event] = (await server.api.get('/v1/events?type=charge.succeeded')).body.data;
    expect(event.api_version).to.equal('2026-11-01');
  });

  it('retries failures with a fresh signature each time until the endpoint answers 2xx', async () => {
    receiver = await startCaptureReceiver((_request, index) => ({ status: index < 2 ? 500 : 200 }));
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: FAST } });
    const endpoint = await anEndpoint(server, receiver.url, ['charge.failed']);
    await server.api.post('/v1/charges', { amount: 500, currency: 'usd', source: 'tok_chargeDeclined' });
    const requests = await receiver.waitFor(3);
    for (const request of requests) {
      expect(verifyWebhook<any>(request.body, request.headers['service-signature'] as string, endpoint.secret).type).to.equal('charge.failed');
    }
    await eventually(async () => {
      const attempts = await server.db.all<any>('SELECT response_status FROM webhook_attempts ORDER BY seq');
      expect(attempts.map((a) => a.response_status)).to.deep.equal([500, 500, 200]);
      const [delivery] = await server.db.all<any>('SELECT status, attempts FROM webhook_deliveries');
      expect(delivery).to.deep.equal({ status: 'succeeded', attempts: 3 });
    });
  });

  it('marks a delivery failed once the schedule is exhausted', async () => {
    receiver = await startCaptureReceiver(() => ({ status: 502 }));
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: [0.05, 0.05] } });
    await anEndpoint(server, receiver.url);
    await server.api.post('/v1/customers', { email: 'a@example.com' });
    await receiver.waitFor(3);
    await eventually(async () => {
      const [delivery] = await server.db.all<any>('SELECT status, attempts, last_response_status FROM webhook_deliveries');
      expect(delivery).to.deep.equal({ status: 'failed', attempts: 3, last_response_status: 502 });
      const events = await server.api.get('/v1/events');
      expect(events.body.data[0].pending_webhooks).to.equal(0);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).to.have.length(3);
  });

  it('honours Retry-After when it asks for longer than the schedule', async () => {
    receiver = await startCaptureReceiver((_request, index) => (index === 0 ? { status: 503, headers: { 'Retry-After': '1' } } : { status: 200 }));
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: FAST } });
    await anEndpoint(server, receiver.url);
    await server.api.post('/v1/customers', { email: 'a@example.com' });
    await receiver.waitFor(2);
    // The schedule alone would retry after ~50 ms; Retry-After asks for 1 s from the attempt's
    // start. Both starts are the worker's, as it recorded them: the time a request took to arrive
    // (long on a busy machine) is not in the measure.
    let starts: number[] = [];
    await eventually(async () => {
      const rows = await server.db.all<{ started_at: number | string }>('SELECT started_at FROM webhook_attempts ORDER BY seq');
      expect(rows).to.have.length(2);
      starts = rows.map((row) => Number(row.started_at));
    });
    expect(starts[1] - starts[0]).to.be.at.least(1000);
  });

  it('disables the endpoint on 410 Gone and stops sending', async () => {
    receiver = await startCaptureReceiver(() => ({ status: 410 }));
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: FAST } });
    const endpoint = await anEndpoint(server, receiver.url);
    await server.api.post('/v1/customers', { email: 'a@example.com' });
    await receiver.waitFor(1);
    await eventually(async () => {
      expect((await server.api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status).to.equal('disabled');
    });
    await server.api.post('/v1/customers', { email: 'b@example.com' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).to.have.length(1);
    expect(await server.db.all('SELECT id FROM webhook_deliveries')).to.have.length(1); // none enqueued while disabled
  });

  it('signs with both secrets during a rotation, then with the new one only', async () => {
    receiver = await startCaptureReceiver();
    server = await startTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: FAST } });
    const endpoint = await anEndpoint(server, receiver.url);
    const rotated = (await server.api.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 3600 })).body;
    await server.api.post('/v1/customers', { email: 'a@example.com' });
    const [during] = await receiver.waitFor(1);
    const header = during.headers['service-signature'] as string;
    expect(header.match(/v1=/g)).to.have.length(2);
    verifyWebhook(during.body, header, endpoint.secret);
    verifyWebhook(during.body, header, rotated.secret);
    expect((during.headers['webhook-signature'] as string).split(' ')).to.have.length(2);

    const final = (await server.api.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { expires_in: 0 })).body;
    await server.api.post('/v1/customers', { email: 'b@example.com' });
    const after = (await receiver.waitFor(2))[1];
    const afterHeader = after.headers['service-signature'] as string;
    expect(afterHeader.match(/v1=/g)).to.have.length(1);
    verifyWebhook(after.body, afterHeader, final.secret);
    expect(() => verifyWebhook(after.body, afterHeader, rotated.secret)).to.throw(WebhookSignatureError);
  });
});

describe('verifyWebhook', () => {
  const secret = 'whsec_test0000000000000000000000000000';
  const body = '{"id":"evt_1","object":"event"}';
  const sign = (t: number) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

  it('accepts a fresh signature and returns the event', () => {
    expect(verifyWebhook<any>(body, sign(1000), secret, { now: 1000 }).id).to.equal('evt_1');
  });

  it('refuses an old signature, a changed body, and a missing or malformed header', () => {
    expect(() => verifyWebhook(body, sign(1000), secret, { now: 1301 })).to.throw(/tolerance/);
    expect(() => verifyWebhook(body.replace('evt_1', 'evt_2'), sign(1000), secret, { now: 1000 })).to.throw(/matches/);
    expect(() => verifyWebhook(body, undefined, secret)).to.throw(/No Service-Signature/);
    expect(() => verifyWebhook(body, 'v1=abc', secret)).to.throw(/Malformed/);
  });
});
