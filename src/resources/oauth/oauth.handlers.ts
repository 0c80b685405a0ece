import { ok, type Handlers } from '../../operations/operations.js';
import * as tokens from './access-tokens.service.js';
import * as clients from './oauth-clients.service.js';

export const oauthHandlers = {
  createAccountOAuthClient: async ({ path, body, ctx }) =>
    ok(await clients.createOAuthClient(ctx, path.id, body ?? {})),
  listAccountOAuthClients: async ({ path, query, ctx }) => ok(await clients.listOAuthClients(ctx, path.id, query)),
  deleteAccountOAuthClient: async ({ path, ctx }) => ok(await clients.deleteOAuthClient(ctx, path.id, path.client_id)),
  // The operation types carry JSON bodies only; this one's is a form, which the validator checked
  // against AccessTokenRequest (and the REST door completed with HTTP Basic credentials).
  createAccessToken: async ({ body, ctx }) =>
    ok(await tokens.grantAccessToken(ctx, body as unknown as tokens.AccessTokenRequest)),
  retrieveJwks: async ({ ctx }) => ok(await tokens.retrieveKeySet(ctx)),
} satisfies Pick<
  Handlers,
  | 'createAccountOAuthClient'
  | 'listAccountOAuthClients'
  | 'deleteAccountOAuthClient'
  | 'createAccessToken'
  | 'retrieveJwks'
>;
