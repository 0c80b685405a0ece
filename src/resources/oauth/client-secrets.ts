import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../domain/ids.js';

/** A new client secret, `cs_test_` and 32 random base62 characters (about 190 bits). */
export function generateClientSecret(): string {
  return `cs_test_${randomBase62(32)}`;
}

/** Client secrets are stored as their SHA-256 (hex): a leaked table reveals no usable secret. */
export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A hash no secret has, compared against when the client is unknown, so that both refusals take the same time. */
const NO_CLIENT_HASH = '0'.repeat(64);

/** Whether `secret` is the one whose hash is `storedHash` (undefined: no such client), compared in constant time. */
export function secretMatches(secret: string, storedHash: string | undefined): boolean {
  const given = Buffer.from(hashClientSecret(secret), 'hex');
  const expected = Buffer.from(storedHash ?? NO_CLIENT_HASH, 'hex');
  return expected.length === given.length && timingSafeEqual(given, expected) && storedHash !== undefined;
}
