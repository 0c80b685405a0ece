import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { isSealed, SecretBox, secretsKeyId, sealedKeyId, SecretUnreadable } from '../../src/domain/secret-box.js';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const SECRET = 'whsec_abcdefghijklmnopqrstuvwxyz012345';
const HERE = { table: 'webhook_endpoints', column: 'secret', row: 'we_1' };

describe('SecretBox (secrets sealed at rest)', () => {
  it('seals a value that names its key, holds no trace of the secret, and opens back to it', () => {
    const box = new SecretBox(NEW);
    const sealed = box.seal(SECRET, HERE);
    expect(sealed).to.match(/^sealed\.v1\.[0-9a-f]{16}\.[\w-]{16}\.[\w-]+$/);
    expect(sealedKeyId(sealed)).to.equal(secretsKeyId(NEW)).and.equal(box.currentKeyId);
    expect(sealed).to.not.include(SECRET.slice(6, 20));
    expect(box.open(sealed, HERE)).to.equal(SECRET);
  });

  it('uses a fresh nonce for every value: the same secret sealed twice differs', () => {
    const box = new SecretBox(NEW);
    expect(box.seal(SECRET, HERE)).to.not.equal(box.seal(SECRET, HERE));
  });

  it('derives different ids from different keys, and never the key itself', () => {
    expect(secretsKeyId(OLD)).to.match(/^[0-9a-f]{16}$/).and.not.equal(secretsKeyId(NEW));
    expect(OLD.toString('hex')).to.not.include(secretsKeyId(OLD));
  });

  const places = [
    { ...HERE, row: 'we_2' },
    { ...HERE, column: 'previous_secret' },
    { ...HERE, table: 'signing_keys' },
  ];
  for (const elsewhere of places) {
    it(`does not open a value moved to ${elsewhere.table}.${elsewhere.column} of ${elsewhere.row}`, () => {
      const box = new SecretBox(NEW);
      const sealed = box.seal(SECRET, HERE);
      expect(box.open(sealed, HERE), 'opened (and remembered) in its own place first').to.equal(SECRET);
      expect(() => box.open(sealed, elsewhere)).to.throw(SecretUnreadable, /sealed for another place/);
    });
  }

  it('does not open a value altered by one character', () => {
    const box = new SecretBox(NEW);
    const sealed = box.seal(SECRET, HERE);
    // A character inside the ciphertext (the last one may hold only padding bits).
    const at = sealed.length - 10;
    const altered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    expect(() => box.open(altered, HERE)).to.throw(SecretUnreadable);
  });

  it('opens values of the previous key during a rotation, and seals new ones under the current key', () => {
    const sealedByOld = new SecretBox(OLD).seal(SECRET, HERE);
    const rotating = new SecretBox(NEW, [OLD]);
    expect(rotating.open(sealedByOld, HERE)).to.equal(SECRET);
    const resealed = rotating.reseal(sealedByOld, HERE);
    expect(sealedKeyId(resealed)).to.equal(secretsKeyId(NEW));
    expect(new SecretBox(NEW).open(resealed, HERE)).to.equal(SECRET);
    expect(rotating.reseal(resealed, HERE), 'already under the current key: left as it is').to.equal(resealed);
  });

  it('refuses, naming both key ids, a value under a key that is neither the current nor the previous one', () => {
    const sealedByOld = new SecretBox(OLD).seal(SECRET, HERE);
    expect(() => new SecretBox(NEW).open(sealedByOld, HERE)).to.throw(
      SecretUnreadable,
      `webhook_endpoints.secret of we_1 is sealed under secrets key ${secretsKeyId(OLD)}, which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS (their ids: ${secretsKeyId(NEW)})`,
    );
  });

  it('reads a plain value written before sealing as it is, and seals it on reseal', () => {
    const box = new SecretBox(NEW);
    expect(isSealed(SECRET)).to.equal(false);
    expect(box.open(SECRET, HERE)).to.equal(SECRET);
    expect(box.open(box.reseal(SECRET, HERE), HERE)).to.equal(SECRET);
  });

  it('takes only 32-byte keys', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).to.throw('a secrets key must be 32 bytes, got 16');
  });
});

describe('SECRETS_KEY settings', () => {
  it('reads SECRETS_KEY and SECRETS_KEY_PREVIOUS as base64 of 32 bytes', () => {
    const config = loadConfig({ SECRETS_KEY: NEW.toString('base64'), SECRETS_KEY_PREVIOUS: OLD.toString('base64') });
    expect(config.secretsKeys.key!.equals(NEW)).to.equal(true);
    expect(config.secretsKeys.previousKey!.equals(OLD)).to.equal(true);
  });

  it('refuses a key of another length, text that is not base64, and a key given both ways', () => {
    expect(() => loadConfig({ SECRETS_KEY: Buffer.alloc(31).toString('base64') })).to.throw(/^SECRETS_KEY must be 32 random bytes in base64 .*got 31 bytes$/);
    expect(() => loadConfig({ SECRETS_KEY: 'not base64 at all!' })).to.throw(/SECRETS_KEY must be 32 random bytes/);
    expect(() => loadConfig({ SECRETS_KEY: NEW.toString('base64'), SECRETS_KEY_FILE: '/k' })).to.throw('SECRETS_KEY and SECRETS_KEY_FILE cannot both be set: choose one');
  });
});
