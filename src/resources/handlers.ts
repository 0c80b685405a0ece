import { accountHandlers } from './accounts/accounts.handlers.js';
import { clientCertificateHandlers } from './client-certificates/client-certificates.handlers.js';
import { chargeHandlers } from './charges/charges.handlers.js';
import { customerHandlers } from './customers/customers.handlers.js';
import { eventHandlers } from './events/events.handlers.js';
import { oauthHandlers } from './oauth/oauth.handlers.js';
import { orderHandlers } from './orders/orders.handlers.js';
import { paymentIntentHandlers } from './payment-intents/payment-intents.handlers.js';
import { paymentMethodHandlers } from './payment-methods/payment-methods.handlers.js';
import { refundHandlers } from './refunds/refunds.handlers.js';
import { requestLogHandlers } from './request-logs/request-logs.handlers.js';
import { setupIntentHandlers } from './setup-intents/setup-intents.handlers.js';
import { signingKeyHandlers } from './signing-keys/signing-keys.handlers.js';
import { userHandlers } from './users/users.handlers.js';
import { webhookDeliveryHandlers } from './webhook-deliveries/webhook-deliveries.handlers.js';
import { webhookEndpointHandlers, webhookEndpointPreflights } from './webhook-endpoints/webhook-endpoints.handlers.js';
import type { Handlers, MissingHandlers, OperationId, Preflight, Preflights } from '../operations/operations.js';

// An operation of the spec without a handler fails here first, in one short line: "Type 'true' is
// not assignable to type '"no handler for operation createFoo"'" (tsc sorts diagnostics by file,
// then position, so this line comes before the long `satisfies` message below and before any use).
const _everyOperationHasAHandler: MissingHandlers<typeof bound> = true;

/**
 * Every operation of the spec, bound to its handler. `satisfies Handlers` is the compile-time
 * proof: an operation without a handler, or a handler whose input or result does not match the
 * spec, fails `npm run typecheck` naming the operation.
 */
const bound = {
  ...customerHandlers,
  ...chargeHandlers,
  ...refundHandlers,
  ...paymentIntentHandlers,
  ...paymentMethodHandlers,
  ...setupIntentHandlers,
  ...userHandlers,
  ...orderHandlers,
  ...eventHandlers,
  ...webhookEndpointHandlers,
  ...webhookDeliveryHandlers,
  ...accountHandlers,
  ...oauthHandlers,
  ...signingKeyHandlers,
  ...clientCertificateHandlers,
  ...requestLogHandlers,
} satisfies Handlers;

/**
 * The handler map, typed as each handler is written (the narrow result types GraphQL reads) and,
 * should one be missing, as `Handlers` still, so that the gap is reported above alone rather than
 * again at every place that indexes the map by operationId.
 */
export const handlers = bound as Handlers & typeof bound;

/** The checks some operations make before their transaction opens (see `Preflight`). */
export const preflights: Preflights = { ...webhookEndpointPreflights };

/** The preflight check of an operation, if it has one. */
export function preflightOf(operationId: OperationId): Preflight<OperationId> | undefined {
  return preflights[operationId] as Preflight<OperationId> | undefined;
}

/**
 * The start-up twin of the typecheck (`npm start` runs without one): throws, naming them, when an
 * operation of the spec has no handler, rather than answering 500 "handler is not a function".
 */
export function assertEveryOperationBound(
  routes: readonly { operationId?: string; method: string; specPath: string }[],
  map: Readonly<Record<string, unknown>> = handlers,
): void {
  const missing = routes
    .filter((route) => !route.operationId || typeof map[route.operationId] !== 'function')
    .map((route) => route.operationId ?? `${route.method.toUpperCase()} ${route.specPath} (no operationId)`);
  if (missing.length > 0) {
    throw new Error(`the spec has operations without a handler in src/resources/handlers.ts: ${missing.join(', ')}`);
  }
}
