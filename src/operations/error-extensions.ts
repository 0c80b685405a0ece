import type { ErrorBody } from '../domain/errors.js';

/**
 * The GraphQL `extensions` of an error of the catalog: the REST error code as `code`, and the other
 * fields a REST client would read in the error envelope. The GraphQL door writes them, and so does
 * the HTTP edge when it refuses a `/graphql` request before GraphQL sees it.
 */
export function apiErrorExtensions(body: ErrorBody): Record<string, unknown> {
  const extensions: Record<string, unknown> = { code: body.code, type: body.type };
  if (body.param !== undefined) extensions.param = body.param;
  if (body.decline_code !== undefined) extensions.declineCode = body.decline_code;
  if (body.charge !== undefined) extensions.charge = body.charge;
  extensions.requestId = body.request_id;
  return extensions;
}
