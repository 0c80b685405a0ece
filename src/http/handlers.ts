import { accountHandlers } from '../resources/accounts/accounts.handlers.js';
import { chargeHandlers } from '../resources/charges/charges.handlers.js';
import { customerHandlers } from '../resources/customers/customers.handlers.js';
import { eventHandlers } from '../resources/events/events.handlers.js';
import { orderHandlers } from '../resources/orders/orders.handlers.js';
import { refundHandlers } from '../resources/refunds/refunds.handlers.js';
import { userHandlers } from '../resources/users/users.handlers.js';
import { webhookDeliveryHandlers } from '../resources/webhook-deliveries/webhook-deliveries.handlers.js';
import { webhookEndpointHandlers } from '../resources/webhook-endpoints/webhook-endpoints.handlers.js';
import type { Handlers } from './operations.js';

/**
 * Every operation of the spec, bound to its handler. `satisfies Handlers` is the compile-time
 * proof: an operation without a handler, or a handler whose input or result does not match the
 * spec, fails `npm run typecheck` naming the operation.
 */
export const handlers = {
  ...customerHandlers,
  ...chargeHandlers,
  ...refundHandlers,
  ...userHandlers,
  ...orderHandlers,
  ...eventHandlers,
  ...webhookEndpointHandlers,
  ...webhookDeliveryHandlers,
  ...accountHandlers,
} satisfies Handlers;
