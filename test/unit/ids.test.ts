import { expect } from 'chai';
import { ID_PREFIX, newId, randomBase62 } from '../../src/domain/ids.js';

describe('ids', () => {
  it('makes ids of a prefix and 24 base62 characters for every kind', () => {
    for (const [kind, prefix] of Object.entries(ID_PREFIX)) {
      expect(newId(kind as keyof typeof ID_PREFIX)).to.match(new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`));
    }
  });

  it('uses the prefixes of docs/conventions.md#ids', () => {
    expect(ID_PREFIX).to.include({ customer: 'cus', charge: 'ch', refund: 're', event: 'evt', user: 'usr', order: 'ord', request: 'req' });
  });

  it('never repeats an id in 20,000 draws', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('charge')));
    expect(ids.size).to.equal(20_000);
  });

  it('returns exactly the length asked for', () => {
    for (const length of [1, 10, 24, 32, 100]) expect(randomBase62(length)).to.have.length(length).and.match(/^[0-9A-Za-z]+$/);
  });

  it('uses all 62 characters, each about equally often', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(62 * 2000);
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).to.equal(62);
    // Expected 2000 each; a modulo bias (256 % 62) would push the first 8 characters to ~2300.
    for (const [c, n] of counts) expect(n, c).to.be.within(1750, 2250);
  });
});
