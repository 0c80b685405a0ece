import type { X509Certificate } from 'node:crypto';
import type { operations, webhooks } from '../../generated/openapi.js';
import type { Queryable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { Grant } from './scopes.js';

/**
 * Handler types derived from the spec, so that the compiler checks every handler against it.
 * Nothing here declares a request or response shape by hand.
 */

/** The operations of the 3.1 `webhooks`: requests the server sends, not ones it serves. */
type WebhookOperation = { [E in keyof webhooks]: webhooks[E]['post'] }[keyof webhooks];

/**
 * Every REST operation of the spec. openapi-typescript lists the webhooks' operations (they have
 * operationIds) beside them, by name only, so they are told apart by shape: each webhook request
 * carries a signature header no REST operation takes.
 */
export type OperationId = {
  [K in keyof operations]: operations[K] extends WebhookOperation ? never : K;
}[keyof operations];

/** Settings that change what the services accept, handed to them in the request context. */
export interface ServiceSettings {
  /** Allow webhook URLs on loopback and private networks (local development and tests only). */
  webhookAllowPrivateNetworks: boolean;
  /** The DNS servers that webhook URL registration asks (tests); left out, the system's. */
  webhookDnsServers?: readonly string[];
  /**
   * The client CA's certificates (`TLS_CLIENT_CA_FILE`), when the mutual-TLS listener runs: a client
   * certificate is registered only if one of them issued it. Left out: any issuer is accepted.
   */
  clientCertificateAuthorities?: readonly X509Certificate[];
  /**
   * The server's own access tokens: the token endpoint issues them with these settings, and the
   * authenticator must verify them with the same ones. Left out: the defaults.
   */
  accessTokens?: AccessTokenSettings;
  /** `EVENT_RETENTION_DAYS`, which a missing event's message states; left out: the default (30). */
  eventRetentionDays?: number;
  /**
   * The origin of the absolute URLs in resources (src/public-origin.ts), read when a resource is
   * made: the API's port is known only once it listens. The composition root sets it.
   */
  publicOrigin?: () => string;
}

/** The server's own access tokens. */
export interface AccessTokenSettings {
  /** `OAUTH_ISSUER` (default `payments-api`): the tokens' `iss`, and their `aud`. */
  issuer: string;
  /** `ACCESS_TOKEN_TTL_SECONDS` (default 900, at most 86400): how long a token is valid. */
  ttlSeconds: number;
  /**
   * `TOKEN_KEY_ROTATION_SECONDS` (default 30 days): how old the signing key may grow before a new
   * one takes over; the old one stays published while tokens it signed may still be valid.
   */
  keyRotationSeconds: number;
}

/** What a handler knows about the request besides its inputs. */
export interface RequestContext {
  /** The authenticated account, or `admin` for the operator's HTTP Basic surface. */
  accountId: string;
  /** What the credentials may do (see scopes.ts). */
  grant: Grant;
  requestId: string;
  idempotencyKey: string | null;
  /** The database, or the request's transaction for operations that change something. */
  db: Queryable;
  /**
   * Where the reads that tolerate lag run (lists, events): the read replica when
   * `DATABASE_READ_URL` is set, else the database itself; inside a change, its transaction, so
   * that a write reads only what it can build on. A read here that misses may be a replica not yet
   * caught up: `readMayLag` reads it again on `db` (resources/shared/replica-reads.ts).
   */
  readDb: Queryable;
  clock: Clock;
  settings: ServiceSettings;
  /** Seals the secrets the services store and opens them again (`SECRETS_KEY`). */
  secrets: SecretBox;
}

type Part<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

type JsonRequestBody<Op> = Op extends { requestBody?: { content: { 'application/json': infer Body } } }
  ? Body
  : undefined;

type Responses<K extends OperationId> = operations[K]['responses'];
type JsonContent<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;

/** A handler's input: the validated path, query and body, and the request context. */
export interface OperationInput<K extends OperationId> {
  path: Part<operations[K]['parameters']['path']>;
  query: Part<operations[K]['parameters']['query']>;
  /** The JSON or form body, already validated (an absent optional body arrives as `{}`). */
  body: JsonRequestBody<operations[K]>;
  ctx: RequestContext;
}

/** A handler's result: one of the operation's declared statuses with its declared body. */
export type OperationResult<K extends OperationId> = {
  [S in keyof Responses<K>]: S extends number ? { status: S; body: JsonContent<Responses<K>[S]> } : never;
}[keyof Responses<K>];

export type Handler<K extends OperationId> = (input: OperationInput<K>) => Promise<OperationResult<K>>;

/** One handler per operation. `handlers satisfies Handlers` is the proof that all are bound. */
export type Handlers = { [K in OperationId]: Handler<K> };

/**
 * `true` when a handler map has a key for every operation of the spec; otherwise a message naming
 * the operations without one (`"no handler for operation createFoo"`), which is what tsc prints when
 * `true` is assigned to it: the short first diagnostic of a spec change that lacks its handler.
 */
export type MissingHandlers<T> = [Exclude<OperationId, keyof T>] extends [never]
  ? true
  : `no handler for operation ${Exclude<OperationId, keyof T>}`;

/**
 * A check an operation makes before its transaction opens: slow work, such as resolving a
 * webhook URL's host name, that must not hold the database's write lock (SQLite has one writer)
 * or a pooled connection while it waits. It throws the operation's error, as a handler would.
 */
export type Preflight<K extends OperationId> = (input: OperationInput<K>) => Promise<void>;

/** The operations that have a preflight check, by operationId. */
export type Preflights = { [K in OperationId]?: Preflight<K> };

/** Success with 200, the status every operation of this API answers on success. */
export function ok<B>(body: B): { status: 200; body: B } {
  return { status: 200, body };
}
