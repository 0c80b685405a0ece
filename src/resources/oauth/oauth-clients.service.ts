import type { components } from '../../../generated/openapi.js';
import { unixSeconds } from '../../domain/clock.js';
import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { requireAccount } from '../accounts/api-keys.service.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { generateClientSecret, hashClientSecret } from './client-secrets.js';
import { toOAuthClientResource } from './oauth-clients.mapper.js';
import { deleteOAuthClientRow, insertOAuthClient, listOAuthClientRows } from './oauth-clients.repo.js';

export type OAuthClientCreateParams = components['schemas']['OAuthClientCreateParams'];
export type OAuthClientWithSecret = components['schemas']['OAuthClientWithSecret'];
export type DeletedOAuthClient = components['schemas']['DeletedOAuthClient'];

/**
 * Creates a client of the client credentials grant for an account, holding `scopes` (every scope
 * when left out). Its secret is stored as a hash and shown in this answer only.
 */
export async function createOAuthClient(
  ctx: RequestContext,
  accountId: string,
  params: OAuthClientCreateParams,
): Promise<OAuthClientWithSecret> {
  const { name, scopes, ...unread } = params;
  allParamsRead(unread);
  await requireAccount(ctx, accountId);
  const secret = generateClientSecret();
  const row = {
    id: newId('oauthClient'),
    account_id: accountId,
    name: name ?? null,
    secret_hash: hashClientSecret(secret),
    scopes: scopes ? JSON.stringify([...new Set(scopes)]) : null,
    created: unixSeconds(ctx.clock),
  };
  await insertOAuthClient(ctx.db, row);
  return { ...toOAuthClientResource(row), client_secret: secret };
}

/** The account's clients, newest first; deleted ones are not listed. */
export async function listOAuthClients(ctx: RequestContext, accountId: string, query: PageParams) {
  await requireAccount(ctx, accountId);
  const page = await listOAuthClientRows(ctx.db, accountId, query);
  return listOf(`/admin/accounts/${accountId}/oauth_clients`, page, toOAuthClientResource);
}

/**
 * Deletes a client: it gets no more tokens at once, and the tokens it holds are refused by every
 * process within a second (the verifier's cache, src/auth/access-tokens.ts).
 */
export async function deleteOAuthClient(
  ctx: RequestContext,
  accountId: string,
  clientId: string,
): Promise<DeletedOAuthClient> {
  await requireAccount(ctx, accountId);
  const row = await deleteOAuthClientRow(ctx.db, accountId, clientId, unixSeconds(ctx.clock));
  if (!row) throw new ApiError('resource_missing', `No such OAuth client: '${clientId}'.`, { param: 'client_id' });
  return { id: row.id, object: 'oauth_client', deleted: true };
}

