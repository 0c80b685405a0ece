import { expect } from 'chai';
import { createResolverLookup, type ResolverLookup } from '../../src/resources/webhook-endpoints/resolver-lookup.js';
import { eventually } from '../helpers/eventually.js';
import { startFakeDns, type DnsAnswer, type FakeDns } from '../helpers/fake-dns.js';

const NAMES: Record<string, DnsAnswer> = {
  'both.hooks.test': ['93.184.215.14', '2606:4700::6810:84e5'],
  'v4.hooks.test': ['10.0.0.7'],
};

describe('createResolverLookup (a c-ares resolver of its own)', () => {
  let dns: FakeDns;
  const lookups: ResolverLookup[] = [];
  before(async () => {
    dns = await startFakeDns((name) => NAMES[name] ?? (name.endsWith('.silent.test') ? 'silent' : 'nxdomain'));
  });
  afterEach(() => {
    for (const lookup of lookups.splice(0)) lookup.cancel();
  });
  after(() => dns.close());
  const resolverLookup = (options: Parameters<typeof createResolverLookup>[0] = {}) => {
    const created = createResolverLookup({ servers: [dns.server], ...options });
    lookups.push(created);
    return created;
  };

  it('resolves a name to its A and AAAA records, asking the servers it was given', async () => {
    const { lookup } = resolverLookup();
    expect(await lookup('both.hooks.test')).to.have.deep.members([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::6810:84e5', family: 6 },
    ]);
    expect(await lookup('v4.hooks.test')).to.deep.equal([{ address: '10.0.0.7', family: 4 }]);
    expect(dns.queries.filter((query) => query.name === 'both.hooks.test').map((query) => query.type)).to.have.members(['A', 'AAAA']);
  });

  it('resolves a name that does not exist, or whose server never answers, to no address', async () => {
    const { lookup } = resolverLookup({ timeoutMs: 50, tries: 1 });
    expect(await lookup('missing.hooks.test')).to.deep.equal([]);
    expect(await lookup('a.silent.test')).to.deep.equal([]);
    expect(dns.queried('a.silent.test')).to.equal(true);
  });

  it('runs at most `concurrency` look-ups at once; the others wait their turn', async () => {
    const { lookup } = resolverLookup({ timeoutMs: 200, tries: 1, concurrency: 2 });
    const pending = ['one.silent.test', 'two.silent.test', 'three.silent.test'].map((name) => lookup(name));
    await eventually(() => expect(dns.queried('one.silent.test') && dns.queried('two.silent.test')).to.equal(true));
    expect(dns.queried('three.silent.test'), 'the third waits for a place').to.equal(false);
    expect(await Promise.all(pending)).to.deep.equal([[], [], []]);
    expect(dns.queried('three.silent.test')).to.equal(true);
  });
});
