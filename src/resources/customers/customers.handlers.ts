import { ok, type Handlers } from '../../operations/operations.js';
import { listExpansion, objectExpansion } from '../shared/expansion.js';
import { customerExpandableFields } from './customers.expansion.js';
import * as customers from './customers.service.js';

// `expand` is checked before the service runs, so a path that cannot be expanded changes nothing.
export const expandCustomer = (paths?: string[]) => objectExpansion(customerExpandableFields, paths);

// `createCustomer` is bound in payment-methods/: a customer may be created with a payment method.

export const customerHandlers = {
  listCustomers: async ({ query, ctx }) => {
    const expand = listExpansion(customerExpandableFields, query.expand);
    return ok(await expand(ctx, await customers.listCustomers(ctx, query)));
  },
  retrieveCustomer: async ({ path, query, ctx }) => {
    const expand = expandCustomer(query.expand);
    return ok(await expand(ctx, await customers.retrieveCustomerOrDeleted(ctx, path.id)));
  },
  replaceCustomer: async ({ path, body, ctx }) => {
    const expand = expandCustomer(body.expand);
    return ok(await expand(ctx, await customers.replaceCustomer(ctx, path.id, body)));
  },
  updateCustomer: async ({ path, body, ctx }) => {
    const expand = expandCustomer(body.expand);
    return ok(await expand(ctx, await customers.updateCustomer(ctx, path.id, body)));
  },
  updateCustomerByPost: async ({ path, body, ctx }) => {
    const expand = expandCustomer(body?.expand);
    return ok(await expand(ctx, await customers.updateCustomer(ctx, path.id, body ?? {})));
  },
  deleteCustomer: async ({ path, ctx }) => ok(await customers.deleteCustomer(ctx, path.id)),
} satisfies Pick<
  Handlers,
  | 'listCustomers'
  | 'retrieveCustomer'
  | 'replaceCustomer'
  | 'updateCustomer'
  | 'updateCustomerByPost'
  | 'deleteCustomer'
>;
