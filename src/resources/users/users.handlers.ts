import { ok, type Handlers } from '../../operations/operations.js';
import * as users from './users.service.js';

export const userHandlers = {
  listUsers: async ({ query, ctx }) => ok(await users.listUsers(ctx, query)),
  createUser: async ({ body, ctx }) => ok(await users.createUser(ctx, body)),
  retrieveUser: async ({ path, ctx }) => ok(await users.retrieveUser(ctx, path.id)),
  replaceUser: async ({ path, body, ctx }) => ok(await users.replaceUser(ctx, path.id, body)),
  updateUser: async ({ path, body, ctx }) => ok(await users.updateUser(ctx, path.id, body)),
  updateUserByPost: async ({ path, body, ctx }) => ok(await users.updateUser(ctx, path.id, body)),
  deleteUser: async ({ path, ctx }) => ok(await users.deleteUser(ctx, path.id)),
} satisfies Pick<
  Handlers,
  'listUsers' | 'createUser' | 'retrieveUser' | 'replaceUser' | 'updateUser' | 'updateUserByPost' | 'deleteUser'
>;
