/**
 * Client secrets: what lets a customer's browser, holding only the account's publishable key, read
 * and confirm one intent (a payment or a setup intent: the functions take the object's id and
 * table, not an intent).
 *
 * A client secret is the object's id, `_secret_` and 24 random base62 characters (143 bits), so it
 * cannot be guessed. It is stored sealed (docs/operating.md#secrets-at-rest): the server shows it
 * again (every secret-key answer carries it), so it is not only compared, and with the public
 * publishable key it completes the customer's side of a payment. It is compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, notFound } from '../../domain/errors.js';
import { randomBase62 } from '../../domain/ids.js';
import type { SecretBox } from '../../domain/secret-box.js';
import type { RequestContext } from '../../operations/operations.js';
import { placeOf, type SealedColumn } from '../shared/sealed-secrets.js';

/** A new client secret for the object `id`, and its sealed form for the row's column. */
export function newClientSecret(secrets: SecretBox, column: SealedColumn, id: string): { secret: string; sealed: string } {
  const secret = `${id}_secret_${randomBase62(24)}`;
  return { secret, sealed: secrets.seal(secret, placeOf(column, id)) };
}

/** The stored client secret of row `id` opened; null when the row has none (made before they existed). */
export function openClientSecret(secrets: SecretBox, column: SealedColumn, id: string, stored: string | null): string | null {
  return stored === null ? null : secrets.open(stored, placeOf(column, id));
}

/** Whether `given` is the client secret, compared in constant time (over digests, so lengths may differ). */
export function isClientSecret(given: string, expected: string | null): boolean {
  if (expected === null) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The check a publishable key's call on an object passes: its `client_secret` sent and right
 * (a wrong one answers 404, as an unknown id does, so it tells nothing), and no `expand` (which
 * would show the account's other objects). A secret key's call passes, and a client secret it
 * sends must be right too.
 */
export function assertClientSecret(
  ctx: RequestContext,
  object: { name: string; id: string; secret: string | null },
  sent: { client_secret?: string; expand?: readonly string[] },
  where: 'query' | 'body',
): void {
  const publishable = ctx.grant === 'publishable';
  if (sent.client_secret === undefined) {
    if (!publishable) return;
    throw new ApiError('parameter_missing', `A publishable key needs the ${object.name}'s client_secret (in the ${where}).`, {
      param: 'client_secret',
    });
  }
  if (!isClientSecret(sent.client_secret, object.secret)) throw notFound(object.name, object.id);
  if (publishable && sent.expand && sent.expand.length > 0) {
    throw new ApiError('parameter_invalid', 'A publishable key cannot expand fields; use a secret key.', { param: 'expand' });
  }
}
