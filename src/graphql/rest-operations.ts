import type { GraphQLResolveInfo } from 'graphql';
import { ApiError, type ErrorBody } from '../domain/errors.js';
import { hasNul, nulError } from '../domain/nul-guard.js';
import { assertValidIdempotencyKey } from '../operations/idempotency.js';
import { runOperation } from '../operations/run-operation.js';
import { handlers, preflightOf } from '../resources/handlers.js';
import { assertValidBody } from '../operations/operation-bodies.js';
import type { Handler, OperationId, OperationInput } from '../operations/operations.js';
import { routeOperations, type RouteOperation } from '../operations/routes.js';
import type { GraphQLContext } from './context.js';
import { errorFromEnvelope } from './errors.js';

let routesById: Map<string, RouteOperation> | undefined;

function routeOf(operationId: OperationId): RouteOperation {
  routesById ??= new Map(routeOperations().map((route) => [route.operationId, route]));
  return routesById.get(operationId)!;
}

/** The body of an operation's success response. */
type SuccessBody<K extends OperationId> = Extract<Awaited<ReturnType<(typeof handlers)[K]>>, { status: 200 }>['body'];

/**
 * Runs a REST operation for a GraphQL mutation, exactly as the REST door would: the body is
 * checked against the same schema of the spec, the same handler runs in one transaction, and a
 * key makes it idempotent in the same store, bound to the same method, path and body; so a key
 * used through one door replays through the other. A failure (a decline included) becomes a
 * GraphQL error carrying the REST error code.
 *
 * The key is the mutation's `idempotencyKey` argument or, for a document with a single mutation,
 * the request's `Idempotency-Key` header.
 */
export async function callRestOperation<K extends OperationId>(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  operationId: K,
  parts: { id?: string; body?: Record<string, unknown>; idempotencyKey?: string | null },
): Promise<SuccessBody<K>> {
  const route = routeOf(operationId);
  const body = parts.body ?? {};
  // The HTTP door refuses U+0000 before execution; this keeps any other caller to the same rule.
  if (parts.id !== undefined && hasNul(parts.id)) throw nulError(['id']);
  if (route.method !== 'get' && route.method !== 'delete') assertValidBody(operationId, body);
  const idempotencyKey = route.method === 'post' ? keyFor(ctx, info, parts.idempotencyKey) : null;
  const path = parts.id === undefined ? {} : { id: parts.id };
  const input = {
    path,
    query: {},
    body,
    ctx: { ...ctx.request, idempotencyKey },
  } as unknown as OperationInput<OperationId>;
  const concretePath = route.specPath.replace('{id}', encodeURIComponent(parts.id ?? ''));
  const { response } = await runOperation(ctx.deps, handlers[operationId] as Handler<OperationId>, input, {
    operationId,
    method: route.method,
    path: concretePath,
    preflight: preflightOf(operationId),
  });
  if (response.status !== 200) throw errorFromEnvelope(response.body as { error: ErrorBody });
  return response.body as SuccessBody<K>;
}

/**
 * The mutation's idempotency key: its argument, else the request's header, checked against the
 * spec's rule for `Idempotency-Key` as the REST door checks the header.
 */
function keyFor(ctx: GraphQLContext, info: GraphQLResolveInfo, argument: string | null | undefined): string | null {
  const header = ctx.request.idempotencyKey;
  if (argument == null && header !== null && info.operation.selectionSet.selections.length !== 1) {
    throw new ApiError(
      'parameter_invalid',
      'The Idempotency-Key header applies to a document with a single mutation; pass idempotencyKey to each mutation instead.',
      { param: 'Idempotency-Key' },
    );
  }
  const key = argument ?? header;
  if (key !== null) assertValidIdempotencyKey(key, argument != null ? 'idempotencyKey' : 'Idempotency-Key');
  return key;
}
