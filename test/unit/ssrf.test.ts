import { expect } from 'chai';
import { isForbiddenAddress, webhookUrlProblem } from '../../src/webhooks/ssrf.js';

describe('SSRF guard', () => {
  describe('isForbiddenAddress', () => {
    const forbidden = [
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
      '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'ff02::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a9fe:a9fe',
    ];
    for (const address of forbidden) {
      it(`refuses ${address}`, () => expect(isForbiddenAddress(address)).to.equal(true));
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8']) {
      it(`accepts ${address}`, () => expect(isForbiddenAddress(address)).to.equal(false));
    }
  });

  describe('webhookUrlProblem', () => {
    it('accepts public http(s) URLs and names (names are checked again at connect time)', () => {
      expect(webhookUrlProblem('https://hooks.example.com/payments', false)).to.equal(undefined);
      expect(webhookUrlProblem('http://93.184.215.14:8080/x', false)).to.equal(undefined);
    });

    it('refuses literal private addresses, localhost, other schemes and credentials', () => {
      expect(webhookUrlProblem('http://127.0.0.1:9000/hook', false)).to.match(/private or reserved/);
      expect(webhookUrlProblem('http://[::1]/hook', false)).to.match(/private or reserved/);
      expect(webhookUrlProblem('http://169.254.169.254/latest/meta-data', false)).to.match(/private or reserved/);
      expect(webhookUrlProblem('http://localhost:3000/hook', false)).to.match(/localhost/);
      expect(webhookUrlProblem('ftp://example.com/x', false)).to.match(/http or https/);
      expect(webhookUrlProblem('https://user:pw@example.com/x', false)).to.match(/credentials/);
    });

    it('allows loopback when private networks are allowed (local development, tests)', () => {
      expect(webhookUrlProblem('http://127.0.0.1:9000/hook', true)).to.equal(undefined);
      expect(webhookUrlProblem('ftp://127.0.0.1/x', true)).to.match(/http or https/);
    });
  });
});
