import { DEFAULT_JWKS_TIMEOUT_MS, type AccessTokenSettings, type ExternalJwtIssuer } from './auth/auth-settings.js';
import os from 'node:os';
import path from 'node:path';
import type { ServiceSettings } from './operations/operations.js';
import type { RateLimitWindow } from './db/rate-limit-store.js';
import type { AuthFailureWindow } from './auth/auth-failures.js';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './edge/server-timeouts.js';
import type { LogFormat } from './logging/logger.js';
import { DEFAULT_EVENT_RETENTION_DAYS } from './resources/events/events.retention.js';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from './webhooks/retry-policy.js';
import { SIGNATURE_HEADER_ALIASES, type SignatureHeaderAlias } from './webhooks/signing.js';

/** Which parts run in this process: the HTTP API, the webhook worker, or both. */
export type Role = 'all' | 'api' | 'worker';

/** The typed configuration, read once from the environment (see docs/operating.md#configuration). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `postgres://…` switches to Postgres; undefined means SQLite under `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * `DATABASE_READ_URL` (`postgres://…`, only beside a Postgres `DATABASE_URL`): a streaming replica
   * that the reads which tolerate lag (lists, events) run on; undefined: they run on the primary.
   */
  databaseReadUrl: string | undefined;
  role: Role;
  /**
   * `WEB_CONCURRENCY`: how many API processes serve `PORT` (node:cluster), on Postgres; `auto` is
   * the number of CPUs. SQLite and `ROLE=worker` run one process whatever it says (cluster.ts says why at start).
   */
  webConcurrency: number;
  bootstrapApiKey: string | undefined;
  adminUser: string | undefined;
  adminPassword: string | undefined;
  logLevel: string;
  /** `LOG_FORMAT` (`json` or `pretty`); unset, the logger chooses by whether stdout is a terminal (logging/logger.ts). */
  logFormat: LogFormat | undefined;
  nodeEnv: string;
  /** How long an idempotency key and its stored response are kept. */
  idempotencyTtlSeconds: number;
  /** How long request log entries (`GET /v1/request_logs`) are kept (`REQUEST_LOG_RETENTION_HOURS`, at least 1). */
  requestLogRetentionHours: number;
  /**
   * How long events stay retrievable (`EVENT_RETENTION_DAYS`, at least 1): older ones leave the
   * API with their webhook deliveries, except those a pending or failed delivery keeps
   * (src/resources/events/events.retention.ts).
   */
  eventRetentionDays: number;
  /**
   * Requests per API key and window (`RATE_LIMIT_PER_SECOND` × `RATE_LIMIT_WINDOW_SECONDS`),
   * counted across every API process; undefined when `RATE_LIMIT_PER_SECOND=0` turns limits off.
   */
  rateLimit: RateLimitWindow | undefined;
  /**
   * `REDIS_URL` (`redis://…` or `rediss://…`): the request counters of the rate limit live in this
   * Redis, on either engine; unset, in Postgres (or, on SQLite, in memory).
   */
  redisUrl: string | undefined;
  /**
   * Failed authentications allowed per client address and window (`AUTH_FAILURES_PER_MINUTE` ×
   * `AUTH_FAILURES_WINDOW_SECONDS`), counted across every API process; undefined when
   * `AUTH_FAILURES_PER_MINUTE=0` turns the limit off.
   */
  authFailures: AuthFailureWindow | undefined;
  /** `TRUST_PROXY`: reverse proxies in front whose `X-Forwarded-For` names the client (default 0). */
  trustProxyHops: number;
  /** Headers, body and keep-alive timeouts of the HTTP server (`HTTP_*_TIMEOUT_SECONDS`). */
  httpTimeouts: HttpTimeouts;
  /** Validate every response against the spec (on in tests; a 500 on mismatch). */
  validateResponses: boolean;
  /** How long a worker holds a claimed delivery before another may take it (its worker died). */
  webhookLeaseSeconds: number;
  /** HTTP attempts a worker process makes at once, and its connections per receiving host. */
  webhookConcurrency: number;
  /** An endpoint whose attempts have all failed for this long is disabled (5 days). */
  webhookDisableAfterSeconds: number;
  /** Delays between webhook attempts, in seconds (`WEBHOOK_RETRY_SCHEDULE`). */
  webhookRetryScheduleSeconds: number[];
  /** Other names of the signature header, for endpoints that do not choose (`WEBHOOK_SIGNATURE_HEADER_ALIASES`). */
  webhookSignatureHeaderAliases: SignatureHeaderAlias[];
  /** Where failure notices are sent (`smtp://…`); unset: they are logged. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /**
   * `PUBLIC_URL`: the origin people reach this server at, on which its absolute URLs are made (the
   * authentication page of `next_action.redirect_to_url`, `receipt_url`, the links in receipt
   * e-mails); unset: the address the API listens on (src/public-origin.ts).
   */
  publicUrl: string | undefined;
  /**
   * `GRAPHQL_TRUSTED_DOCUMENTS_ONLY=true`: `/graphql` runs only documents an operator registered
   * (`npm run graphql:persist`), by hash or `documentId`; query text and client registrations
   * (automatic persisted queries) are refused. Default false.
   */
  graphqlTrustedDocumentsOnly: boolean;
  /**
   * `METRICS_PUBLIC=true`: `/metrics` answers without the admin credentials (a scraper on a private
   * network that cannot send HTTP Basic). Default false: the admin credentials are required.
   */
  metricsPublic: boolean;
  /**
   * `METRICS_PORT`: where a `ROLE=worker` process, which has no API port, serves `GET /metrics` (on
   * `HOST`). Unset: such a worker serves none. The API roles serve `/metrics` on `PORT`.
   */
  metricsPort: number | undefined;
  /** Settings the services read (see `ServiceSettings`). */
  settings: ServiceSettings;
  /** The access tokens this server issues at `POST /oauth/token` (see `AccessTokenSettings`). */
  accessTokens: AccessTokenSettings;
  /**
   * `JWT_ISSUER`, `JWT_AUDIENCE` and `JWT_JWKS_URL` (all three, or none): access tokens of an
   * external issuer are accepted too, verified with the keys at its JWKS URL, fetched within
   * `JWT_JWKS_TIMEOUT_MS` (default 5000).
   */
  externalJwt: ExternalJwtIssuer | undefined;
  /**
   * `TLS_PORT` with `TLS_CERT_FILE`, `TLS_KEY_FILE` and `TLS_CLIENT_CA_FILE`: an HTTPS listener beside
   * the HTTP one, where client certificates issued by that CA authenticate (mutual TLS).
   */
  tls: TlsListener | undefined;
  /** The key-encryption keys of the secrets stored sealed (see `SecretsKeySettings`). */
  secretsKeys: SecretsKeySettings;
}

