import { expect } from 'chai';
import {
  addressRange,
  checkWebhookUrl,
  isForbiddenAddress,
  resolvedAddressProblem,
  webhookUrlProblem,
  type LookupAll,
} from '../../src/resources/webhook-endpoints/ssrf.js';

/** A resolver that answers from a table, and fails like getaddrinfo for anything else. */
function fakeLookup(table: Record<string, string[]>): LookupAll {
  return async (name) => {
    const addresses = table[name];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('SSRF guard', () => {
  describe('isForbiddenAddress', () => {
    // One address in each range of the IANA IPv4 and IPv6 special-purpose registries, and a few forms of each.
    const forbidden = [
      '0.0.0.0', '0.1.2.3', '10.1.2.3', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.255.254',
      '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.88.99.1', '192.168.1.1',
      '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1',
      '255.255.255.255',
      '::', '::1', '::7f00:1', '::127.0.0.1', '::808:808', '::8.8.8.8', '::ffff:127.0.0.1', '::ffff:7f00:1',
      '::ffff:10.0.0.1', '::ffff:0:808:808', '64:ff9b::a9fe:a9fe', '64:ff9b::127.0.0.1', '64:ff9b:1::808:808',
      '100::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:2::1', '2001:db8::1', '2002:808:808::1',
      '2002:7f00:1::1', 'fc00::1', 'fd00:ec2::254', 'fe80::1', 'fe80::1%eth0', 'fec0::1', 'ff02::1', '3fff::1',
      '5f00::1', 'not-an-address', '',
    ];
    for (const address of forbidden) {
      it(`refuses ${address || '(empty)'}`, () => expect(isForbiddenAddress(address)).to.equal(true));
    }
    const deliverable = [
      '93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '192.0.3.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8',
      '64:ff9b::808:808', '2a00:1450:4001:82a::200e',
    ];
    for (const address of deliverable) {
      it(`accepts ${address}`, () => expect(isForbiddenAddress(address)).to.equal(false));
    }

    it('names the range', () => {
      expect(addressRange('127.0.0.1')).to.equal('loopback');
      expect(addressRange('10.0.0.1')).to.equal('private');
      expect(addressRange('::7f00:1')).to.equal('ipv4Compatible');
      expect(addressRange('::ffff:169.254.169.254')).to.equal('linkLocal');
      expect(addressRange('2001::1')).to.equal('teredo');
      expect(addressRange('8.8.8.8')).to.equal('unicast');
    });
  });

  describe('webhookUrlProblem (the URL alone)', () => {
    it('accepts public http(s) URLs and names (names are resolved by checkWebhookUrl and at connect time)', () => {
      expect(webhookUrlProblem('https://hooks.example.com/payments', false)).to.equal(undefined);
      expect(webhookUrlProblem('https://hooks.example.com./payments', false)).to.equal(undefined);
      expect(webhookUrlProblem('http://93.184.215.14:8080/x', false)).to.equal(undefined);
      expect(webhookUrlProblem('https://[2606:4700::6810:84e5]/x', false)).to.equal(undefined);
    });

    it('refuses literal special-purpose addresses in every notation the URL parser accepts', () => {
      for (const url of [
        'http://127.0.0.1:9000/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest/meta-data',
        'http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://127.0.0.1./',
        'http://0/', 'http://[::127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[0:0:0:0:0:ffff:127.0.0.1]/',
        'http://[64:ff9b::7f00:1]/', 'http://[2002:7f00:1::]/', 'http://[fe80::1]/', 'http://255.255.255.255/',
      ]) {
        expect(webhookUrlProblem(url, false), url).to.match(/private or reserved address/);
      }
    });

    it('refuses names of this machine and of local networks, with or without a trailing dot', () => {
      expect(webhookUrlProblem('http://localhost:3000/hook', false)).to.match(/this machine \(localhost\)/);
      expect(webhookUrlProblem('http://localhost./hook', false)).to.match(/this machine \(localhost\)/);
      expect(webhookUrlProblem('http://LOCALHOST../hook', false)).to.match(/this machine/);
      expect(webhookUrlProblem('http://ip6-localhost/hook', false)).to.match(/this machine \(ip6-localhost\)/);
      expect(webhookUrlProblem('http://api.localhost/hook', false)).to.match(/this machine/);
      expect(webhookUrlProblem('http://printer.local/hook', false)).to.match(/local network resolves \(\.local\)/);
      expect(webhookUrlProblem('http://metadata.google.internal/x', false)).to.match(/\.internal/);
      expect(webhookUrlProblem('http://router.home.arpa/x', false)).to.match(/\.home\.arpa/);
      expect(webhookUrlProblem('http://metadata/x', false)).to.match(/single-label host name/);
    });

    it('refuses other schemes, credentials and what is not a URL', () => {
      expect(webhookUrlProblem('ftp://example.com/x', false)).to.match(/http or https/);
      expect(webhookUrlProblem('https://user:pw@example.com/x', false)).to.match(/credentials/);
      expect(webhookUrlProblem('not a url', false)).to.match(/not a valid URL/);
    });

    it('allows loopback and local names when private networks are allowed (local development, tests)', () => {
      expect(webhookUrlProblem('http://127.0.0.1:9000/hook', true)).to.equal(undefined);
      expect(webhookUrlProblem('http://localhost:9000/hook', true)).to.equal(undefined);
      expect(webhookUrlProblem('ftp://127.0.0.1/x', true)).to.match(/http or https/);
    });
  });

  describe('checkWebhookUrl (the URL, then what its name resolves to now)', () => {
    const lookup = fakeLookup({
      'public.example.com': ['93.184.215.14', '2606:4700::6810:84e5'],
      'rebind.example.com': ['93.184.215.14', '10.0.0.7'],
      'v6.example.com': ['::ffff:127.0.0.1'],
      'metadata.example.com': ['169.254.169.254'],
    });

    it('accepts a name whose every address is public', async () => {
      expect(await checkWebhookUrl('https://public.example.com/hook', false, lookup)).to.equal(undefined);
      expect(await checkWebhookUrl('https://public.example.com./hook', false, lookup)).to.equal(undefined);
    });

    it('refuses a name if any one of its addresses is special-purpose', async () => {
      expect(await checkWebhookUrl('https://rebind.example.com/hook', false, lookup)).to.match(
        /resolves to a private or reserved address \(rebind\.example\.com: 10\.0\.0\.7, private\)/,
      );
      expect(await checkWebhookUrl('https://v6.example.com/hook', false, lookup)).to.match(/::ffff:127\.0\.0\.1, loopback/);
      expect(await checkWebhookUrl('https://metadata.example.com./x', false, lookup)).to.match(/169\.254\.169\.254, linkLocal/);
    });

    it('accepts a name that does not resolve (the connect-time check judges it at each delivery)', async () => {
      expect(await checkWebhookUrl('https://not-yet.example.com/hook', false, lookup)).to.equal(undefined);
    });

    it('gives up waiting for a slow resolver and accepts the name', async () => {
      const never: LookupAll = () => new Promise(() => undefined);
      expect(await resolvedAddressProblem('slow.example.com', never, 20)).to.equal(undefined);
    });

    it('does not resolve anything when private networks are allowed, nor when the URL alone is refused', async () => {
      const refuse: LookupAll = () => Promise.reject(new Error('must not be called'));
      expect(await checkWebhookUrl('https://rebind.example.com/hook', true, fakeLookup({}))).to.equal(undefined);
      expect(await checkWebhookUrl('http://127.0.0.1/x', false, refuse)).to.match(/private or reserved/);
    });

    it('refuses by their form the names /etc/hosts gives this machine, which registration\'s resolver does not read', () => {
      for (const name of ['localhost', 'ip6-localhost', 'localhost.localdomain', 'myhost']) {
        expect(webhookUrlProblem(`https://${name}/hook`, false), name).to.match(/this machine|local network/);
      }
    });
  });
});
