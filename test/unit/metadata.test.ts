import { expect } from 'chai';
import { initialMetadata, mergeMetadata, parseMetadata } from '../../src/resources/shared/metadata.js';

describe('metadata', () => {
  describe('mergeMetadata', () => {
    it('sets the keys sent and keeps the others', () => {
      expect(mergeMetadata({ a: '1', b: '2' }, { b: '3', c: '4' })).to.deep.equal({ a: '1', b: '3', c: '4' });
    });

    it('removes a key sent with an empty string', () => {
      expect(mergeMetadata({ a: '1', b: '2' }, { a: '' })).to.deep.equal({ b: '2' });
    });

    it('ignores an empty string for a key that is not there', () => {
      expect(mergeMetadata({ a: '1' }, { z: '' })).to.deep.equal({ a: '1' });
    });

    it('keeps everything when no metadata is sent', () => {
      expect(mergeMetadata({ a: '1' }, undefined)).to.deep.equal({ a: '1' });
      expect(mergeMetadata({ a: '1' }, {})).to.deep.equal({ a: '1' });
    });

    it('does not change the current map', () => {
      const current = { a: '1', b: '2' };
      mergeMetadata(current, { a: '', c: '3' });
      expect(current).to.deep.equal({ a: '1', b: '2' });
    });

    it('refuses a result of more than 50 keys, naming metadata, and allows exactly 50', () => {
      const fortyNine = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
      expect(Object.keys(mergeMetadata(fortyNine, { k49: 'v' }))).to.have.length(50);
      expect(() => mergeMetadata({ ...fortyNine, k49: 'v' }, { k50: 'v' }))
        .to.throw(/at most 50 metadata keys/)
        .with.nested.property('details.param', 'metadata');
    });

    it("cannot be used to change an object's prototype", () => {
      const merged = mergeMetadata({}, JSON.parse('{"__proto__": "x", "constructor": "y"}'));
      expect(Object.getPrototypeOf(merged)).to.equal(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(merged, 'constructor')?.value).to.equal('y');
      expect(JSON.parse(JSON.stringify(merged))).to.deep.equal(JSON.parse('{"__proto__": "x", "constructor": "y"}'));
    });
  });

  describe('initialMetadata', () => {
    it('stores the map as JSON without empty values, and an absent map as {}', () => {
      expect(parseMetadata(initialMetadata({ a: '1', b: '' }))).to.deep.equal({ a: '1' });
      expect(parseMetadata(initialMetadata(undefined))).to.deep.equal({});
    });
  });
});
