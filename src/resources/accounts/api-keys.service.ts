import type { components } from '../../../generated/openapi.js';
import { unixSeconds } from '../../domain/clock.js';
import { ApiError } from '../../domain/errors.js';
import { newId, randomBase62 } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import type { Grant, Scope } from '../../operations/scopes.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { insertApiKey, type ApiKeyRow } from './accounts.repo.js';
import { hashApiKey } from './accounts.service.js';
import { expireApiKeyRow, findAccount, findApiKeyRow, listApiKeyRows, revokeApiKeyRow } from './api-keys.repo.js';
import { keyPrefix, toApiKeyResource, type ApiKey } from './api-keys.mapper.js';

export type ApiKeyCreateParams = components['schemas']['ApiKeyCreateParams'];
export type ApiKeyWithSecret = components['schemas']['ApiKeyWithSecret'];
export type ApiKeyRollParams = components['schemas']['ApiKeyRollParams'];

/*
 * Keys are managed in two ways: by the operator, for any account (`/admin/accounts/{id}/api_keys`,
 * the `…ForAccount` functions), and by an account itself, with a credential that holds
 * `api_keys:write` (`/v1/api_keys`, the `…Own…` functions). An account's credential never makes or
 * takes over a key stronger than itself: a restricted credential creates, rolls and revokes only
 * keys whose every scope it holds, so that `api_keys:write` is not a way to every other scope.
 */

/**
 * Issues a key for an account: a secret key (`sk_test_…`) without `scopes`, else a restricted key
 * (`rk_test_…`) holding only them. Stored as its hash; the key itself is in this answer only.
 */
export async function createApiKeyForAccount(ctx: RequestContext, accountId: string, params: ApiKeyCreateParams): Promise<ApiKeyWithSecret> {
  await requireAccount(ctx, accountId);
  return issueKey(ctx, accountId, scopesOf(params));
}

/** A key the account makes for itself: at most as strong as the credential that asks. */
export async function createOwnApiKey(ctx: RequestContext, params: ApiKeyCreateParams): Promise<ApiKeyWithSecret> {
  const scopes = scopesOf(params);
  assertHolds(ctx.grant, scopes, 'scopes');
  return issueKey(ctx, ctx.accountId, scopes);
}

/**
 * Rolls a key: a new one of the same kind and scopes, and the old one ends after `expires_in`
 * seconds (0: at once), so that a deployment switches keys without a moment without one.
 */
export async function rollApiKeyForAccount(
  ctx: RequestContext,
  accountId: string,
  keyId: string,
  params: ApiKeyRollParams,
): Promise<ApiKeyWithSecret> {
  await requireAccount(ctx, accountId);
  return rollKey(ctx, accountId, keyId, params);
}

/** Rolls one of the account's own keys, when the credential that asks holds every scope of it. */
export async function rollOwnApiKey(ctx: RequestContext, keyId: string, params: ApiKeyRollParams): Promise<ApiKeyWithSecret> {
  await requireMayManage(ctx, keyId);
  return rollKey(ctx, ctx.accountId, keyId, params);
}

async function rollKey(ctx: RequestContext, accountId: string, keyId: string, params: ApiKeyRollParams): Promise<ApiKeyWithSecret> {
  const { expires_in: overlap = 0, ...unread } = params;
  allParamsRead(unread);
  const now = unixSeconds(ctx.clock);
  const current = await findApiKeyRow(ctx.db, accountId, keyId);
  if (current?.publishable_key) {
    // It is public by design: rolling it would break every page that shows it, for no secrecy won.
    throw new ApiError('parameter_invalid', 'A publishable key is not rolled: it is public by design.', { param: 'key_id' });
  }
  const old = await expireApiKeyRow(ctx.db, accountId, keyId, now, now + overlap);
  if (!old) throw noSuchKey(keyId);
  return issueKey(ctx, accountId, storedScopes(old));
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
  const { key: _none, type, ...created } = toApiKeyResource({ ...row, seq: 0, revoked: null, expires: null, last_used: null, publishable_key: null });
  return { ...created, type: type as 'secret' | 'restricted', revoked: null, expires: null, last_used: null, secret };
}

