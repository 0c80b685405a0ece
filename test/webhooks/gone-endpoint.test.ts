import { expect } from 'chai';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startSmtpCapture } from '../helpers/smtp-capture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** 410 Gone: the consumer says the endpoint is gone for good, so it is disabled at once, and its owner told so. */
forEachDatabase('webhook endpoint answering 410 Gone', (engine) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
    await smtp?.close();
  });

  it('is disabled, as the API and the failure notice both say, after its first 410', async function () {
    this.timeout(30_000);
    smtp = await startSmtpCapture();
    receiver = await startCaptureReceiver(() => ({ status: 410 }));
    server = await startTestServer(engine, {
      webhookAllowPrivateNetworks: true,
      // A long schedule: only the 410 can end the delivery within the test.
      webhookWorker: { retryScheduleSeconds: [60, 60, 60], smtpUrl: smtp.url },
    });
    const endpoint = (await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] })).body;
    await server.api.post('/v1/customers', { email: 'a@example.com' });
    await receiver.waitFor(1);

    await eventually(async () => {
      const [delivery] = (await server.api.get(`/v1/webhook_deliveries?endpoint=${endpoint.id}`)).body.data;
      expect(delivery).to.include({ status: 'failed', attempt_count: 1, last_response_status: 410, next_attempt_at: null });
    });
    const read = await server.api.get(`/v1/webhook_endpoints/${endpoint.id}`);
    expect(read.status).to.equal(200);
    expect(read.body.status).to.equal('disabled');

    await eventually(() => expect(smtp.messages).to.have.length(1), 10_000);
    const [mail] = smtp.messages;
    expect(mail.to).to.deep.equal(['owner@example.com']);
    expect(/^Subject: (.*)$/m.exec(mail.raw)?.[1]).to.equal(`Webhook endpoint ${receiver.url} was disabled`);
    // Quoted-printable: soft line breaks and `=XX` escapes (`=` itself is `=3D`).
    const text = mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    expect(text).to.contain('410 Gone');
    expect(text).to.contain(`POST /v1/webhook_endpoints/${endpoint.id} disabled=false`);

    // Disabled for good: nothing more is enqueued or sent, and no second notice follows.
    await server.api.post('/v1/customers', { email: 'b@example.com' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).to.have.length(1);
    expect(smtp.messages).to.have.length(1);
  });

  it('tells the owner once when several attempts in flight answer 410', async function () {
    this.timeout(30_000);
    smtp = await startSmtpCapture();
    // Slow answers, so that the three attempts are in flight together.
    receiver = await startCaptureReceiver(() => ({ status: 410 }), { delayMs: 300 });
    server = await startTestServer(engine, {
      webhookAllowPrivateNetworks: true,
      webhookWorker: { retryScheduleSeconds: [60], smtpUrl: smtp.url },
    });
    const endpoint = (await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['customer.created'] })).body;
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await server.api.post('/v1/customers', { email });
    await eventually(async () => {
      const deliveries = (await server.api.get(`/v1/webhook_deliveries?endpoint=${endpoint.id}`)).body.data;
      expect(deliveries.map((d: any) => d.status)).to.deep.equal(['failed', 'failed', 'failed']);
    }, 10_000);
    expect((await server.api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status).to.equal('disabled');
    await eventually(() => expect(smtp.messages).to.have.length.at.least(1), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second notice would have arrived by now
    expect(smtp.messages.map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1])).to.deep.equal([`Webhook endpoint ${receiver.url} was disabled`]);
  });
});
