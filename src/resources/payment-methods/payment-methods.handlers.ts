import { ok, type Handlers } from '../../operations/operations.js';
import { expandCustomer } from '../customers/customers.handlers.js';
import { paymentMethodExpandableFields } from '../payments/payments.expansion.js';
import { listExpansion, objectExpansion } from '../shared/expansion.js';
import * as methods from './payment-methods.service.js';

// `expand` is checked before the service runs, so a path that cannot be expanded changes nothing.
const expandMethod = (paths?: string[]) => objectExpansion(paymentMethodExpandableFields, paths);
const expandList = (paths?: string[]) => listExpansion(paymentMethodExpandableFields, paths);

export const paymentMethodHandlers = {
  createCustomer: async ({ body, ctx }) => {
    const expand = expandCustomer(body.expand);
    return ok(await expand(ctx, await methods.createCustomerWithPaymentMethod(ctx, body)));
  },
  listPaymentMethods: async ({ query, ctx }) => {
    const expand = expandList(query.expand);
    return ok(await expand(ctx, await methods.listPaymentMethods(ctx, query)));
  },
  createPaymentMethod: async ({ body, ctx }) => {
    const expand = expandMethod(body.expand);
    return ok(await expand(ctx, await methods.createPaymentMethod(ctx, body)));
  },
  retrievePaymentMethod: async ({ path, query, ctx }) => {
    const expand = expandMethod(query.expand);
    return ok(await expand(ctx, await methods.retrievePaymentMethod(ctx, path.id)));
  },
  updatePaymentMethod: async ({ path, body, ctx }) => {
    const expand = expandMethod(body.expand);
    return ok(await expand(ctx, await methods.updatePaymentMethod(ctx, path.id, body)));
  },
  updatePaymentMethodByPost: async ({ path, body, ctx }) => {
    const expand = expandMethod(body?.expand);
    return ok(await expand(ctx, await methods.updatePaymentMethod(ctx, path.id, body ?? {})));
  },
  attachPaymentMethod: async ({ path, body, ctx }) => {
    const expand = expandMethod(body.expand);
    return ok(await expand(ctx, await methods.attachPaymentMethod(ctx, path.id, body)));
  },
  detachPaymentMethod: async ({ path, body, ctx }) => {
    const expand = expandMethod(body?.expand);
    return ok(await expand(ctx, await methods.detachPaymentMethod(ctx, path.id, body ?? {})));
  },
  listCustomerPaymentMethods: async ({ path, query, ctx }) => {
    const expand = expandList(query.expand);
    return ok(await expand(ctx, await methods.listCustomerPaymentMethods(ctx, path.id, query)));
  },
  retrieveCustomerPaymentMethod: async ({ path, query, ctx }) => {
    const expand = expandMethod(query.expand);
    return ok(await expand(ctx, await methods.retrieveCustomerPaymentMethod(ctx, path.id, path.payment_method)));
  },
} satisfies Pick<
  Handlers,
  | 'createCustomer'
  | 'listPaymentMethods'
  | 'createPaymentMethod'
  | 'retrievePaymentMethod'
  | 'updatePaymentMethod'
  | 'updatePaymentMethodByPost'
  | 'attachPaymentMethod'
  | 'detachPaymentMethod'
  | 'listCustomerPaymentMethods'
  | 'retrieveCustomerPaymentMethod'
>;
