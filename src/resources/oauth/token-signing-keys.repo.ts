import type { Queryable } from '../../db/database.js';

export interface TokenSigningKeyRow {
  /** The key's id, the `kid` of the tokens it signs: its JWK thumbprint (RFC 7638). */
  kid: string;
  /** `ES256`. */
  algorithm: string;
  /** The private key as a JWK (JSON text), sealed (shared/sealed-secrets.ts). */
  private_jwk: string;
  /** The public key as a JWK (JSON text), as the JWKS publishes it. */
  public_jwk: string;
  created: number;
  /** When a newer key took over signing (unix seconds); null for the key that signs. */
  superseded: number | null;
}

/** The newest key not superseded: the one that signs. */
export async function findSigningKeyRow(db: Queryable): Promise<TokenSigningKeyRow | undefined> {
  const row = await db.one<TokenSigningKeyRow>(
    'SELECT * FROM token_signing_keys WHERE superseded IS NULL ORDER BY created DESC, kid DESC LIMIT 1',
  );
  return row && { ...row, created: Number(row.created) };
}

/** A key's public half, by its `kid`, superseded or not. */
export function findPublicKeyRow(
  db: Queryable,
  kid: string,
): Promise<Pick<TokenSigningKeyRow, 'kid' | 'algorithm' | 'public_jwk'> | undefined> {
  return db.one('SELECT kid, algorithm, public_jwk FROM token_signing_keys WHERE kid = ?', [kid]);
}

/** The public halves of the keys not superseded, or superseded after `supersededAfter`, newest first, at most `limit`. */
export function listPublicKeyRows(
  db: Queryable,
  supersededAfter: number,
  limit: number,
): Promise<Array<Pick<TokenSigningKeyRow, 'kid' | 'public_jwk'>>> {
  return db.all(
    `SELECT kid, public_jwk FROM token_signing_keys WHERE superseded IS NULL OR superseded > ?
     ORDER BY created DESC, kid DESC LIMIT ?`,
    [supersededAfter, limit],
  );
}

/**
 * Inserts a new signing key unless a key made after `freshAfter` (unix seconds) is not superseded:
 * the check and the write are one statement, so two rotations cannot both pass the check. True
 * when it was inserted.
 */
export async function insertSigningKeyRowUnlessFresh(
  db: Queryable,
  row: TokenSigningKeyRow,
  freshAfter: number,
): Promise<boolean> {
  const inserted = await db.run(
    `INSERT INTO token_signing_keys (kid, algorithm, private_jwk, public_jwk, created, superseded)
     SELECT ?, ?, ?, ?, ?, NULL
     WHERE NOT EXISTS (SELECT 1 FROM token_signing_keys WHERE superseded IS NULL AND created > ?)`,
    [row.kid, row.algorithm, row.private_jwk, row.public_jwk, row.created, freshAfter],
  );
  return inserted === 1;
}

/** Marks every key but `kid` superseded at `now`, unless it was already. */
export async function supersedeOtherKeys(db: Queryable, kid: string, now: number): Promise<void> {
  await db.run('UPDATE token_signing_keys SET superseded = ? WHERE superseded IS NULL AND kid <> ?', [now, kid]);
}
