import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { createWebhookHandler } from '../../sdk/src/node.js';
import { aCharge } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { useTestServer } from '../helpers/test-server.js';

forEachDatabase('SDK webhook handler as a consumer', (engine) => {
  const server = useTestServer(engine, { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: [0.05, 0.05] } });
  let consumer: Server;
  let consumerUrl: string;
  let handled: Array<{ id: string; type: string }>;
  let failNext: boolean;
  let secret: string;

  beforeEach(async () => {
    handled = [];
    failNext = false;
    const app = express();
    app.post(
      '/webhooks/payments',
      createWebhookHandler({
        get secret() {
          return secret;
        },
        onEvent: (event) => {
          if (failNext) {
            failNext = false;
            throw new Error('database down');
          }
          handled.push({ id: event.id, type: event.type });
        },
      }),
    );
    consumer = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    consumerUrl = `http://127.0.0.1:${(consumer.address() as AddressInfo).port}/webhooks/payments`;
    secret = (await server.api.post('/v1/webhook_endpoints', { url: consumerUrl, enabled_events: ['charge.succeeded'] })).body.secret;
  });
  afterEach(async () => {
    consumer.closeAllConnections();
    await new Promise<void>((resolve) => consumer.close(() => resolve()));
  });

  it('hands each verified event to the function once, even when it is delivered again', async () => {
    const charge = await aCharge(server.api);
    await eventually(() => expect(handled).to.have.length(1));
    expect(handled[0].type).to.equal('charge.succeeded');
    const [delivery] = (await server.api.get('/v1/webhook_deliveries')).body.data;
    await eventually(async () => expect((await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).body.status).to.equal('succeeded'));
    await server.api.post(`/v1/webhook_deliveries/${delivery.id}/retry`);
    await eventually(async () => {
      const detail = (await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).body;
      expect(detail.attempts).to.have.length(2);
      expect(detail.attempts[1].response_status).to.equal(200);
    });
    expect(handled).to.have.length(1);
    expect(charge.id).to.be.a('string');
  });

  it('answers 400 to a forged delivery and does no work', async () => {
    const response = await fetch(consumerUrl, {
      method: 'POST',
      headers: { 'Service-Signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body: JSON.stringify({ id: 'evt_forged', type: 'charge.succeeded' }),
    });
    expect(response.status).to.equal(400);
    expect(handled).to.deep.equal([]);
  });

  it('answers 500 when the function throws, so the delivery is retried and handled then', async () => {
    failNext = true;
    await aCharge(server.api);
    await eventually(() => expect(handled).to.have.length(1));
    const [delivery] = (await server.api.get('/v1/webhook_deliveries')).body.data;
    await eventually(async () => {
      const detail = (await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).body;
      expect(detail.attempts.map((a: any) => a.response_status)).to.deep.equal([500, 200]);
    });
  });
});
