import { ok, type Handlers } from '../../operations/operations.js';
import * as customers from './customers.service.js';

export const customerHandlers = {
  listCustomers: async ({ query, ctx }) => ok(await customers.listCustomers(ctx, query)),
  createCustomer: async ({ body, ctx }) => ok(await customers.createCustomer(ctx, body)),
  retrieveCustomer: async ({ path, ctx }) => ok(await customers.retrieveCustomerOrDeleted(ctx, path.id)),
  replaceCustomer: async ({ path, body, ctx }) => ok(await customers.replaceCustomer(ctx, path.id, body)),
  updateCustomer: async ({ path, body, ctx }) => ok(await customers.updateCustomer(ctx, path.id, body)),
  updateCustomerByPost: async ({ path, body, ctx }) => ok(await customers.updateCustomer(ctx, path.id, body)),
  deleteCustomer: async ({ path, ctx }) => ok(await customers.deleteCustomer(ctx, path.id)),
} satisfies Pick<
  Handlers,
  | 'listCustomers'
  | 'createCustomer'
  | 'retrieveCustomer'
  | 'replaceCustomer'
  | 'updateCustomer'
  | 'updateCustomerByPost'
  | 'deleteCustomer'
>;
