import { expect } from 'chai';
import { createSender } from '../../src/webhooks/sender.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';

describe('webhook sender', () => {
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  beforeEach(async () => {
    receiver = await startCaptureReceiver((_request, index) => (index === 0 ? { status: 200 } : { status: 302, headers: { Location: 'http://example.com/' } }));
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('refuses a loopback address at connect time, by literal IP and by a name that resolves to it', async () => {
    const sender = createSender({ allowPrivateNetworks: false });
    try {
      const literal = await sender.send(receiver.url, '{}', {});
      expect(literal.status).to.equal(undefined);
      expect(literal.error).to.match(/refused/);
      const byName = await sender.send(receiver.url.replace('127.0.0.1', 'localhost'), '{}', {});
      expect(byName.status).to.equal(undefined);
      expect(byName.error).to.match(/refused: localhost resolves to/);
      expect(receiver.received).to.have.length(0);
    } finally {
      sender.close();
    }
  });

  it('delivers when private networks are allowed, and never follows a redirect', async () => {
    const sender = createSender({ allowPrivateNetworks: true });
    try {
      const first = await sender.send(receiver.url, '{"a":1}', { 'X-Test': 'yes' });
      expect(first.status).to.equal(200);
      expect(first.body).to.equal('ok');
      expect(receiver.received[0].body).to.equal('{"a":1}');
      expect(receiver.received[0].headers['x-test']).to.equal('yes');
      const redirected = await sender.send(receiver.url, '{}', {});
      expect(redirected.status).to.equal(302);
      expect(receiver.received).to.have.length(2);
    } finally {
      sender.close();
    }
  });

  it('gives up on a server that does not answer within the total timeout', async () => {
    const http = await import('node:http');
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const sender = createSender({ allowPrivateNetworks: true, totalTimeoutMs: 300 });
    try {
      const result = await sender.send(`http://127.0.0.1:${port}/`, '{}', {});
      expect(result.status).to.equal(undefined);
      expect(result.error).to.match(/timed out after 300 ms/);
    } finally {
      sender.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});
