import { expect } from 'chai';
import { listenerOrigin, PublicOrigin } from '../../src/public-origin.js';

describe('the public origin of the URLs a browser opens', () => {
  it('writes a wildcard listen address as loopback, which a browser can open', () => {
    expect(listenerOrigin('0.0.0.0', 4242)).to.equal('http://127.0.0.1:4242');
    expect(listenerOrigin('::', 4242)).to.equal('http://127.0.0.1:4242');
    expect(listenerOrigin('127.0.0.1', 4242)).to.equal('http://127.0.0.1:4242');
    expect(listenerOrigin('::1', 4242)).to.equal('http://[::1]:4242');
    expect(listenerOrigin('pay.internal', 80)).to.equal('http://pay.internal:80');
  });

  it('is PUBLIC_URL when set, else the port the API listens on once it does, else the configured one', () => {
    expect(new PublicOrigin('https://pay.example.com', '0.0.0.0', 0).url).to.equal(
      'https://pay.example.com',
    );
    const listening = new PublicOrigin(undefined, '127.0.0.1', 0);
    expect(listening.url).to.equal('http://127.0.0.1:0');
    listening.listening(51234);
    expect(listening.url).to.equal('http://127.0.0.1:51234');
  });
});
