/**
 * The keys that sign this server's access tokens (ES256), kept in `token_signing_keys` so that
 * every process signs with the same key and verifies the others' tokens.
 *
 * Guarantees:
 * - One key signs at a time: the newest not superseded. Once it is `keyRotationSeconds` old (or
 *   when there is none), the next token request or JWKS read makes a new one and marks the others
 *   superseded.
 * - A superseded key stays published (`/.well-known/jwks.json`) for the tokens' lifetime plus the
 *   verifiers' clock tolerance, so every token it signed verifies until it expires: rotation
 *   without a moment in which a live token cannot be checked.
 * - One new key per rotation, however many requests find the key due at once: across processes
 *   (Postgres) one transaction rotates under a transaction-scoped lock while the others keep
 *   signing with the key they found, still published; and a key is inserted only if no fresh one
 *   signs yet, checked in the same statement, so a request that found the key due just before
 *   another rotated it does not rotate again. (On SQLite one process runs its transactions one at
 *   a time.) Only when two processes make the very first key at once are both kept; both are
 *   published, and the newer signs.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { LRUCache } from 'lru-cache';
import type { components } from '../../../generated/openapi.js';
import type { Queryable } from '../../db/database.js';
import { tryLockKeyForTransaction } from '../../db/key-locks.js';
import type { SecretBox } from '../../domain/secret-box.js';
import { placeOf, TOKEN_PRIVATE_KEY } from '../shared/sealed-secrets.js';
import type { TokenSettings } from './token-settings.js';
import {
  findPublicKeyRow,
  findSigningKeyRow,
  insertSigningKeyRowUnlessFresh,
  listPublicKeyRows,
  supersedeOtherKeys,
  type TokenSigningKeyRow,
} from './token-signing-keys.repo.js';

/** The one algorithm of this server's tokens (RFC 8725 §3.1: verifiers accept only it). */
export const TOKEN_ALGORITHM = 'ES256';

/** The clock skew (seconds) verifiers allow on `exp` and `nbf`: a key stays published this much longer. */
export const TOKEN_CLOCK_TOLERANCE_S = 30;

/** The spec's `Jwks.keys` limit: with a rotation far shorter than the tokens' lifetime, the oldest keys are left out. */
const MAX_PUBLISHED_KEYS = 32;

const ROTATION_LOCK = 'token_signing_keys:rotation';

/** A public key as the JWKS shows it (RFC 7517). */
export type PublicJwk = components['schemas']['Jwk'];

/** The key that signs now. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/**
 * Private keys imported once per process, by kid. A kid is the key's thumbprint, so an entry can
 * never stand for another key, whichever database it was read from.
 */
const privateKeys = new LRUCache<string, Promise<CryptoKey>>({ max: 64 });

/** The key that signs at `now` (unix seconds), made first if the current one is too old or there is none. */
export async function currentSigningKey(
  db: Queryable,
  secrets: SecretBox,
  now: number,
  settings: TokenSettings,
): Promise<SigningKey> {
  let row = await findSigningKeyRow(db);
  if (!row || isDue(row, now, settings)) row = await rotate(db, secrets, now, settings);
  let privateKey = privateKeys.get(row.kid);
  if (!privateKey) {
    const { kid } = row;
    const jwk = JSON.parse(secrets.open(row.private_jwk, placeOf(TOKEN_PRIVATE_KEY, kid))) as JWK;
    privateKey = (importJWK(jwk, TOKEN_ALGORITHM) as Promise<CryptoKey>).catch(
      (error: unknown) => {
        privateKeys.delete(kid);
        throw error;
      },
    );
    privateKeys.set(kid, privateKey);
  }
  return { kid: row.kid, privateKey: await privateKey };
}

/**
 * The public keys a verifier needs at `now`: the one that signs, and those superseded less than a
 * token's lifetime (plus the clock tolerance) ago, newest first.
 */
export async function publishedKeys(db: Queryable, now: number, settings: TokenSettings): Promise<PublicJwk[]> {
  const rows = await listPublicKeyRows(db, now - settings.ttlSeconds - TOKEN_CLOCK_TOLERANCE_S, MAX_PUBLISHED_KEYS);
  return rows.map((row) => JSON.parse(row.public_jwk) as PublicJwk);
}

/** The public key `kid` names (superseded or not), ready to verify with; undefined when there is no such key. */
export async function findPublicKey(db: Queryable, kid: string): Promise<CryptoKey | undefined> {
  const row = await findPublicKeyRow(db, kid);
  if (!row) return undefined;
  return (await importJWK(JSON.parse(row.public_jwk) as JWK, row.algorithm)) as CryptoKey;
}

function isDue(row: TokenSigningKeyRow, now: number, settings: TokenSettings): boolean {
  return now >= row.created + settings.keyRotationSeconds;
}

/**
 * A new signing key, unless another transaction is making one or has just made one. The pair is
 * made before the transaction: nothing but the database is awaited between the check and the write.
 */
async function rotate(db: Queryable, secrets: SecretBox, now: number, settings: TokenSettings): Promise<TokenSigningKeyRow> {
  const fresh = await newKeyRow(secrets, now);
  return db.transaction(async (tx) => {
    if (!(await tryLockKeyForTransaction(tx, ROTATION_LOCK))) {
      // Another process is rotating: its key, or the one found, which stays published meanwhile.
      const current = await findSigningKeyRow(tx);
      if (current) return current;
    }
    if (!(await insertSigningKeyRowUnlessFresh(tx, fresh, now - settings.keyRotationSeconds))) {
      // A fresh key signs already (made meanwhile by another transaction of this process, on SQLite).
      const current = await findSigningKeyRow(tx);
      if (!current) throw new Error('token_signing_keys: a fresh signing key was found, then not');
      return current;
    }
    await supersedeOtherKeys(tx, fresh.kid, now);
    return fresh;
  });
}

async function newKeyRow(secrets: SecretBox, now: number): Promise<TokenSigningKeyRow> {
  const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALGORITHM, { extractable: true });
  const { crv, x, y } = await exportJWK(publicKey);
  // The thumbprint of the public key (RFC 7638) names it: unique, and the same wherever it is computed.
  const kid = await calculateJwkThumbprint({ kty: 'EC', crv, x, y });
  const published: PublicJwk = { kty: 'EC', crv, x, y, kid, alg: TOKEN_ALGORITHM, use: 'sig' };
  return {
    kid,
    algorithm: TOKEN_ALGORITHM,
    private_jwk: secrets.seal(JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: TOKEN_ALGORITHM }), placeOf(TOKEN_PRIVATE_KEY, kid)),
    public_jwk: JSON.stringify(published),
    created: now,
    superseded: null,
  };
}
