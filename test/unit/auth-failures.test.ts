import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  AuthFailureLimiter,
  addressKey,
  clientAddress,
} from '../../src/auth/auth-failures.js';
import { loadConfig } from '../../src/config.js';

/** The failed-authentication window that these settings configure. */
const authFailuresFromEnv = (env: NodeJS.ProcessEnv) => loadConfig(env).authFailures;

function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe('failed-authentication limiter: addresses', () => {
  const cases: Array<[string, string]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:abcd:12:1:2:3:4', '2001:db8:abcd:12::/64'],
    ['2001:db8:abcd:12::99', '2001:db8:abcd:12::/64'],
    ['2001:0db8:00ab::', '2001:db8:ab:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ];
  for (const [address, key] of cases) {
    it(`counts ${address} as ${key}`, () => expect(addressKey(address)).to.equal(key));
  }

  it('gives an address the same key again, however many addresses came between', () => {
    for (let round = 0; round < 2; round++) {
      for (const [address, key] of cases) expect(addressKey(address)).to.equal(key);
      // More addresses than the memo of recent ones holds, IPv4 and IPv6.
      for (let i = 0; i < 2500; i++) {
        expect(addressKey(`10.${i >> 8}.${i & 255}.7`)).to.equal(`10.${i >> 8}.${i & 255}.7`);
        expect(addressKey(`2001:db8:${i.toString(16)}::1`)).to.equal(`2001:db8:${i.toString(16)}:0::/64`);
      }
    }
  });

  it('takes the TCP peer unless proxies are trusted', () => {
    expect(clientAddress(request('10.0.0.5', '198.51.100.1'), 0)).to.equal('10.0.0.5');
  });

  it('behind N trusted proxies, takes the N-th X-Forwarded-For entry from the right', () => {
    const req = request('10.0.0.5', 'spoofed, 198.51.100.1, 10.0.0.4');
    expect(clientAddress(req, 1)).to.equal('10.0.0.4');
    expect(clientAddress(req, 2)).to.equal('198.51.100.1');
    // More hops trusted than there are entries: the leftmost, as Express does.
    expect(clientAddress(request('10.0.0.5', '198.51.100.1'), 5)).to.equal('198.51.100.1');
    expect(clientAddress(request('10.0.0.5'), 1)).to.equal('10.0.0.5');
  });
});

describe('failed-authentication limiter: counting', () => {
  it('allows `points` failures, then refuses with Retry-After until the window ends', async () => {
    const limiter = new AuthFailureLimiter(new RateLimiterMemory({ points: 3, duration: 60 }));
    for (let i = 0; i < 3; i++) {
      expect(await limiter.refusal('192.0.2.1')).to.equal(null);
      await limiter.recordFailure('192.0.2.1');
    }
    const refusal = await limiter.refusal('192.0.2.1');
    expect(refusal?.code).to.equal('rate_limited');
    expect(Number(refusal?.details.headers?.['Retry-After'])).to.be.within(1, 60);
    expect(await limiter.refusal('192.0.2.2')).to.equal(null);
  });

  it('shares the count between two processes over one store', async () => {
    const store = new RateLimiterMemory({ points: 2, duration: 60 });
    const [a, b] = [new AuthFailureLimiter(store), new AuthFailureLimiter(store)];
    await a.recordFailure('192.0.2.1');
    await b.recordFailure('192.0.2.1');
    expect((await a.refusal('192.0.2.1'))?.code).to.equal('rate_limited');
    expect((await b.refusal('192.0.2.1'))?.code).to.equal('rate_limited');
  });
});

describe('failed-authentication limiter: settings', () => {
  it('defaults to 20 failures a minute per address, and turns off with 0', () => {
    expect(authFailuresFromEnv({})).to.deep.equal({ points: 20, durationSeconds: 60 });
    expect(authFailuresFromEnv({ AUTH_FAILURES_PER_MINUTE: '0' })).to.equal(undefined);
    expect(
      authFailuresFromEnv({ AUTH_FAILURES_PER_MINUTE: '10', AUTH_FAILURES_WINDOW_SECONDS: '300' }),
    ).to.deep.equal({
      points: 50,
      durationSeconds: 300,
    });
    expect(() => authFailuresFromEnv({ AUTH_FAILURES_PER_MINUTE: 'many' })).to.throw(
      /AUTH_FAILURES_PER_MINUTE/,
    );
  });
});