export async function listApiKeysOfAccount(ctx: RequestContext, accountId: string, query: PageParams) {
  await requireAccount(ctx, accountId);
  const page = await listApiKeyRows(ctx.db, accountId, query);
  return listOf(`/admin/accounts/${accountId}/api_keys`, page, toApiKeyResource);
}

export async function listOwnApiKeys(ctx: RequestContext, query: PageParams) {
  const page = await readMayLag(ctx, (db) => listApiKeyRows(db, ctx.accountId, query));
  return listOf('/v1/api_keys', page, toApiKeyResource);
}

export async function retrieveOwnApiKey(ctx: RequestContext, keyId: string): Promise<ApiKey> {
  const row = await findApiKeyRow(ctx.db, ctx.accountId, keyId);
  if (!row) throw noSuchKey(keyId, 'id');
  return toApiKeyResource(row);
}

/** Revokes a key: every process refuses it within a second (the authenticator's cache). */
export async function revokeApiKeyForAccount(ctx: RequestContext, accountId: string, keyId: string): Promise<ApiKey> {
  await requireAccount(ctx, accountId);
  return revokeKey(ctx, accountId, keyId);
}

/** Revokes one of the account's own keys (the very key that asks, too), when the credential holds every scope of it. */
export async function revokeOwnApiKey(ctx: RequestContext, keyId: string): Promise<ApiKey> {
  await requireMayManage(ctx, keyId);
  return revokeKey(ctx, ctx.accountId, keyId, 'id');
}

async function revokeKey(ctx: RequestContext, accountId: string, keyId: string, param = 'key_id'): Promise<ApiKey> {
  const row = await revokeApiKeyRow(ctx.db, accountId, keyId, unixSeconds(ctx.clock));
  if (!row) throw noSuchKey(keyId, param);
  return toApiKeyResource(row);
}

/** The scopes asked for (each once); null, a secret key, when left out. */
function scopesOf(params: ApiKeyCreateParams): Scope[] | null {
  const { scopes, ...unread } = params;
  allParamsRead(unread);
  return scopes ? [...new Set(scopes)] : null;
}

function storedScopes(row: ApiKeyRow): Scope[] | null {
  return row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[]);
}

/** 403 unless `grant` holds every scope of a key (`null`: a secret key, which only a credential holding every scope may manage). */
function assertHolds(grant: Grant, scopes: readonly Scope[] | null, param: string): void {
  if (grant === 'all') return;
  if (grant === 'publishable') throw new ApiError('insufficient_scope', 'A publishable key cannot manage keys.', { param });
  if (scopes === null) {
    throw new ApiError('insufficient_scope', 'Only a secret key may create or manage a secret key; give `scopes` for a restricted key.', { param });
  }
  const missing = scopes.find((scope) => !grant.has(scope));
  if (missing) {
    throw new ApiError('insufficient_scope', `The credential used does not have the ${missing} scope, so it cannot give it to a key.`, { param });
  }
}

/** The account's key `keyId` exists (else 404) and the credential that asks holds its every scope (else 403). */
async function requireMayManage(ctx: RequestContext, keyId: string): Promise<void> {
  const row = await findApiKeyRow(ctx.db, ctx.accountId, keyId);
  if (!row) throw noSuchKey(keyId, 'id');
  assertHolds(ctx.grant, storedScopes(row), 'id');
}

function noSuchKey(keyId: string, param = 'key_id'): ApiError {
  return new ApiError('resource_missing', `No such API key: '${keyId}'.`, { param });
}

/** 404 `resource_missing` (param `id`) unless the account exists: the operator's requests on an account's credentials. */
export async function requireAccount(ctx: RequestContext, id: string): Promise<void> {
  if (!(await findAccount(ctx.db, id))) throw new ApiError('resource_missing', `No such account: '${id}'.`, { param: 'id' });
}