/** The HTTPS listener for mutual TLS. */
export interface TlsListener {
  port: number;
  certFile: string;
  keyFile: string;
  clientCaFile: string;
}

function atLeastOne(name: string, value: number): number {
  if (value < 1) throw new Error(`${name} must be at least 1`);
  return value;
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a whole number, got "${value}"`);
  return parsed;
}

/**
 * `AUTH_FAILURES_PER_MINUTE` (default 20; `0` turns the limit off) over a window of
 * `AUTH_FAILURES_WINDOW_SECONDS` (default 60): an address may fail `perMinute × window / 60` times
 * in a burst, then is refused until its window (which starts at its first failure) ends.
 */
function authFailures(env: NodeJS.ProcessEnv): AuthFailureWindow | undefined {
  const perMinute = integer('AUTH_FAILURES_PER_MINUTE', env.AUTH_FAILURES_PER_MINUTE, 20);
  const windowSeconds = integer('AUTH_FAILURES_WINDOW_SECONDS', env.AUTH_FAILURES_WINDOW_SECONDS, 60);
  if (windowSeconds < 1 || windowSeconds > 86_400) throw new Error('AUTH_FAILURES_WINDOW_SECONDS must be between 1 and 86400');
  if (perMinute === 0) return undefined;
  return { points: Math.max(1, Math.round((perMinute * windowSeconds) / 60)), durationSeconds: windowSeconds };
}

/** The HTTP server's three timeouts, in whole seconds (1 to 3600 each). */
function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  return {
    headersMs: timeoutSeconds('HTTP_HEADERS_TIMEOUT_SECONDS', env.HTTP_HEADERS_TIMEOUT_SECONDS, DEFAULT_HTTP_TIMEOUTS.headersMs),
    bodyMs: timeoutSeconds('HTTP_BODY_TIMEOUT_SECONDS', env.HTTP_BODY_TIMEOUT_SECONDS, DEFAULT_HTTP_TIMEOUTS.bodyMs),
    keepAliveMs: timeoutSeconds('HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS, DEFAULT_HTTP_TIMEOUTS.keepAliveMs),
  };
}

function timeoutSeconds(name: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined || value === '') return fallbackMs;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 3600) {
    throw new Error(`${name} must be a whole number of seconds from 1 to 3600, got "${value}"`);
  }
  return parsed * 1000;
}

/** `WEBHOOK_RETRY_SCHEDULE` ("5,60,300", seconds, decimals allowed); unset, about three days of backoff. */
function retrySchedule(text: string | undefined): number[] {
  if (!text) return DEFAULT_RETRY_SCHEDULE_SECONDS;
  const delays = text.split(',').map((part) => Number(part.trim()));
  if (delays.length === 0 || delays.some((d) => !Number.isFinite(d) || d < 0)) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "${text}"`);
  }
  return delays;
}

