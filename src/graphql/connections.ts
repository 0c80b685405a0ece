import { ApiError } from '../domain/errors.js';
import type { PageParams } from '../resources/shared/pagination.js';

/** The Relay arguments of a connection field. */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** A connection's page size when neither `first` nor `last` is given, as REST's `limit`. */
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

/**
 * Relay arguments as the REST pagination parameters: the cursor of an edge is the object's id,
 * so `after` is `starting_after` and `before` is `ending_before`, and a cursor from either door
 * works in the other; `last` alone is the last page. Sizes follow REST's `limit` (1 to 100).
 */
export function toPageParams(args: ConnectionArgs): PageParams & { backward: boolean } {
  if (args.first != null && args.last != null) {
    throw new ApiError('parameter_invalid', 'Pass either first or last, not both.', { param: 'last' });
  }
  if (args.after != null && args.before != null) {
    throw new ApiError('parameter_invalid', 'Pass either after or before, not both.', { param: 'before' });
  }
  // Relay pages forward with first/after and backward with last/before; a mixed pair would need
  // the page to be cut at both ends, which the index seek does not do.
  if (args.last != null && args.after != null) {
    throw new ApiError('parameter_invalid', 'Pass after with first, or before with last.', { param: 'after' });
  }
  if (args.first != null && args.before != null) {
    throw new ApiError('parameter_invalid', 'Pass after with first, or before with last.', { param: 'before' });
  }
  const backward = args.last != null || args.before != null;
  const size = (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE;
  const param = backward ? 'last' : 'first';
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new ApiError('parameter_invalid', `Invalid ${param}: must be between 1 and ${MAX_PAGE_SIZE}.`, { param });
  }
  if (!backward) return { limit: size, starting_after: args.after ?? undefined, backward };
  // `last` without `before` is the last page: the oldest objects (Relay's connection spec).
  return args.before == null ? { limit: size, from_oldest: true, backward } : { limit: size, ending_before: args.before, backward };
}

/** A page of REST resources (newest first) as a Relay connection. */
export function toConnection<T extends { id: string }>(
  page: { data: T[]; has_more: boolean },
  params: { backward: boolean; starting_after?: string; ending_before?: string },
) {
  const edges = page.data.map((node) => ({ cursor: node.id, node }));
  return {
    edges,
    pageInfo: {
      // A cursor names an existing object, so there is at least that one on its side.
      hasNextPage: params.backward ? params.ending_before !== undefined : page.has_more,
      hasPreviousPage: params.backward ? page.has_more : params.starting_after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
