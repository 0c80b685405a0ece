import type { components } from '../../../generated/openapi.js';
import { unixSeconds } from '../../domain/clock.js';
import { ApiError } from '../../domain/errors.js';
import { newId, randomBase62 } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import type { Scope } from '../../operations/scopes.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { insertApiKey } from './accounts.repo.js';
import { hashApiKey } from './accounts.service.js';
import { expireApiKeyRow, findAccount, listApiKeyRows, revokeApiKeyRow } from './api-keys.repo.js';
import { keyPrefix, toApiKeyResource, type ApiKey } from './api-keys.mapper.js';

export type ApiKeyCreateParams = components['schemas']['ApiKeyCreateParams'];
export type ApiKeyWithSecret = components['schemas']['ApiKeyWithSecret'];
export type ApiKeyRollParams = components['schemas']['ApiKeyRollParams'];

/**
 * Issues a key for an account: a secret key (`sk_test_…`) without `scopes`, else a restricted key
 * (`rk_test_…`) holding only them. Stored as its hash; the key itself is in this answer only.
 */
export async function createApiKey(ctx: RequestContext, accountId: string, params: ApiKeyCreateParams): Promise<ApiKeyWithSecret> {
  const { scopes: given, ...unread } = params;
  allParamsRead(unread);
  await requireAccount(ctx, accountId);
  return issueKey(ctx, accountId, given ? ([...new Set(given)] as Scope[]) : null);
}

/**
 * Rolls a key: a new one of the same kind and scopes, and the old one ends after `expires_in`
 * seconds (0: at once), so that a deployment switches keys without a moment without one.
 */
export async function rollApiKey(ctx: RequestContext, accountId: string, keyId: string, params: ApiKeyRollParams): Promise<ApiKeyWithSecret> {
  const { expires_in: overlap = 0, ...unread } = params;
  allParamsRead(unread);
  await requireAccount(ctx, accountId);
  const now = unixSeconds(ctx.clock);
  const old = await expireApiKeyRow(ctx.db, accountId, keyId, now, now + overlap);
  if (!old) throw new ApiError('resource_missing', `No such API key: '${keyId}'.`, { param: 'key_id' });
  return issueKey(ctx, accountId, old.scopes === null ? null : (JSON.parse(old.scopes) as Scope[]));
}

async function issueKey(ctx: RequestContext, accountId: string, scopes: Scope[] | null): Promise<ApiKeyWithSecret> {
  const secret = `${keyPrefix(scopes)}${randomBase62(32)}`;
  const row = {
    id: newId('apiKey'),
    account_id: accountId,
    key_hash: hashApiKey(secret),
    last4: secret.slice(-4),
    created: unixSeconds(ctx.clock),
    scopes: scopes === null ? null : JSON.stringify(scopes),
  };
  await insertApiKey(ctx.db, row);
  return { ...toApiKeyResource({ ...row, seq: 0, revoked: null, expires: null }), revoked: null, expires: null, secret };
}

export async function listApiKeys(ctx: RequestContext, accountId: string, query: PageParams) {
  await requireAccount(ctx, accountId);
  const page = await listApiKeyRows(ctx.db, accountId, query);
  return listOf(`/admin/accounts/${accountId}/api_keys`, page, toApiKeyResource);
}

/** Revokes a key: every process refuses it within a second (the authenticator's cache). */
export async function revokeApiKey(ctx: RequestContext, accountId: string, keyId: string): Promise<ApiKey> {
  await requireAccount(ctx, accountId);
  const row = await revokeApiKeyRow(ctx.db, accountId, keyId, unixSeconds(ctx.clock));
  if (!row) throw new ApiError('resource_missing', `No such API key: '${keyId}'.`, { param: 'key_id' });
  return toApiKeyResource(row);
}

async function requireAccount(ctx: RequestContext, id: string): Promise<void> {
  if (!(await findAccount(ctx.db, id))) throw new ApiError('resource_missing', `No such account: '${id}'.`, { param: 'id' });
}