/** `WEBHOOK_SIGNATURE_HEADER_ALIASES` ("Stripe-Signature"); unset or empty, none. */
function signatureHeaderAliases(text: string | undefined): SignatureHeaderAlias[] {
  if (!text?.trim()) return [];
  const names = text.split(',').map((part) => part.trim());
  const allowed: readonly string[] = SIGNATURE_HEADER_ALIASES;
  const unknown = names.filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    throw new Error(`WEBHOOK_SIGNATURE_HEADER_ALIASES may name ${SIGNATURE_HEADER_ALIASES.join(', ')}, got "${unknown.join(', ')}"`);
  }
  return [...new Set(names)] as SignatureHeaderAlias[];
}

/**
 * A window longer than a second is the burst allowance: 100/s over 5 s lets a key send 500 at once,
 * then nothing until the window ends.
 */
function rateLimit(env: NodeJS.ProcessEnv): RateLimitWindow | undefined {
  const perSecond = integer('RATE_LIMIT_PER_SECOND', env.RATE_LIMIT_PER_SECOND, 100);
  const windowSeconds = integer('RATE_LIMIT_WINDOW_SECONDS', env.RATE_LIMIT_WINDOW_SECONDS, 1);
  // A day at most: RateLimit-Reset and Retry-After are bounded by it in the spec.
  if (windowSeconds < 1 || windowSeconds > 86_400) throw new Error('RATE_LIMIT_WINDOW_SECONDS must be between 1 and 86400');
  return perSecond === 0 ? undefined : { points: perSecond * windowSeconds, durationSeconds: windowSeconds };
}

function role(value: string | undefined): Role {
  const chosen = value || 'all';
  if (chosen !== 'all' && chosen !== 'api' && chosen !== 'worker') {
    throw new Error(`ROLE must be all, api or worker, got "${chosen}"`);
  }
  return chosen;
}

/** `WEB_CONCURRENCY`: a whole number of processes, at least 1, or `auto` (one per CPU); default 1. */
function webConcurrency(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  if (value === 'auto') return os.availableParallelism();
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`WEB_CONCURRENCY must be a whole number of at least 1, or auto, got "${value}"`);
  return parsed;
}

/** A TCP port (0 lets the OS pick one). */
function portNumber(name: string, value: string | undefined, fallback: number): number {
  const port = integer(name, value, fallback);
  if (port > 65_535) throw new Error(`${name} must be a port number (0 to 65535), got "${value}"`);
  return port;
}

/** `true` or `false` (any case); unset or empty: the fallback. Anything else is refused, not read as false. */
function flag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const lower = value.toLowerCase();
  if (lower !== 'true' && lower !== 'false') throw new Error(`${name} must be true or false, got "${value}"`);
  return lower === 'true';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(value: string | undefined): string {
  const level = value || 'info';
  if (!LOG_LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return level;
}

function logFormat(value: string | undefined): LogFormat | undefined {
  if (!value) return undefined;
  if (value !== 'json' && value !== 'pretty') throw new Error(`LOG_FORMAT must be json or pretty, got "${value}"`);
  return value;
}

function redisUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!URL.canParse(value) || !/^rediss?:$/.test(new URL(value).protocol)) {
    throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
  }
  return value;
}

const MAX_PUBLIC_ORIGIN_LENGTH = 100;

function publicUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new Error('PUBLIC_URL must be an http:// or https:// URL');
  }
  const { origin } = new URL(value);
  // The URLs made on it stay within the spec's maxLength (receipt_url 200, redirect_to_url 300).
  if (origin.length > MAX_PUBLIC_ORIGIN_LENGTH) {
    throw new Error(`PUBLIC_URL's origin must be at most ${MAX_PUBLIC_ORIGIN_LENGTH} characters`);
  }
  return origin;
}

function smtpUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!URL.canParse(value) || !/^smtps?:$/.test(new URL(value).protocol)) {
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  return value;
}

