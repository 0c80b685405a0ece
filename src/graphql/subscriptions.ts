/**
 * GraphQL subscriptions over WebSocket (the graphql-ws protocol, subprotocol
 * `graphql-transport-ws`), on the HTTP server's own port and path: Express keeps serving
 * `POST`/`GET /graphql`; only an `Upgrade` request to `/graphql` reaches the WebSocket server.
 *
 * Guarantees: a connection is acknowledged only with a valid API key in its `connection_init`
 * payload (`{"Authorization": "Bearer sk_test_…"}`); otherwise it is closed with 4403 and the reason.
 * A refused key counts as a failed authentication of the client's address, as over HTTP; an
 * address over its failed-attempt allowance is closed with 4429 and the reason, whatever it sends
 * (auth/auth-failures.ts); a token that cannot be checked now (its issuer's keys out of reach) is
 * closed with 1013, try again later.
 * With rate limits on, each `connection_init` and each subscription is one request of that key: a
 * connection over the limit is closed with 4429 and the reason, a subscription over it gets an
 * error with code `rate_limited`.
 * Only subscription operations run over the socket, held to the same depth, cost and alias limits
 * as HTTP; queries and mutations are refused with an error message that points to HTTP. Errors a
 * client receives never carry a stack or an unexpected error's message: those are logged.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  getOperationAST,
  GraphQLError,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import { CloseCode, type SubscribePayload } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { isApiError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { findNul, nulError } from '../domain/nul-guard.js';
import { SubscriptionEndedError } from '../live-events/event-subscription.js';
import type { AccountPrincipal, Authenticator } from '../auth/authenticator.js';
import { countRequest, rateLimitKey, type RateLimiter } from '../edge/rate-limit.js';
import { requestContextFrom } from '../edge/request-context.js';
import type { Logger } from '../logging/logger.js';
import { createGraphQLContext, type GraphQLContext, type GraphQLDeps } from './context.js';
import { errorFromEnvelope, safeExecutionResult } from './errors.js';
import { createDocumentChecker } from './document-checker.js';
import { DEFAULT_GRAPHQL_LIMITS, type GraphQLLimits } from './limits.js';
import { findNulLiteral } from './nul-literals.js';
import { GRAPHQL_PATH } from './http-handler.js';
import { graphQLSchema } from './schema.js';
import { serveGraphQLWs } from './ws-transport.js';

/** The largest message a client may send (the HTTP endpoint's body limit). */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Operations one connection may run at once; each holds a subscriber buffer. */
const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
/** The close code for a connection refused by the rate limit (graphql-ws's "too many" code). */
const RATE_LIMITED_CLOSE_CODE = CloseCode.TooManyInitialisationRequests;
/** The close code for a credential that cannot be checked now (RFC 6455 registry: "Try Again Later"). */
const TRY_AGAIN_LATER_CLOSE_CODE = 1013;
/** How long clients get to answer the server's close frame at shutdown before their sockets are cut. */
const CLOSE_GRACE_MS = 1000;
/**
 * How often an open connection's credential is checked again, so that a revoked or expired key
 * loses its subscriptions as its HTTP requests are refused: within a second or two (the
 * authenticator trusts a key it found for a second, so this costs a lookup per key per second).
 */
const CREDENTIAL_RECHECK_MS = 1000;

/** What a connection remembers once its `connection_init` is accepted. */
interface Caller {
  /** The account its credential belongs to. */
  principal: AccountPrincipal;
  /** The credential it was accepted with, checked again while the socket is open. */
  authorization: string;
  /** The key of the rate limiter its connection and subscriptions are counted against. */
  rateLimitKey: string;
}

export interface GraphQLSubscriptionDeps extends GraphQLDeps {
  auth: Authenticator;
  limits?: GraphQLLimits;
  /** The HTTP API's limiter: connections and subscriptions count against the same allowance. */
  rateLimiter?: RateLimiter;
}

