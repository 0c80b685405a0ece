import { ok, type Handlers } from '../../operations/operations.js';
import * as signingKeys from './signing-keys.service.js';

export const signingKeyHandlers = {
  createAccountSigningKey: async ({ path, body, ctx }) =>
    ok(await signingKeys.createSigningKeyForAccount(ctx, path.id, body ?? {})),
  listAccountSigningKeys: async ({ path, query, ctx }) =>
    ok(await signingKeys.listSigningKeysOfAccount(ctx, path.id, query)),
  revokeAccountSigningKey: async ({ path, ctx }) =>
    ok(await signingKeys.revokeSigningKeyForAccount(ctx, path.id, path.key_id)),
} satisfies Pick<Handlers, 'createAccountSigningKey' | 'listAccountSigningKeys' | 'revokeAccountSigningKey'>;