/**
 * `DATABASE_READ_URL`: a replica of the Postgres primary. SQLite has no replicas, so beside it the
 * setting is refused rather than ignored: the operator believes reads are offloaded.
 */
function readReplicaUrl(value: string | undefined, databaseUrl: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!databaseUrl) {
    throw new Error('DATABASE_READ_URL needs a Postgres DATABASE_URL: a read replica is of a Postgres primary (unset DATABASE_READ_URL on SQLite)');
  }
  if (!/^postgres(ql)?:\/\//.test(value)) throw new Error('DATABASE_READ_URL must be a postgres:// URL');
  return value;
}

/** Reads the configuration; throws a readable message on a malformed value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  const databaseReadUrl = readReplicaUrl(env.DATABASE_READ_URL, databaseUrl);
  if (env.BOOTSTRAP_API_KEY && !/^sk_test_[0-9A-Za-z_]{8,}$/.test(env.BOOTSTRAP_API_KEY)) {
    throw new Error('BOOTSTRAP_API_KEY must look like sk_test_ followed by at least 8 letters or digits');
  }
  const nodeEnv = env.NODE_ENV || 'development';
  return {
    port: portNumber('PORT', env.PORT, 4242),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    databaseReadUrl,
    role: role(env.ROLE),
    webConcurrency: webConcurrency(env.WEB_CONCURRENCY),
    bootstrapApiKey: env.BOOTSTRAP_API_KEY || undefined,
    adminUser: env.ADMIN_USER || undefined,
    adminPassword: env.ADMIN_PASSWORD || undefined,
    logLevel: logLevel(env.LOG_LEVEL),
    logFormat: logFormat(env.LOG_FORMAT),
    nodeEnv,
    idempotencyTtlSeconds: integer('IDEMPOTENCY_TTL_SECONDS', env.IDEMPOTENCY_TTL_SECONDS, 86_400),
    requestLogRetentionHours: atLeastOne(
      'REQUEST_LOG_RETENTION_HOURS',
      integer('REQUEST_LOG_RETENTION_HOURS', env.REQUEST_LOG_RETENTION_HOURS, 24),
    ),
    eventRetentionDays: atLeastOne('EVENT_RETENTION_DAYS', integer('EVENT_RETENTION_DAYS', env.EVENT_RETENTION_DAYS, DEFAULT_EVENT_RETENTION_DAYS)),
    rateLimit: rateLimit(env),
    redisUrl: redisUrl(env.REDIS_URL),
    authFailures: authFailures(env),
    trustProxyHops: integer('TRUST_PROXY', env.TRUST_PROXY, 0),
    httpTimeouts: httpTimeouts(env),
    validateResponses: flag('VALIDATE_RESPONSES', env.VALIDATE_RESPONSES, nodeEnv === 'test'),
    webhookLeaseSeconds: integer('WEBHOOK_LEASE_SECONDS', env.WEBHOOK_LEASE_SECONDS, 60),
    webhookConcurrency: atLeastOne('WEBHOOK_CONCURRENCY', integer('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 128)),
    webhookRetryScheduleSeconds: retrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    webhookSignatureHeaderAliases: signatureHeaderAliases(env.WEBHOOK_SIGNATURE_HEADER_ALIASES),
    webhookDisableAfterSeconds: integer('WEBHOOK_DISABLE_AFTER_SECONDS', env.WEBHOOK_DISABLE_AFTER_SECONDS, 5 * 86_400),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM || 'payments-api <no-reply@localhost>',
    publicUrl: publicUrl(env.PUBLIC_URL),
    graphqlTrustedDocumentsOnly: flag('GRAPHQL_TRUSTED_DOCUMENTS_ONLY', env.GRAPHQL_TRUSTED_DOCUMENTS_ONLY, false),
    metricsPublic: flag('METRICS_PUBLIC', env.METRICS_PUBLIC, false),
    metricsPort: env.METRICS_PORT ? portNumber('METRICS_PORT', env.METRICS_PORT, 0) : undefined,
    settings: { webhookAllowPrivateNetworks: flag('WEBHOOK_ALLOW_PRIVATE_NETWORKS', env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, false) },
    accessTokens: accessTokens(env),
    externalJwt: externalJwt(env),
    tls: tlsListener(env),
    secretsKeys: secretsKeys(env),
  };
}

function accessTokens(env: NodeJS.ProcessEnv): AccessTokenSettings {
  const ttlSeconds = atLeastOne('ACCESS_TOKEN_TTL_SECONDS', integer('ACCESS_TOKEN_TTL_SECONDS', env.ACCESS_TOKEN_TTL_SECONDS, 900));
  if (ttlSeconds > 86_400) throw new Error(`ACCESS_TOKEN_TTL_SECONDS must be at most 86400, got "${env.ACCESS_TOKEN_TTL_SECONDS}"`);
  return {
    issuer: env.OAUTH_ISSUER || 'payments-api',
    ttlSeconds,
    keyRotationSeconds: atLeastOne(
      'TOKEN_KEY_ROTATION_SECONDS',
      integer('TOKEN_KEY_ROTATION_SECONDS', env.TOKEN_KEY_ROTATION_SECONDS, 30 * 86_400),
    ),
  };
}

/** All three of `JWT_ISSUER`, `JWT_AUDIENCE`, `JWT_JWKS_URL`, or none: one alone is a mistake, not a choice. */
function externalJwt(env: NodeJS.ProcessEnv): ExternalJwtIssuer | undefined {
  const { JWT_ISSUER: issuer, JWT_AUDIENCE: audience, JWT_JWKS_URL: jwksUrl } = env;
  if (!issuer && !audience && !jwksUrl) return undefined;
  if (!issuer || !audience || !jwksUrl) throw new Error('JWT_ISSUER, JWT_AUDIENCE and JWT_JWKS_URL must be set together');
  if (!URL.canParse(jwksUrl) || !/^https?:$/.test(new URL(jwksUrl).protocol)) {
    throw new Error(`JWT_JWKS_URL must be an http:// or https:// URL, got "${jwksUrl}"`);
  }
  const jwksTimeoutMs = atLeastOne('JWT_JWKS_TIMEOUT_MS', integer('JWT_JWKS_TIMEOUT_MS', env.JWT_JWKS_TIMEOUT_MS, DEFAULT_JWKS_TIMEOUT_MS));
  return { issuer, audience, jwksUrl: new URL(jwksUrl), jwksTimeoutMs };
}

