import type { Principal } from '../auth/authenticator.js';
import type { RequestContext } from '../operations/operations.js';
import type { OperationDeps } from '../operations/run-operation.js';

/** What identifies one request beside its principal. */
export interface RequestIdentity {
  requestId: string;
  /** The request's `Idempotency-Key`, if any. */
  idempotencyKey: string | null;
}

/**
 * The context a handler or resolver runs with, made from the principal authentication accepted:
 * an account's, with its grant, or the operator's (`admin`, holding every scope), as is a REST
 * operation's that declares no security. Both doors make it here, REST per request, GraphQL per
 * operation (HTTP request or subscription).
 */
export function requestContextFrom(
  principal: Principal | undefined,
  request: RequestIdentity,
  deps: Omit<OperationDeps, 'idempotencyTtlSeconds'>,
): RequestContext {
  const account = principal?.kind === 'account';
  return {
    accountId: account ? principal.accountId : 'admin',
    grant: account ? principal.grant : 'all',
    requestId: request.requestId,
    idempotencyKey: request.idempotencyKey,
    db: deps.db,
    readDb: deps.readDb ?? deps.db,
    clock: deps.clock,
    settings: deps.settings,
    secrets: deps.secrets,
  };
}
