import type { ErrorFields } from '../domain/errors.js';

/**
 * The GraphQL `extensions` of an error of the catalog: the REST error code as `code`, and the other
 * fields a REST client would read in the error envelope. The GraphQL door writes them, and so does
 * the HTTP edge when it refuses a `/graphql` request before GraphQL sees it. The envelope's payment
 * or setup intent (a decline, a refused move) becomes its id in `paymentIntent` or `setupIntent`, as the failed charge is in
 * `charge`: a GraphQL client reads the intent itself through a query, with the fields it selects.
 */
export function apiErrorExtensions(body: ErrorFields): Record<string, unknown> {
  const extensions: Record<string, unknown> = { code: body.code, type: body.type };
  if (body.param !== undefined) extensions.param = body.param;
  if (body.decline_code !== undefined) extensions.declineCode = body.decline_code;
  if (body.charge !== undefined) extensions.charge = body.charge;
  if (body.payment_intent !== undefined) extensions.paymentIntent = body.payment_intent.id;
  if (body.setup_intent !== undefined) extensions.setupIntent = body.setup_intent.id;
  extensions.requestId = body.request_id;
  return extensions;
}
