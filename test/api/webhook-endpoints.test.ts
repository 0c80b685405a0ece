import { expect } from 'chai';
import { expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { TEST_SECRET_BOX } from '../helpers/secrets-key.js';
import { startTestServer, useTestServer } from '../helpers/test-server.js';

const ENDPOINT = { url: 'https://hooks.example.com/payments', enabled_events: ['charge.succeeded', 'charge.failed'] };

/**
 * URLs that reach this machine or private space, each refused at registration: odd spellings of
 * loopback, names of this machine, and one address in each IANA special-purpose range.
 */
const LOCAL_URLS = [
  'http://localhost./hook', 'http://ip6-localhost/hook', 'http://api.localhost/hook', 'http://metadata/computeMetadata',
  'http://2130706433/hook', 'http://0x7f.1/hook', 'http://0177.0.0.1/hook', 'http://127.1/hook',
  'http://[::7f00:1]/hook', 'http://[::127.0.0.1]/hook', 'http://[::ffff:127.0.0.1]/hook', 'http://[::]/hook',
  'http://0.0.0.0/hook', 'http://100.64.0.1/hook', 'http://172.16.0.1/hook', 'http://192.0.0.8/hook',
  'http://192.0.2.1/hook', 'http://192.88.99.1/hook', 'http://198.18.0.1/hook', 'http://198.51.100.1/hook',
  'http://203.0.113.1/hook', 'http://224.0.0.1/hook', 'http://240.0.0.1/hook', 'http://255.255.255.255/hook',
  'http://[64:ff9b::a9fe:a9fe]/hook', 'http://[64:ff9b:1::1]/hook', 'http://[100::1]/hook', 'http://[2001::1]/hook',
  'http://[2001:db8::1]/hook', 'http://[2002:7f00:1::1]/hook', 'http://[fc00::1]/hook', 'http://[fe80::1]/hook',
  'http://[fec0::1]/hook', 'http://[ff02::1]/hook', 'http://[3fff::1]/hook', 'http://[5f00::1]/hook',
];

forEachDatabase('webhook endpoints', (engine) => {
  const server = useTestServer(engine);

  describe('createWebhookEndpoint', () => {
    it('creates an enabled endpoint and shows its secret only in this response', async () => {
      const res = await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, description: 'orders', metadata: { team: 'ops' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ object: 'webhook_endpoint', url: ENDPOINT.url, status: 'enabled', description: 'orders' });
      expect(res.body.id).to.match(/^we_[0-9A-Za-z]{24}$/);
      expect(res.body.secret).to.match(/^whsec_[0-9A-Za-z]{32}$/);
      expect(res.body.enabled_events).to.deep.equal(ENDPOINT.enabled_events);
      const fetched = await server.api.get(`/v1/webhook_endpoints/${res.body.id}`);
      expect(fetched.body).to.not.have.property('secret');
      const listed = await server.api.get('/v1/webhook_endpoints');
      expect(listed.body.data.map((e: any) => e.id)).to.deep.equal([res.body.id]);
      expect(listed.body.data[0]).to.not.have.property('secret');
    });

    it('accepts a form body with enabled_events in bracket notation, and "*" for every event', async () => {
      const res = await server.api.post('/v1/webhook_endpoints', { url: ENDPOINT.url, enabled_events: ['*'] }, { form: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.enabled_events).to.deep.equal(['*']);
    });

    it('refuses unknown event types, "*" mixed with types, and non-http URLs, naming the param', async () => {
      expectError(
        await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, enabled_events: ['charge.exploded'] }),
        400,
        'parameter_invalid',
        'enabled_events[0]',
      );
      expectError(
        await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, enabled_events: ['*', 'charge.failed'] }),
        400,
        'parameter_invalid',
        'enabled_events',
      );
      expectError(await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, url: 'ftp://example.com/x' }), 400, 'parameter_invalid', 'url');
      expectError(await server.api.post('/v1/webhook_endpoints', { enabled_events: ['*'] }), 400, 'parameter_missing', 'url');
    });

    it('refuses private, loopback and metadata addresses (SSRF), creating nothing', async () => {
      for (const url of ['http://127.0.0.1:9000/hook', 'http://10.0.0.5/hook', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://localhost/x']) {
        expectError(await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, url }), 400, 'parameter_invalid', 'url');
      }
      expect((await server.api.get('/v1/webhook_endpoints')).body.data).to.deep.equal([]);
    });

    it('refuses every loopback, private and special-purpose form of a URL, naming url', async () => {
      for (const url of LOCAL_URLS) {
        const res = await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, url });
        expectError(res, 400, 'parameter_invalid', 'url');
        expect(res.body.error.message, url).to.match(/^Invalid url: the webhook URL .*(this machine|local network|private or reserved)/);
      }
      expect((await server.api.get('/v1/webhook_endpoints')).body.data).to.deep.equal([]);
    });

    it('accepts a public address literal', async () => {
      const res = await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, url: 'https://93.184.215.14/hook' });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.url).to.equal('https://93.184.215.14/hook');
    });
  });

  describe('updateWebhookEndpoint', () => {
    it('changes the URL and events, disables and re-enables', async () => {
      const created = (await server.api.post('/v1/webhook_endpoints', ENDPOINT)).body;
      const patched = await server.api.patch(`/v1/webhook_endpoints/${created.id}`, {
        url: 'https://hooks.example.com/v2',
        enabled_events: ['*'],
        disabled: true,
      });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ url: 'https://hooks.example.com/v2', status: 'disabled' });
      expect(patched.body.enabled_events).to.deep.equal(['*']);
      const enabled = await server.api.post(`/v1/webhook_endpoints/${created.id}`, { disabled: 'false' }, { form: true });
      expect(enabled.body.status).to.equal('enabled');
      expect(enabled.body).to.not.have.property('secret');
    });

    it('refuses a private URL on update too', async () => {
      const created = (await server.api.post('/v1/webhook_endpoints', ENDPOINT)).body;
      expectError(await server.api.patch(`/v1/webhook_endpoints/${created.id}`, { url: 'http://192.168.0.10/x' }), 400, 'parameter_invalid', 'url');
      expect((await server.api.get(`/v1/webhook_endpoints/${created.id}`)).body.url).to.equal(ENDPOINT.url);
    });

    it('refuses every loopback, private and special-purpose form of a URL on update (PATCH and POST), naming url', async () => {
      const created = (await server.api.post('/v1/webhook_endpoints', ENDPOINT)).body;
      for (const url of LOCAL_URLS) {
        expectError(await server.api.patch(`/v1/webhook_endpoints/${created.id}`, { url }), 400, 'parameter_invalid', 'url');
        expectError(await server.api.post(`/v1/webhook_endpoints/${created.id}`, { url }, { form: true }), 400, 'parameter_invalid', 'url');
      }
      expect((await server.api.get(`/v1/webhook_endpoints/${created.id}`)).body.url).to.equal(ENDPOINT.url);
      const moved = await server.api.patch(`/v1/webhook_endpoints/${created.id}`, { url: 'https://93.184.215.14/hook' });
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
      expect(moved.body.url).to.equal('https://93.184.215.14/hook');
    });
  });

  describe('rotateWebhookEndpointSecret', () => {
    it('returns a new secret once; the old one is kept for the overlap', async () => {
      const created = (await server.api.post('/v1/webhook_endpoints', ENDPOINT)).body;
      const rotated = await server.api.post(`/v1/webhook_endpoints/${created.id}/rotate_secret`, { expires_in: 3600 });
      expect(rotated.status).to.equal(200);
      expect(rotated.body.secret).to.match(/^whsec_/).and.not.equal(created.secret);
      const row = await server.db.one<any>('SELECT previous_secret, previous_secret_expires_at FROM webhook_endpoints WHERE id = ?', [created.id]);
      // Kept sealed, for its own column and row.
      const place = { table: 'webhook_endpoints', column: 'previous_secret', row: created.id };
      expect(TEST_SECRET_BOX.open(row.previous_secret, place)).to.equal(created.secret);
      expect(row.previous_secret).to.not.include(created.secret.slice(6));
      expect(Number(row.previous_secret_expires_at)).to.equal(server.clock.nowMs() + 3_600_000);
    });

    it('with expires_in=0 ends the old secret at once', async () => {
      const created = (await server.api.post('/v1/webhook_endpoints', ENDPOINT)).body;
      await server.api.post(`/v1/webhook_endpoints/${created.id}/rotate_secret`, { expires_in: 0 });
      const row = await server.db.one<any>('SELECT previous_secret FROM webhook_endpoints WHERE id = ?', [created.id]);
      expect(row.previous_secret).to.equal(null);
    });
  });

  describe('deleteWebhookEndpoint and isolation', () => {
    it('deletes, then 404s; another account never sees the endpoint', async () => {
      const created = (await server.api.post('/v1/webhook_endpoints', ENDPOINT)).body;
      expectError(await server.otherApi.get(`/v1/webhook_endpoints/${created.id}`), 404, 'resource_missing');
      expectError(await server.otherApi.delete(`/v1/webhook_endpoints/${created.id}`), 404, 'resource_missing');
      const deleted = await server.api.delete(`/v1/webhook_endpoints/${created.id}`);
      expect(deleted.body).to.deep.equal({ id: created.id, object: 'webhook_endpoint', deleted: true });
      expectError(await server.api.delete(`/v1/webhook_endpoints/${created.id}`), 404, 'resource_missing');
    });
  });
});

forEachDatabase('webhook endpoints with private networks allowed', (engine) => {
  it('accepts a loopback URL for local development', async () => {
    const server = await startTestServer(engine, { webhookAllowPrivateNetworks: true });
    try {
      const res = await server.api.post('/v1/webhook_endpoints', { ...ENDPOINT, url: 'http://127.0.0.1:9000/hook' });
      expect(res.status).to.equal(200);
    } finally {
      await server.close();
    }
  });
});
