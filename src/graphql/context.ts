import type { EventStream } from '../live-events/event-stream.js';
import type { OperationDeps } from '../operations/run-operation.js';
import type { RequestContext } from '../operations/operations.js';
import type { Logger } from '../logging/logger.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What the GraphQL door needs from the process: the REST binder's dependencies and the live event feed. */
export interface GraphQLDeps extends OperationDeps {
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

/** The context of one operation, around the request context its transport made (`requestContextFrom`). */
export function createGraphQLContext(deps: GraphQLDeps, request: RequestContext): GraphQLContext {
  return { request, loaders: createLoaders(request), deps };
}
