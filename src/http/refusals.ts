import type { Request, Response } from 'express';
import type { ApiError } from '../domain/errors.js';
import { apiErrorExtensions } from '../operations/error-extensions.js';
import { requestIdOf } from './request-id.js';

/**
 * Refuses a request before any body parsing or routing: REST requests through the one error
 * mapper (`next(error)`), `/graphql` in GraphQL's `{"errors": […]}` shape with the same status,
 * headers and code (plain JSON, like the GraphQL handler's other refusals before execution).
 */
export function refuse(
  req: Request,
  res: Response,
  next: (error: unknown) => void,
  error: ApiError,
): void {
  if (req.path !== '/graphql') return next(error);
  for (const [name, value] of Object.entries(error.details.headers ?? {}))
    res.setHeader(name, value);
  res.status(error.status).type('application/json').send(JSON.stringify(graphQLRefusal(error, requestIdOf(res))));
}

/** An `ApiError` in GraphQL's shape: `{"errors": [{message, extensions}]}` carrying the REST code. */
export function graphQLRefusal(error: ApiError, requestId: string): { errors: object[] } {
  return { errors: [{ message: error.message, extensions: apiErrorExtensions(error.toBody(requestId)) }] };
}
