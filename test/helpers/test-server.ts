import type { Registry } from 'prom-client';
import { pino } from 'pino';
import { createServices, startRoles, type CompositionConfig } from '../../src/composition.js';
import type { Database } from '../../src/db/database.js';
import type { Clock } from '../../src/domain/clock.js';
import { adminCredentialsDigest } from '../../src/auth/authenticator.js';
import { createAccount } from '../../src/resources/accounts/accounts.service.js';
import type { DatabaseTarget } from '../../src/db/knex.js';
import type { RateLimitWindow } from '../../src/db/rate-limit-store.js';
import type { LocalEventStream } from '../../src/live-events/event-stream.js';
import { createDatabase, type Engine } from './databases.js';
import { ApiClient } from './api-client.js';
import { TEST_SECRETS_KEY } from './secrets-key.js';
import { countingDatabase } from './statement-counter.js';

export const ADMIN = { user: 'admin', password: 'test-admin-password' };

/** An `Authorization` header of HTTP Basic credentials. */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The operator's `Authorization` header (HTTP Basic with `ADMIN`). */
export const ADMIN_AUTHORIZATION = basicAuthorization(ADMIN.user, ADMIN.password);

/** A clock the test moves by hand. */
export class FakeClock implements Clock {
  /** `follow`: start at `ms` and run with real time (for tests with a worker); advance() still adds. */
  constructor(
    private ms = Date.UTC(2026, 10, 22, 12, 0, 0),
    private readonly follow = false,
  ) {
    this.origin = Date.now();
  }
  private readonly origin: number;
  nowMs(): number {
    return this.follow ? this.ms + (Date.now() - this.origin) : this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestServer {
  url: string;
  db: Database;
  /** Where the database is, for other processes (workers) to open it. */
  target: DatabaseTarget;
  clock: FakeClock;
  /** A client authenticated as the first test account. */
  api: ApiClient;
  /** A client of a second account, to prove that accounts never see each other's objects. */
  otherApi: ApiClient;
  /** A client with no credentials. */
  anonymous: ApiClient;
  /** The GraphQL WebSocket endpoint (`ws://…/graphql`, graphql-ws protocol). */
  wsUrl: string;
  /** The mutual-TLS listener (`https://127.0.0.1:…`), when the server was started with `tls`. */
  tlsUrl: string | undefined;
  /** The ids of the two test accounts (for the operator's `/admin/accounts/{id}/…` requests). */
  accountIds: { first: string; second: string };
  /** The API keys of the first and second accounts (for clients other than `api`, e.g. WebSocket). */
  apiKeys: { first: string; second: string };
  /** The live event feed the server's subscriptions read. */
  eventStream: LocalEventStream;
  /** The process's metrics registry, when the server was started with `metrics`. */
  registry: Registry | undefined;
  /** How many SQL statements the app has run so far (to prove that batching works). */
  statementCount(): number;
  /** Writes the request log entries recorded so far (they are otherwise written within 200 ms). */
  flushRequestLogs(): Promise<void>;
  close(): Promise<void>;
}

/** What a test chooses about its server; what every test server has is in `testConfig` and `startTestServer`. */
export interface TestServerOptions {
  idempotencyTtlSeconds?: number;
  webhookAllowPrivateNetworks?: boolean;
  /** Limit requests per API key with the production store of the engine; default: no limits. */
  rateLimit?: RateLimitWindow;
  /** Limit failed authentications per client address (`AUTH_FAILURES_PER_MINUTE`); default: no limit. */
  authFailures?: RateLimitWindow;
  /** Believe this many reverse proxies' `X-Forwarded-For` entries for the client address (`TRUST_PROXY`). */
  trustProxyHops?: number;
  /** Run /graphql in trusted-documents-only mode (`GRAPHQL_TRUSTED_DOCUMENTS_ONLY`). */
  graphqlTrustedDocumentsOnly?: boolean;
  /** Run the webhook worker in the server, on the real clock, with this retry schedule (seconds). */
  webhookWorker?: {
    retryScheduleSeconds: number[];
    smtpUrl?: string;
    disableAfterMs?: number;
    /** `WEBHOOK_SIGNATURE_HEADER_ALIASES`; default none. */
    signatureHeaderAliases?: CompositionConfig['webhookSignatureHeaderAliases'];
  };
  /** How often that worker looks for due deliveries without being woken; default 20 ms. */
  workerPollIntervalMs?: number;
  /** How often that worker releases authorisations past their 7 days; default: the composition root's (every minute). */
  authorizationExpiryIntervalMs?: number;
  /** How often that worker sends the receipt e-mails queued; default: the composition root's (every second). */
  receiptMailIntervalMs?: number;
  /** `PUBLIC_URL`, the origin of the links in receipt e-mails; default: the server's own address. */
  publicUrl?: string;
  /** The clock; default: a stopped `FakeClock`, or one that follows real time when the worker runs. */
  clock?: FakeClock;
  /** Serve `GET /metrics` and measure requests, as `npm start` does; `public` as `METRICS_PUBLIC`. Default: neither. */
  metrics?: { public: boolean };
  /** The server's access tokens (`OAUTH_ISSUER`, `ACCESS_TOKEN_TTL_SECONDS`, …); default: the production defaults. */
  accessTokens?: CompositionConfig['accessTokens'];
  /** Accept an external issuer's access tokens (`JWT_ISSUER`, `JWT_AUDIENCE`, `JWT_JWKS_URL`). */
  externalJwt?: CompositionConfig['externalJwt'];
  /** Run the mutual-TLS listener too (`TLS_PORT` 0 picks a free port); its URL is `tlsUrl`. */
  tls?: CompositionConfig['tls'];
  /** Resolve webhook names by asking these DNS servers (a fake peer), at registration and in the worker; default: the system's. */
  dnsServers?: string[];
  /** How long a found API key is trusted (the bound on revocation); default: the production second. */
  apiKeyTrustMs?: number;
  /** The HTTP server's headers, body and keep-alive timeouts (`HTTP_*_TIMEOUT_SECONDS`); default: the production ones. */
  httpTimeouts?: CompositionConfig['httpTimeouts'];
  /** Validate every response against the spec (`VALIDATE_RESPONSES`); default true, as in every test. False: production's way of writing them. */
  validateResponses?: boolean;
}

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The settings of a test server, from its options rather than the environment. */
/** The configuration of every test server, with a test's choices (also for tests that build their own services). */
export function testConfig(options: TestServerOptions = {}): CompositionConfig {
  const worker = options.webhookWorker;
  return {
    role: worker ? 'all' : 'api',
    host: '127.0.0.1',
    port: 0,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? 86_400,
    validateResponses: options.validateResponses ?? true,
    rateLimit: options.rateLimit,
    authFailures: options.authFailures,
    trustProxyHops: options.trustProxyHops,
    graphqlTrustedDocumentsOnly: options.graphqlTrustedDocumentsOnly,
    metricsPublic: options.metrics?.public,
    webhookRetryScheduleSeconds: worker?.retryScheduleSeconds ?? [],
    webhookDisableAfterSeconds:
      worker?.disableAfterMs === undefined ? undefined : worker.disableAfterMs / 1000,
    smtpUrl: worker?.smtpUrl,
    webhookSignatureHeaderAliases: worker?.signatureHeaderAliases,
    mailFrom: 'payments-api <hooks@test>',
    publicUrl: options.publicUrl,
    settings: {
      webhookAllowPrivateNetworks: options.webhookAllowPrivateNetworks ?? false,
      webhookDnsServers: options.dnsServers,
    },
    secretsKeys: { key: TEST_SECRETS_KEY },
    accessTokens: options.accessTokens,
    externalJwt: options.externalJwt,
    tls: options.tls,
    httpTimeouts: options.httpTimeouts,
  };
}

/**
 * The real app on 127.0.0.1, built by the composition root as `npm start` builds it, with a fresh
 * database of the given engine, every response validated against the spec, and two accounts.
 */
export async function startTestServer(
  engine: Engine,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const database = await createDatabase(engine);
  const clock =
    options.clock ?? (options.webhookWorker ? new FakeClock(Date.now(), true) : new FakeClock());
  const services = await createServices(testConfig(options), {
    target: database.target,
    clock,
    logger,
    adminDigest: adminCredentialsDigest(`${ADMIN.user}:${ADMIN.password}`),
    // Receivers in tests listen on loopback and answer at once.
    sender: {
      allowPrivateNetworks: true,
      connectTimeoutMs: 1000,
      totalTimeoutMs: 3000,
      dnsServers: options.dnsServers,
    },
    metrics: options.metrics !== undefined,
    apiKeyTrustMs: options.apiKeyTrustMs,
  });
  const { db, eventStream } = services;
  await eventStream!.ready();
  const first = await db.transaction((tx) =>
    createAccount(tx, clock, { name: 'Test', email: 'owner@example.com' }),
  );
  const second = await db.transaction((tx) =>
    createAccount(tx, clock, { name: 'Other', email: 'other@example.com' }),
  );
  const appDb = countingDatabase(db);
  const roles = await startRoles(services, {
    appDb,
    workerPollIntervalMs: options.workerPollIntervalMs ?? 20,
    authorizationExpiryIntervalMs: options.authorizationExpiryIntervalMs,
    receiptMailIntervalMs: options.receiptMailIntervalMs,
    cutConnectionsOnClose: true,
  });
  const url = roles.api!.url;
  return {
    url,
    db,
    target: database.target,
    clock,
    api: new ApiClient(url, first.api_key),
    otherApi: new ApiClient(url, second.api_key),
    anonymous: new ApiClient(url),
    wsUrl: `${url.replace(/^http/, 'ws')}/graphql`,
    tlsUrl: roles.api!.tlsUrl,
    accountIds: { first: first.id, second: second.id },
    apiKeys: { first: first.api_key, second: second.api_key },
    eventStream: eventStream!,
    registry: services.metrics,
    statementCount: () => appDb.statementCount,
    flushRequestLogs: () => roles.api!.requestLog.flush(),
    async close() {
      await roles.close();
      await database.drop();
    },
  };
}

/**
 * Starts a test server for the tests of the enclosing `describe` and stops it after them, so that
 * a test file declares its server in one line. `per: 'test'` (the default) gives every test a
 * fresh server and an empty database; `per: 'suite'` one server for the whole `describe`, for
 * tests that neither count what other tests made nor move the clock; `per: 'account'` one server
 * too, but two new accounts for every test (`api`, `otherApi`, `apiKeys`, `accountIds`), for tests
 * that read only what their accounts made and do not move the clock.
 *
 * The object returned reads the server of the moment: use its properties inside hooks and tests,
 * never while mocha is collecting them.
 */
export function useTestServer(
  engine: Engine,
  options: TestServerOptions = {},
  { per = 'test' }: { per?: 'test' | 'suite' | 'account' } = {},
): TestServer {
  let current: TestServer | undefined;
  let accounts: TestAccounts | undefined;
  const server = (): TestServer => {
    if (!current)
      throw new Error('useTestServer: no server outside the tests and hooks of its describe');
    return current;
  };
  const start = async function (this: Mocha.Context) {
    // A worker's first server also parses the spec, builds its validator and, after a migration
    // changed, the Postgres template: seconds that a loaded machine stretches past the default.
    this.timeout(60_000);
    current = await startTestServer(engine, options);
  };
  const stop = async () => {
    await current?.close();
    current = undefined;
  };
  if (per === 'test') {
    beforeEach(start);
    afterEach(stop);
  } else {
    before(start);
    after(stop);
  }
  if (per === 'account') {
    beforeEach(async () => {
      accounts = await newTestAccounts(server());
    });
    afterEach(() => {
      accounts = undefined;
    });
  }
  return currentServer(() => (accounts ? { ...server(), ...accounts } : server()));
}

/** The two accounts a test talks as. */
type TestAccounts = Pick<TestServer, 'api' | 'otherApi' | 'accountIds' | 'apiKeys'>;

/** Two new accounts on `server`, made as `startTestServer` makes its own. */
async function newTestAccounts(server: TestServer): Promise<TestAccounts> {
  const { db, clock, url } = server;
  const first = await db.transaction((tx) =>
    createAccount(tx, clock, { name: 'Test', email: 'owner@example.com' }),
  );
  const second = await db.transaction((tx) =>
    createAccount(tx, clock, { name: 'Other', email: 'other@example.com' }),
  );
  return {
    api: new ApiClient(url, first.api_key),
    otherApi: new ApiClient(url, second.api_key),
    accountIds: { first: first.id, second: second.id },
    apiKeys: { first: first.api_key, second: second.api_key },
  };
}

/**
 * A `TestServer` whose every property is read from `server()` when used (for a file that picks,
 * test by test, which of its servers a test talks to).
 */
export function currentServer(server: () => TestServer): TestServer {
  return {
    get url() {
      return server().url;
    },
    get db() {
      return server().db;
    },
    get target() {
      return server().target;
    },
    get clock() {
      return server().clock;
    },
    get tlsUrl() {
      return server().tlsUrl;
    },
    get accountIds() {
      return server().accountIds;
    },
    get api() {
      return server().api;
    },
    get otherApi() {
      return server().otherApi;
    },
    get anonymous() {
      return server().anonymous;
    },
    get wsUrl() {
      return server().wsUrl;
    },
    get apiKeys() {
      return server().apiKeys;
    },
    get eventStream() {
      return server().eventStream;
    },
    get registry() {
      return server().registry;
    },
    statementCount: () => server().statementCount(),
    flushRequestLogs: () => server().flushRequestLogs(),
    close: () => server().close(),
  };
}
