import { ok, type Handlers } from '../../operations/operations.js';
import * as accounts from './accounts.service.js';
import * as apiKeys from './api-keys.service.js';

export const accountHandlers = {
  createAccount: async ({ body, ctx }) => ok(await accounts.createAccount(ctx.db, ctx.clock, body)),
  createAccountApiKey: async ({ path, body, ctx }) => ok(await apiKeys.createApiKey(ctx, path.id, body ?? {})),
  listAccountApiKeys: async ({ path, query, ctx }) => ok(await apiKeys.listApiKeys(ctx, path.id, query)),
  revokeAccountApiKey: async ({ path, ctx }) => ok(await apiKeys.revokeApiKey(ctx, path.id, path.key_id)),
  rollAccountApiKey: async ({ path, body, ctx }) => ok(await apiKeys.rollApiKey(ctx, path.id, path.key_id, body ?? {})),
} satisfies Pick<Handlers, 'createAccount' | 'createAccountApiKey' | 'listAccountApiKeys' | 'revokeAccountApiKey' | 'rollAccountApiKey'>;