/** `TLS_PORT` and the three files it needs, or none of them. */
function tlsListener(env: NodeJS.ProcessEnv): TlsListener | undefined {
  const { TLS_PORT: port, TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, TLS_CLIENT_CA_FILE: clientCaFile } = env;
  if (!port && !certFile && !keyFile && !clientCaFile) return undefined;
  if (!port || !certFile || !keyFile || !clientCaFile) {
    throw new Error('TLS_PORT, TLS_CERT_FILE, TLS_KEY_FILE and TLS_CLIENT_CA_FILE must be set together');
  }
  return { port: portNumber('TLS_PORT', port, 0), certFile, keyFile, clientCaFile };
}

/**
 * The keys that seal the stored secrets (webhook, signing-key and token-signing secrets), never
 * kept in the database: `SECRETS_KEY` (base64 of 32 bytes) or `SECRETS_KEY_FILE` (a file holding
 * that text); during a rotation also `SECRETS_KEY_PREVIOUS` or `SECRETS_KEY_PREVIOUS_FILE`, which
 * still opens the values sealed under the old key. Files are read at start (secrets-keys.ts).
 */
export interface SecretsKeySettings {
  key?: Buffer;
  keyFile?: string;
  previousKey?: Buffer;
  previousKeyFile?: string;
}

/** A key given as base64 text: exactly 32 bytes, or a readable refusal naming the setting. */
export function secretsKeyOf(name: string, text: string): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new Error(`${name} must be 32 random bytes in base64 (make one with: openssl rand -base64 32), got ${key.length} bytes`);
  }
  return key;
}

function secretsKeys(env: NodeJS.ProcessEnv): SecretsKeySettings {
  const pairs = [
    ['SECRETS_KEY', 'SECRETS_KEY_FILE'],
    ['SECRETS_KEY_PREVIOUS', 'SECRETS_KEY_PREVIOUS_FILE'],
  ] as const;
  for (const [value, file] of pairs) {
    if (env[value] && env[file]) throw new Error(`${value} and ${file} cannot both be set: choose one`);
  }
  return {
    key: env.SECRETS_KEY ? secretsKeyOf('SECRETS_KEY', env.SECRETS_KEY) : undefined,
    keyFile: env.SECRETS_KEY_FILE || undefined,
    previousKey: env.SECRETS_KEY_PREVIOUS ? secretsKeyOf('SECRETS_KEY_PREVIOUS', env.SECRETS_KEY_PREVIOUS) : undefined,
    previousKeyFile: env.SECRETS_KEY_PREVIOUS_FILE || undefined,
  };
}
