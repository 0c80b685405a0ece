/**
 * What an account's publishable key (`pk_test_…`) may do. The spec is the one list: the operations
 * whose `security` names the scheme `publishableKey` (creating payment methods, reading and
 * confirming an intent with its client secret), so allowing another is one line there. Everything
 * else is refused 403, naming what the key may do; the operations themselves check the client
 * secret (resources/payments/client-secrets.ts).
 */
import { ApiError } from '../domain/errors.js';
import type { OperationId } from './operations.js';
import { routeOperations } from './routes.js';

let allowed: ReadonlySet<OperationId> | undefined;

/** The operations a publishable key may call. */
export function publishableOperations(): ReadonlySet<OperationId> {
  allowed ??= new Set(routeOperations().filter((route) => route.publishable).map((route) => route.operationId));
  return allowed;
}

/** The 403 of a publishable key's call that it may not make, naming the ones it may. */
export function publishableKeyRefusal(): ApiError {
  const names = [...publishableOperations()].sort().join(', ');
  return new ApiError(
    'insufficient_scope',
    `A publishable key may only call ${names} (with the object's client_secret); use a secret or restricted key for anything else.`,
  );
}

/** Throws the 403 unless a publishable key may call the operation. */
export function assertPublishableMay(operationId: OperationId): void {
  if (!publishableOperations().has(operationId)) throw publishableKeyRefusal();
}
