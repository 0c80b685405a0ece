import { expect } from 'chai';
import { expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startFakeDns, type DnsAnswer, type FakeDns } from '../helpers/fake-dns.js';
import { useTestServer, type TestServerOptions } from '../helpers/test-server.js';

/** Receivers whose names stop resolving: the worker's deliveries to them wait on DNS that never answers. */
const STUCK_ENDPOINTS = 20;

forEachDatabase('webhook endpoint registration while the worker\'s look-ups are stuck', (engine) => {
  let dns: FakeDns;
  let stuck: DnsAnswer = 'nxdomain';
  const options: TestServerOptions = { webhookWorker: { retryScheduleSeconds: [1, 1, 1, 1] } };
  before(async () => {
    dns = await startFakeDns((name) => {
      if (name.endsWith('.stuck.test')) return stuck;
      if (name === 'private.hooks.test') return ['10.0.0.7'];
      if (name === 'public.hooks.test') return ['93.184.215.14'];
      return 'nxdomain';
    });
    options.dnsServers = [dns.server];
  });
  after(() => dns?.close());
  const server = useTestServer(engine, options);

  it('still resolves a registration\'s name and refuses a private answer, and accepts a name that does not resolve or answer', async () => {
    // Names that do not exist (yet) are accepted: the connect-time check judges them at each delivery.
    stuck = 'nxdomain';
    for (let i = 0; i < STUCK_ENDPOINTS; i++) {
      const created = await server.api.post('/v1/webhook_endpoints', { url: `https://hook-${i}.stuck.test/`, enabled_events: ['*'] });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
    }
    // Then their DNS stops answering, and the worker's deliveries to them wait on it.
    stuck = 'silent';
    const from = dns.queries.length;
    for (let i = 0; i < 3; i++) await server.api.post('/v1/customers', { email: `c${i}@example.com` });
    await eventually(() => {
      const waiting = new Set(dns.queries.slice(from).map((query) => query.name).filter((name) => name.endsWith('.stuck.test')));
      expect(waiting.size).to.equal(STUCK_ENDPOINTS);
    });

    const refused = await server.api.post('/v1/webhook_endpoints', { url: 'https://private.hooks.test/hook', enabled_events: ['*'] });
    const error = expectError(refused, 400, 'parameter_invalid', 'url');
    expect(error.message).to.include('resolves to a private or reserved address (private.hooks.test: 10.0.0.7, private)');
    expect(dns.queried('private.hooks.test')).to.equal(true);
    const accepted = await server.api.post('/v1/webhook_endpoints', { url: 'https://public.hooks.test/hook', enabled_events: ['*'] });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect(dns.queried('public.hooks.test')).to.equal(true);

    // A name whose DNS does not answer in time is accepted too, and left to the connect-time check.
    const unanswered = await server.api.post('/v1/webhook_endpoints', { url: 'https://new.stuck.test/hook', enabled_events: ['*'] });
    expect(unanswered.status, JSON.stringify(unanswered.body)).to.equal(200);
    expect(dns.queried('new.stuck.test')).to.equal(true);
  });
});
