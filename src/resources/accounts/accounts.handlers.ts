import { ok, type Handlers } from '../../operations/operations.js';
import * as accounts from './accounts.service.js';
import * as apiKeys from './api-keys.service.js';

export const accountHandlers = {
  createAccount: async ({ body, ctx }) => ok(await accounts.createAccount(ctx.db, ctx.clock, body)),
  createAccountApiKey: async ({ path, body, ctx }) => ok(await apiKeys.createApiKeyForAccount(ctx, path.id, body ?? {})),
  listAccountApiKeys: async ({ path, query, ctx }) => ok(await apiKeys.listApiKeysOfAccount(ctx, path.id, query)),
  revokeAccountApiKey: async ({ path, ctx }) => ok(await apiKeys.revokeApiKeyForAccount(ctx, path.id, path.key_id)),
  rollAccountApiKey: async ({ path, body, ctx }) => ok(await apiKeys.rollApiKeyForAccount(ctx, path.id, path.key_id, body ?? {})),
  createApiKey: async ({ body, ctx }) => ok(await apiKeys.createOwnApiKey(ctx, body ?? {})),
  listApiKeys: async ({ query, ctx }) => ok(await apiKeys.listOwnApiKeys(ctx, query)),
  retrieveApiKey: async ({ path, ctx }) => ok(await apiKeys.retrieveOwnApiKey(ctx, path.id)),
  revokeApiKey: async ({ path, ctx }) => ok(await apiKeys.revokeOwnApiKey(ctx, path.id)),
  rollApiKey: async ({ path, body, ctx }) => ok(await apiKeys.rollOwnApiKey(ctx, path.id, body ?? {})),
} satisfies Pick<
  Handlers,
  | 'createAccount'
  | 'createAccountApiKey'
  | 'listAccountApiKeys'
  | 'revokeAccountApiKey'
  | 'rollAccountApiKey'
  | 'createApiKey'
  | 'listApiKeys'
  | 'retrieveApiKey'
  | 'revokeApiKey'
  | 'rollApiKey'
>;
