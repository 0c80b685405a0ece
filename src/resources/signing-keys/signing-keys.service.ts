import type { components } from '../../../generated/openapi.js';
import { unixSeconds } from '../../domain/clock.js';
import { ApiError } from '../../domain/errors.js';
import { newId, randomBase62 } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { requireAccount } from '../accounts/api-keys.service.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { placeOf, SIGNING_KEY_SECRET } from '../shared/sealed-secrets.js';
import { allParamsRead } from '../shared/params.js';
import { toSigningKeyResource, type SigningKey } from './signing-keys.mapper.js';
import { insertSigningKey, listSigningKeyRows, revokeSigningKeyRow } from './signing-keys.repo.js';

export type SigningKeyCreateParams = components['schemas']['SigningKeyCreateParams'];
export type SigningKeyWithSecret = components['schemas']['SigningKeyWithSecret'];

/*
 * Signing keys for HTTP message signatures (RFC 9421, hmac-sha256), managed by the operator for
 * any account (`/admin/accounts/{id}/signing_keys`). The key's id is the `keyid` of its signatures;
 * its secret, the HMAC key, is shown once, in the answer that creates it. Verification is in
 * src/auth/message-signatures.ts.
 */

/** A new secret: `hmsec_` and 32 random base62 characters (about 190 bits); the HMAC key is its UTF-8 bytes. */
export function generateSigningSecret(): string {
  return `hmsec_${randomBase62(32)}`;
}

/** Issues a signing key for an account, holding `scopes` (every scope when left out). */
export async function createSigningKeyForAccount(
  ctx: RequestContext,
  accountId: string,
  params: SigningKeyCreateParams,
): Promise<SigningKeyWithSecret> {
  const { scopes, ...unread } = params;
  allParamsRead(unread);
  await requireAccount(ctx, accountId);
  const secret = generateSigningSecret();
  const id = newId('signingKey');
  const row = {
    id,
    account_id: accountId,
    secret: ctx.secrets.seal(secret, placeOf(SIGNING_KEY_SECRET, id)),
    scopes: scopes ? JSON.stringify(scopes) : null,
    created: unixSeconds(ctx.clock),
  };
  await insertSigningKey(ctx.db, row);
  return { ...toSigningKeyResource({ ...row, seq: 0, revoked: null }), revoked: null, secret };
}

/** The account's signing keys, newest first, revoked ones included. */
export async function listSigningKeysOfAccount(ctx: RequestContext, accountId: string, query: PageParams) {
  await requireAccount(ctx, accountId);
  const page = await listSigningKeyRows(ctx.db, accountId, query);
  return listOf(`/admin/accounts/${accountId}/signing_keys`, page, toSigningKeyResource);
}

/**
 * Revokes a key: every process refuses its signatures within a second (the verifier's cache). A
 * second revocation is a 404.
 */
export async function revokeSigningKeyForAccount(
  ctx: RequestContext,
  accountId: string,
  keyId: string,
): Promise<SigningKey> {
  await requireAccount(ctx, accountId);
  const row = await revokeSigningKeyRow(ctx.db, accountId, keyId, unixSeconds(ctx.clock));
  if (!row) throw new ApiError('resource_missing', `No such signing key: '${keyId}'.`, { param: 'key_id' });
  return toSigningKeyResource(row);
}

