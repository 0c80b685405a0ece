import type { AddressInfo } from 'node:net';
import http, { type Server } from 'node:http';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { Clock } from '../../src/domain/clock.js';
import { adminCredentialsDigest, createAuthenticator } from '../../src/auth/authenticator.js';
import { serveExpectContinue } from '../../src/http/request-guards.js';
import { createAuthFailureLimiter } from '../../src/auth/auth-failures.js';
import { createAccount } from '../../src/resources/accounts/accounts.service.js';
import type { DatabaseTarget } from '../../src/db/knex.js';
import { createRateLimitStore, type RateLimitWindow } from '../../src/db/rate-limit-store.js';
import { createDatabase, type Engine, type TestDatabase } from './databases.js';
import { ApiClient } from './api-client.js';
import { countingDatabase } from './statement-counter.js';
import { createFailureNotifier } from '../../src/webhooks/failure-notices.js';
import { createSender } from '../../src/webhooks/sender.js';
import { startWebhookWorker } from '../../src/webhooks/worker.js';
import { createEventStream } from '../../src/live-events/create-event-stream.js';
import type { LocalEventStream } from '../../src/live-events/event-stream.js';
import { attachGraphQLSubscriptions } from '../../src/graphql/subscriptions.js';

export const ADMIN = { user: 'admin', password: 'test-admin-password' };

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
  /** The API keys of the first and second accounts (for clients other than `api`, e.g. WebSocket). */
  apiKeys: { first: string; second: string };
  /** The live event feed the server's subscriptions read. */
  eventStream: LocalEventStream;
  /** How many SQL statements the app has run so far (to prove that batching works). */
  statementCount(): number;
  close(): Promise<void>;
}

/**
 * The real app on 127.0.0.1 with a fresh database of the given engine, every response validated
 * against the spec, and two accounts.
 */
export async function startTestServer(
  engine: Engine,
  options: {
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
    webhookWorker?: { retryScheduleSeconds: number[]; smtpUrl?: string; disableAfterMs?: number };
  } = {},
): Promise<TestServer> {
  const database: TestDatabase = await createDatabase(engine);
  const db = await openDatabase(database.target);
  const eventStream = createEventStream(db, database.target, pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  await eventStream.ready();
  const clock = options.webhookWorker ? new FakeClock(Date.now(), true) : new FakeClock();
  const first = await db.transaction((tx) => createAccount(tx, clock, { name: 'Test', email: 'owner@example.com' }));
  const second = await db.transaction((tx) => createAccount(tx, clock, { name: 'Other', email: 'other@example.com' }));
  const appDb = countingDatabase(db);
  const rateLimiter = options.rateLimit && createRateLimitStore(db, options.rateLimit);
  // One authenticator for HTTP and WebSocket, so that both count failures against one allowance.
  const failures = createAuthFailureLimiter(db, options.authFailures, options.trustProxyHops);
  const auth = createAuthenticator(db, adminCredentialsDigest(`${ADMIN.user}:${ADMIN.password}`), failures);
  const app = createApp({
    db: appDb,
    clock,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    auth,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? 86_400,
    validateResponses: true,
    settings: { webhookAllowPrivateNetworks: options.webhookAllowPrivateNetworks ?? false },
    rateLimiter,
    graphqlTrustedDocumentsOnly: options.graphqlTrustedDocumentsOnly,
    eventStream,
  });
  const server: Server = await new Promise((resolve) => {
    const s = http.createServer(app);
    serveExpectContinue(s, app);
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const subscriptions = attachGraphQLSubscriptions(server, {
    db,
    clock,
    logger,
    eventStream,
    auth,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? 86_400,
    settings: { webhookAllowPrivateNetworks: options.webhookAllowPrivateNetworks ?? false },
    rateLimiter,
  });
  const sender = createSender({ allowPrivateNetworks: true, connectTimeoutMs: 1000, totalTimeoutMs: 3000 });
  const worker = options.webhookWorker
    ? startWebhookWorker(
        {
          db,
          clock,
          logger,
          send: sender.send,
          retryScheduleSeconds: options.webhookWorker.retryScheduleSeconds,
          disableAfterMs: options.webhookWorker.disableAfterMs,
          notifyFailure: createFailureNotifier({ smtpUrl: options.webhookWorker.smtpUrl, from: 'payments-api <hooks@test>', logger }),
        },
        { pollIntervalMs: 20 },
      )
    : undefined;
  return {
    url,
    db,
    target: database.target,
    clock,
    api: new ApiClient(url, first.api_key),
    otherApi: new ApiClient(url, second.api_key),
    anonymous: new ApiClient(url),
    wsUrl: `${url.replace(/^http/, 'ws')}/graphql`,
    apiKeys: { first: first.api_key, second: second.api_key },
    eventStream,
    statementCount: () => appDb.statementCount,
    async close() {
      await worker?.stop();
      sender.close();
      await subscriptions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await eventStream.close();
      await db.close();
      await database.drop();
    },
  };
}
