import { expect } from 'chai';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startSmtpCapture } from '../helpers/smtp-capture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

forEachDatabase('webhook failure notices', (engine) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  afterEach(async () => {
    await server.close();
    await receiver.close();
    await smtp.close();
  });

  it("e-mails the account's owner once a day per endpoint when deliveries fail for good", async function () {
    this.timeout(30_000);
    smtp = await startSmtpCapture();
    receiver = await startCaptureReceiver(() => ({ status: 500 }));
    server = await startTestServer(engine, {
      webhookAllowPrivateNetworks: true,
      webhookWorker: { retryScheduleSeconds: [0.05], smtpUrl: smtp.url },
    });
    const endpoint = (await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] })).body;
    const deadline = Date.now() + 10_000;
    const failedDeliveries = async (count: number) => {
      while ((await server.db.all("SELECT id FROM webhook_deliveries WHERE status = 'failed'")).length < count) {
        if (Date.now() > deadline) throw new Error('deliveries did not fail in time');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    // One after the other, so that the first failure (the one the day's mail is about) is known.
    await server.api.post('/v1/customers', { email: 'a@example.com' });
    await failedDeliveries(1);
    await server.api.post('/v1/users', { email: 'b@example.com' });
    await failedDeliveries(2);
    while (smtp.messages.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second mail would have arrived by now
    expect(smtp.messages).to.have.length(1);
    const [mail] = smtp.messages;
    expect(mail.to).to.deep.equal(['owner@example.com']);
    const text = mail.raw.replace(/=\r?\n/g, '');
    expect(text).to.contain(endpoint.id);
    expect(text).to.contain(receiver.url);
    expect(text).to.match(/customer\.created: 1/);
    expect(text).to.contain(`/v1/webhook_endpoints/${endpoint.id}/replay`);
  });

  it('disables an endpoint whose attempts keep failing for the configured time, and says so by e-mail', async function () {
    this.timeout(30_000);
    smtp = await startSmtpCapture();
    receiver = await startCaptureReceiver(() => ({ status: 503 }));
    server = await startTestServer(engine, {
      webhookAllowPrivateNetworks: true,
      webhookWorker: { retryScheduleSeconds: Array(40).fill(0.05), smtpUrl: smtp.url, disableAfterMs: 300 },
    });
    const endpoint = (await server.api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] })).body;
    await server.api.post('/v1/customers', { email: 'a@example.com' });
    const deadline = Date.now() + 10_000;
    while ((await server.api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status !== 'disabled') {
      if (Date.now() > deadline) throw new Error('endpoint was not disabled in time');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    while (smtp.messages.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(smtp.messages.map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1])).to.deep.equal([`Webhook endpoint ${receiver.url} was disabled`]);
    const sent = receiver.received.length;
    expect(sent).to.be.at.least(3).and.below(40);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.length).to.equal(sent);
  });
});
