import { ok, type Handlers } from '../../operations/operations.js';
import * as orders from './orders.service.js';

export const orderHandlers = {
  listUserOrders: async ({ path, query, ctx }) => ok(await orders.listOrders(ctx, path.id, query)),
  createUserOrder: async ({ path, body, ctx }) => ok(await orders.createOrder(ctx, path.id, body)),
  retrieveUserOrder: async ({ path, ctx }) => ok(await orders.retrieveOrder(ctx, path.id, path.order_id)),
  updateUserOrder: async ({ path, body, ctx }) => ok(await orders.updateOrder(ctx, path.id, path.order_id, body)),
  updateUserOrderByPost: async ({ path, body, ctx }) =>
    ok(await orders.updateOrder(ctx, path.id, path.order_id, body)),
  deleteUserOrder: async ({ path, ctx }) => ok(await orders.deleteOrder(ctx, path.id, path.order_id)),
} satisfies Pick<
  Handlers,
  | 'listUserOrders'
  | 'createUserOrder'
  | 'retrieveUserOrder'
  | 'updateUserOrder'
  | 'updateUserOrderByPost'
  | 'deleteUserOrder'
>;
