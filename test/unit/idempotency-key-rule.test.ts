import { expect } from 'chai';
import { isApiError } from '../../src/domain/errors.js';
import { assertValidIdempotencyKey } from '../../src/operations/idempotency.js';

/** The error `assertValidIdempotencyKey` throws for `key`, or undefined if it accepts it. */
function refusal(key: string, param = 'idempotencyKey'): { code: string; param?: string; message: string } | undefined {
  try {
    assertValidIdempotencyKey(key, param);
    return undefined;
  } catch (error) {
    if (!isApiError(error)) throw error;
    return { code: error.code, param: error.details.param, message: error.message };
  }
}

describe('idempotency key rule (the spec’s Idempotency-Key parameter)', () => {
  const accepted: Array<[string, string]> = [
    ['one character', 'a'],
    ['255 characters', 'k'.repeat(255)],
    ['the ends of printable ASCII', '!~'],
    ['a uuid', '6f1c2b0e-3c4d-4e5f-8a9b-0c1d2e3f4a5b'],
  ];
  for (const [name, key] of accepted) {
    it(`accepts ${name}`, () => expect(refusal(key)).to.equal(undefined));
  }

  const refused: Array<[string, string]> = [
    ['the empty key', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'two words'],
    ['a tab', 'a\tb'],
    ['DEL', 'a\x7Fb'],
    ['a non-ASCII letter', 'clé'],
  ];
  for (const [name, key] of refused) {
    it(`refuses ${name} with parameter_invalid naming the parameter`, () => {
      const error = refusal(key);
      expect(error?.code).to.equal('parameter_invalid');
      expect(error?.param).to.equal('idempotencyKey');
      expect(error?.message).to.match(/^Invalid idempotencyKey: /);
    });
  }

  it('names the parameter as the caller gave it (the header, or an argument)', () => {
    expect(refusal('', 'Idempotency-Key')?.param).to.equal('Idempotency-Key');
  });
});
