import type { EventStream } from '../events/event-stream.js';
import type { BinderDeps } from '../http/binder.js';
import type { RequestContext } from '../http/operations.js';
import type { Logger } from '../logger.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What the GraphQL door needs from the process: the REST binder's dependencies and the live event feed. */
export interface GraphQLDeps extends BinderDeps {
  eventStream: EventStream;
  logger: Logger;
}

/**
 * The context of one GraphQL operation (one HTTP request, or one subscription). A type, not an
 * interface, because graphql-http requires a context assignable to a record.
 */
export type GraphQLContext = {
  /** The very context a REST handler receives: account, request id, database, clock, settings. */
  request: RequestContext;
  /** Batching loaders, fresh for each operation so that nothing is cached across requests. */
  loaders: Loaders;
  deps: GraphQLDeps;
};

/** Who is asking, as established by the transport (HTTP headers, or a WebSocket's `connection_init`). */
export interface GraphQLCaller {
  accountId: string;
  requestId: string;
  /** The HTTP request's `Idempotency-Key` header, if any. */
  idempotencyKey: string | null;
}

export function createGraphQLContext(deps: GraphQLDeps, caller: GraphQLCaller): GraphQLContext {
  const request: RequestContext = {
    accountId: caller.accountId,
    requestId: caller.requestId,
    idempotencyKey: caller.idempotencyKey,
    db: deps.db,
    clock: deps.clock,
    settings: deps.settings,
  };
  return { request, loaders: createLoaders(request), deps };
}
