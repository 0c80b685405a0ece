import type { Database } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import type { SecretBox } from '../domain/secret-box.js';
import { idempotentPost, runIdempotent, type KeyPrecheck, type StoredResponse } from './idempotency.js';
import type { Handler, OperationId, OperationInput, Preflight, RequestContext, ServiceSettings } from './operations.js';
import { scopeOf, type RouteOperation } from './routes.js';
import { assertPublishableMay } from './publishable-keys.js';
import { assertGranted } from './scopes.js';

/**
 * The operations whose answer shows a credential once (a secret, an API key, an access token):
 * the response an `Idempotency-Key` keeps for a replay is stored sealed, as the secrets are.
 */
const ANSWERS_WITH_CREDENTIALS: ReadonlySet<OperationId> = new Set<OperationId>([
  'createWebhookEndpoint',
  'rotateWebhookEndpointSecret',
  'createApiKey',
  'createAccessToken',
  'createAccount',
  'createAccountApiKey',
  'rollApiKey',
  'rollAccountApiKey',
  'createAccountOAuthClient',
  'createAccountSigningKey',
]);

/** What running an operation needs, whichever door it comes through. */
export interface OperationDeps {
  db: Database;
  /** The read replica (`DATABASE_READ_URL`) that reads tolerating lag run on; left out: `db`. */
  readDb?: Database;
  clock: Clock;
  settings: ServiceSettings;
  secrets: SecretBox;
  idempotencyTtlSeconds: number;
}

/** Where an operation is being called: which operation, its method, and the path a stored idempotent response is bound to. */
export interface OperationCall {
  operationId: OperationId;
  method: RouteOperation['method'];
  path: string;
  /** The operation's check before its transaction, if it has one (`Preflight`). */
  preflight?: Preflight<OperationId>;
  /** What the REST door's replay check already found for the `Idempotency-Key`. */
  idempotencyPrecheck?: KeyPrecheck;
}

/** A request's change shares its commit with those of other requests (group commit). */
const GROUPED = { grouped: true } as const;

/**
 * Runs one operation as both doors (REST and GraphQL) must: refused (403) when the credentials
 * lack the operation's scope; a read on the database; a change in one transaction, its events
 * included; a POST with an `Idempotency-Key` through the idempotency layer, which may answer with
 * the stored response instead (`replayed`).
 */
export async function runOperation(
  deps: OperationDeps,
  handler: Handler<OperationId>,
  input: OperationInput<OperationId>,
  call: OperationCall,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const { ctx } = input;
  if (ctx.grant === 'publishable') assertPublishableMay(call.operationId);
  else assertGranted(ctx.grant, scopeOf(call.operationId));
  if (call.method === 'get') return { response: await handler(input), replayed: false };
  // Before the transaction, so that what it waits on (DNS) holds no lock and no connection.
  await call.preflight?.(input);
  // Everything a change reads, it reads in its transaction on the primary, never on a replica.
  const execute = (tx: RequestContext['db']) => handler({ ...input, ctx: { ...ctx, db: tx, readDb: tx } });
  if (call.method === 'post' && ctx.idempotencyKey) {
    const { accountId, idempotencyKey: key, requestId } = ctx;
    const sealsResponse = ANSWERS_WITH_CREDENTIALS.has(call.operationId);
    const request = idempotentPost(deps, { accountId, key, requestId, path: call.path, body: input.body, sealsResponse });
    return runIdempotent(deps.db, request, execute, call.idempotencyPrecheck);
  }
  return { response: await deps.db.transaction(execute, GROUPED), replayed: false };
}