/** Starts serving subscriptions on `server`'s `/graphql`; `close()` says goodbye to every client (1001) and stops. */
export function attachGraphQLSubscriptions(server: Server, deps: GraphQLSubscriptionDeps): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const graphqlWs = serveGraphQLWs<ConnectionParams, Partial<Caller>>(serverOptions(deps), wss, deps.logger);
  const detach = routeUpgrades(server, wss);
  return {
    async close() {
      detach();
      const cut = setTimeout(() => wss.clients.forEach((client) => client.terminate()), CLOSE_GRACE_MS);
      try {
        await graphqlWs.dispose();
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

type ConnectionParams = Record<string, unknown>;
type Options = Parameters<typeof serveGraphQLWs<ConnectionParams, Partial<Caller>>>[0];

/** The graphql-ws hooks: authentication, the operation check, the context, and safe errors. */
function serverOptions(deps: GraphQLSubscriptionDeps): Options {
  const { logger } = deps;
  const check = subscriptionChecker(deps.limits ?? DEFAULT_GRAPHQL_LIMITS);
  return {
    async onConnect(ctx) {
      try {
        const refused = await authenticate(deps.auth, ctx.connectionParams, ctx.extra);
        if (refused !== null) {
          // Closed here to say why; graphql-ws's own 4403 "Forbidden" that follows is then a no-op.
          ctx.extra.socket.close(CloseCode.Forbidden, closeReason(refused));
          return false;
        }
        const limited = deps.rateLimiter && (await countRequest(deps.rateLimiter, ctx.extra.rateLimitKey!));
        if (!limited) {
          closeWhenRefused(deps.auth, ctx.extra.authorization!, ctx.extra.socket, logger);
          return true;
        }
        ctx.extra.socket.close(RATE_LIMITED_CLOSE_CODE, closeReason(limited.message));
      } catch (error) {
        if (isApiError(error) && (error.code === 'rate_limited' || error.code === 'service_unavailable')) {
          const code = error.code === 'rate_limited' ? RATE_LIMITED_CLOSE_CODE : TRY_AGAIN_LATER_CLOSE_CODE;
          ctx.extra.socket.close(code, closeReason(error.message));
          return false;
        }
        logger.error({ err: error }, 'GraphQL WebSocket authentication failed');
        ctx.extra.socket.close(CloseCode.InternalServerError, 'Internal server error');
      }
      return false;
    },
    async onSubscribe(ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> {
      if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
        return [refusal(`At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions may run on one connection.`, 'TOO_MANY_SUBSCRIPTIONS')];
      }
      let checked: Checked;
      try {
        const limited = deps.rateLimiter && (await countRequest(deps.rateLimiter, ctx.extra.rateLimitKey!));
        if (limited) return [refusal(limited.message, limited.code)];
        checked = check(payload);
      } catch (error) {
        logger.error({ err: error }, 'GraphQL subscription could not be checked');
        return [refusal('Internal server error', 'INTERNAL_SERVER_ERROR')];
      }
      if ('errors' in checked) return checked.errors;
      // graphql-ws runs this only on an acknowledged connection, so onConnect has set the account.
      const request = requestContextFrom(ctx.extra.principal!, { requestId: newId('request'), idempotencyKey: null }, deps);
      return { ...checked.args, variableValues: payload.variables, contextValue: createGraphQLContext(deps, request) };
    },
    onOperation(ctx, id, _payload, args) {
      logger.debug({ req_id: requestIdOf(args), account: ctx.extra.principal?.accountId, subscription: id }, 'GraphQL subscription started');
    },
    onNext: (_ctx, _id, _payload, args, result) => formatted(safeExecutionResult(result, requestIdOf(args), logger)),
    onError: (_ctx, _id, _payload, errors) => safeStreamErrors(errors, logger),
  };
}

type Checked = { args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName'> } | { errors: readonly GraphQLError[] };

/** An operation sent over the socket: checked as over HTTP, and a subscription only. */
function subscriptionChecker(limits: GraphQLLimits): (payload: SubscribePayload) => Checked {
  const schema = graphQLSchema();
  const checkDocument = createDocumentChecker(limits);
  return (payload) => {
    const verdict = checkDocument(payload.query);
    if ('errors' in verdict) return { errors: verdict.errors };
    const operation = getOperationAST(verdict.document, payload.operationName);
    if (operation && operation.operation !== 'subscription') {
      const message = `Only subscriptions are served over WebSocket: send this ${operation.operation} with HTTP POST ${GRAPHQL_PATH}.`;
      return { errors: [refusal(message, 'OPERATION_NOT_SUPPORTED')] };
    }
    // As over HTTP: U+0000 in a variable or a literal is refused before the event store is read.
    const nul = findNul({ variables: payload.variables }) ?? findNulLiteral(verdict.document, payload.query);
    if (nul) return { errors: [errorFromEnvelope({ error: nulError(nul).toBody(newId('request')) })] };
    return { args: { schema, document: verdict.document, operationName: payload.operationName } };
  };
}

/**
 * Hands `Upgrade` requests for `/graphql` to the WebSocket server (plain HTTP requests never reach
 * this: they are Express's). Returns the function that stops it.
 */
function routeUpgrades(server: Server, wss: WebSocketServer): () => void {
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== GRAPHQL_PATH) {
      // Another listener may serve other paths; when there is none, the client learns at once.
      if (server.listenerCount('upgrade') === 1) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);
  return () => server.off('upgrade', onUpgrade);
}

/**
 * Checks the `connection_init` payload's API key (`Authorization`, or `authorization`) within the
 * failed-attempt allowance of the upgrade request's address, and remembers the account on the
 * connection. Returns `null` when accepted, else why not; throws the 429 `ApiError` of an address
 * over its allowance.
 */
async function authenticate(
  auth: Authenticator,
  params: Readonly<Record<string, unknown>> | undefined,
  extra: Extra & Partial<Caller>,
): Promise<string | null> {
  const given = params?.Authorization ?? params?.authorization;
  const header = typeof given === 'string' && given !== '' ? given : undefined;
  const result = await auth.limited.bearer(header, extra.request);
  if (header === undefined) {
    return 'Send your API key in the connection_init payload: {"Authorization": "Bearer sk_test_…"}.';
  }
  if (!result.ok) return result.message;
  if (result.principal.kind !== 'account') return 'Subscriptions need an API key.';
  extra.principal = result.principal;
  extra.authorization = header;
  extra.rateLimitKey = rateLimitKey(result.principal, header);
  return null;
}

/**
 * Checks an accepted connection's credential again every `CREDENTIAL_RECHECK_MS` while the socket
 * is open, and closes it (4403, saying why) once the key is refused: revoked, or rolled and expired.
 */
function closeWhenRefused(auth: Authenticator, authorization: string, socket: Extra['socket'], logger: Logger): void {
  const timer = setInterval(() => {
    auth.bearer(authorization).then(
      (result) => {
        if (!result.ok) socket.close(CloseCode.Forbidden, closeReason(result.message));
      },
      (error: unknown) => logger.warn({ err: error }, 'GraphQL WebSocket credential check failed'),
    );
  }, CREDENTIAL_RECHECK_MS);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}

/**
 * The errors that end an operation (graphql-ws `error` messages), made safe to send: refusals
 * and validation errors are ours; a stream that ended a subscription says why, with a code; a
 * service's `ApiError` keeps its REST code; anything else is logged and masked.
 */
function safeStreamErrors(errors: readonly GraphQLError[], logger: Logger): GraphQLFormattedError[] {
  return errors.map((error) => {
    const original = error.originalError;
    if (!original || original instanceof GraphQLError) return error.toJSON();
    if (original instanceof SubscriptionEndedError) return { message: original.message, extensions: { code: original.code } };
    if (isApiError(original)) return { message: original.message, extensions: { code: original.code } };
    logger.error({ err: original }, 'GraphQL subscription failed');
    return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  });
}

/** A refusal of the client's operation, with a code a client can branch on. */
function refusal(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** A WebSocket close reason is limited to 123 bytes of UTF-8. */
function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let reason = text;
  while (Buffer.byteLength(reason) > 120) reason = reason.slice(0, -1);
  return `${reason}…`;
}

function requestIdOf(args: ExecutionArgs): string {
  return (args.contextValue as GraphQLContext).request.requestId;
}

/** The result as graphql-ws sends it, its errors in their JSON form. */
function formatted(result: ExecutionResult) {
  const { errors, ...rest } = result;
  return errors ? { ...rest, errors: errors.map((error) => error.toJSON()) } : rest;
}
