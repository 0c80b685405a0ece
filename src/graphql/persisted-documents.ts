/**
 * Persisted GraphQL documents: turns the params of a `/graphql` request into the text to execute,
 * and keeps documents known by their SHA-256 in the database (`graphql_documents`), shared by
 * every process.
 *
 * A request names its document in one of three ways:
 * - `query`: the text itself;
 * - Apollo's automatic persisted queries (APQ), `extensions.persistedQuery = {version: 1, sha256Hash}`:
 *   the hash alone runs a stored document, the hash with the text registers it;
 * - `documentId: "sha256:<hex>"` (GraphQL over HTTP, Appendix A "Persisted Documents").
 *
 * Guarantees:
 * - a stored hash maps to the one text it is the SHA-256 of: the text is hashed here before it is
 *   stored, and a row is never changed afterwards except to become trusted;
 * - registering is idempotent, also between processes racing on one hash (`ON CONFLICT DO NOTHING`);
 * - with `trustedOnly`, only documents an operator registered (`persistTrustedDocuments`) run:
 *   query text, client registrations and documents stored by clients are refused.
 * Each database handle keeps an LRU cache of hash → document, so a hot document costs no query.
 * Text never changes for a hash and trust only goes from false to true, so nothing needs
 * invalidating: a cached untrusted entry is simply read again when trust is required.
 */
import { createHash } from 'node:crypto';
import { Kind, parse } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/database.js';
import { systemClock, unixSeconds, type Clock } from '../domain/clock.js';

/** The params graphql-http parsed from the request (query may be absent), before the document is resolved. */
export interface PersistedParams {
  query?: string;
  documentId?: string;
  extensions?: Record<string, unknown> | null;
}

/**
 * The document to execute, or why there is none: the HTTP status, the error's `message` and its
 * `extensions.code` (see `documentFailureBody`), and headers that belong to the answer.
 */
export type DocumentResolution =
  | { ok: true; query: string }
  | { ok: false; status: number; message: string; code: string; headers?: Record<string, string> };

/** A resolution that failed. */
export type DocumentFailure = Extract<DocumentResolution, { ok: false }>;

/** What `resolveDocument` may be told besides the request. */
export interface ResolveOptions {
  /** `GRAPHQL_TRUSTED_DOCUMENTS_ONLY`: only documents registered by an operator may run. */
  trustedOnly: boolean;
  /** Dates client registrations (`created`); the system clock by default. */
  clock?: Clock;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const DOCUMENT_ID = /^sha256:([0-9a-f]{64})$/;

/**
 * Apollo's answer to an unknown APQ hash, byte for byte what Apollo Server 4 sends: HTTP 200,
 * `{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}`
 * and `Cache-Control: private, no-cache, must-revalidate` (so that a CDN never caches the miss of
 * a GET). 200, not 4xx: Apollo Client's persisted-queries link reads the error from the body and
 * retries with the full text, while older links (apollo-link-persisted-queries, Apollo Client 3
 * before #9410) treated a 400 or 500 as "server without APQ support" and stopped hashing for good.
 * Clients match the message as well as the code, so neither may change.
 */
function persistedQueryNotFound(): DocumentFailure {
  return {
    ok: false,
    status: 200,
    message: 'PersistedQueryNotFound',
    code: 'PERSISTED_QUERY_NOT_FOUND',
    headers: { 'Cache-Control': 'private, no-cache, must-revalidate' },
  };
}

const TRUSTED_ONLY_MESSAGE =
  'Only trusted documents are accepted: send the documentId of a document registered by the operator';

function failure(status: number, code: string, message: string): DocumentFailure {
  return { ok: false, status, code, message };
}

/** The id of a document in the GraphQL-over-HTTP form, `sha256:<lower-case hex of its UTF-8 text>`. */
export function documentIdOf(source: string): string {
  return `sha256:${sha256Hex(source)}`;
}

function sha256Hex(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}

/** The body of a failed resolution as a GraphQL response: one error, its code in `extensions.code`. */
export function documentFailureBody(failed: DocumentFailure): {
  errors: [{ message: string; extensions: { code: string } }];
} {
  return { errors: [{ message: failed.message, extensions: { code: failed.code } }] };
}

/**
 * Resolves the document a request names. Failures, by code (status):
 * - `PERSISTED_QUERY_NOT_FOUND` (200): an APQ hash nobody registered; the client retries with the text;
 * - `PERSISTED_QUERY_HASH_MISMATCH` (400): the text's SHA-256 is not the hash sent with it; nothing is stored;
 * - `PERSISTED_QUERY_VERSION_UNSUPPORTED`, `PERSISTED_QUERY_INVALID` (400): a malformed `persistedQuery`;
 * - `PERSISTED_DOCUMENT_NOT_FOUND` (404): no stored document has this `documentId` (or, when
 *   trusted-only, this APQ hash: retrying with the text would be refused anyway);
 * - `PERSISTED_DOCUMENT_ID_INVALID` (400): a `documentId` other than `sha256:` and 64 lower-case hex digits;
 * - `PERSISTED_DOCUMENT_CONFLICT` (400): `documentId` sent with `query` or with `persistedQuery`;
 * - `PERSISTED_DOCUMENT_REQUIRED` (400): trusted-only, and the request carries query text;
 * - `PERSISTED_DOCUMENT_NOT_TRUSTED` (403): trusted-only, and the document was stored by a client;
 * - `BAD_REQUEST` (400): no query, no `documentId`, no `persistedQuery`.
 * An APQ registration whose text does not parse is not stored but still returned, so that
 * execution reports the syntax error as usual.
 */
export async function resolveDocument(
  db: Queryable,
  params: PersistedParams,
  options: ResolveOptions,
): Promise<DocumentResolution> {
  const query = typeof params.query === 'string' && params.query !== '' ? params.query : undefined;
  // null is absent, as for graphql-http's own parameters.
  const persistedQuery = params.extensions?.persistedQuery ?? undefined;
  if (params.documentId != null) {
    if (query !== undefined) {
      return failure(400, 'PERSISTED_DOCUMENT_CONFLICT', 'Send either query or documentId, not both');
    }
    if (persistedQuery !== undefined) {
      return failure(400, 'PERSISTED_DOCUMENT_CONFLICT', 'Send either documentId or extensions.persistedQuery, not both');
    }
    return resolveByDocumentId(db, params.documentId, options.trustedOnly);
  }
  if (persistedQuery !== undefined) return resolveAutomaticPersistedQuery(db, persistedQuery, query, options);
  if (query === undefined) {
    return failure(400, 'BAD_REQUEST', 'Missing query: send query, documentId or extensions.persistedQuery');
  }
  if (options.trustedOnly) return failure(400, 'PERSISTED_DOCUMENT_REQUIRED', TRUSTED_ONLY_MESSAGE);
  return { ok: true, query };
}

async function resolveByDocumentId(db: Queryable, documentId: unknown, trustedOnly: boolean): Promise<DocumentResolution> {
  const match = typeof documentId === 'string' ? DOCUMENT_ID.exec(documentId) : null;
  if (!match) {
    return failure(
      400,
      'PERSISTED_DOCUMENT_ID_INVALID',
      'documentId must be "sha256:" followed by the 64 lower-case hex digits of the document\'s SHA-256',
    );
  }
  const found = await findDocument(db, match[1], trustedOnly);
  if (!found) return failure(404, 'PERSISTED_DOCUMENT_NOT_FOUND', `No persisted document has the id "${documentId}"`);
  return trustedOnly && !found.trusted ? notTrusted(match[1]) : { ok: true, query: found.document };
}

async function resolveAutomaticPersistedQuery(
  db: Queryable,
  persistedQuery: unknown,
  query: string | undefined,
  options: ResolveOptions,
): Promise<DocumentResolution> {
  const extension = persistedQuery as { version?: unknown; sha256Hash?: unknown } | null;
  if (typeof extension !== 'object' || extension === null || Array.isArray(extension)) {
    return failure(400, 'PERSISTED_QUERY_INVALID', 'extensions.persistedQuery must be an object');
  }
  if (extension.version !== 1) {
    return failure(400, 'PERSISTED_QUERY_VERSION_UNSUPPORTED', 'Unsupported persisted query version: only version 1 is supported');
  }
  const hash = extension.sha256Hash;
  if (typeof hash !== 'string') {
    return failure(400, 'PERSISTED_QUERY_INVALID', 'extensions.persistedQuery.sha256Hash must be a string');
  }
  if (query !== undefined) return registerAutomaticPersistedQuery(db, hash, query, options);
  // A hash that is not lower-case hex SHA-256 cannot be stored: a miss without a query.
  const found = SHA256_HEX.test(hash) ? await findDocument(db, hash, options.trustedOnly) : undefined;
  if (!found) {
    return options.trustedOnly
      ? failure(404, 'PERSISTED_DOCUMENT_NOT_FOUND', `No trusted document has the hash "${hash}"`)
      : persistedQueryNotFound();
  }
  return options.trustedOnly && !found.trusted ? notTrusted(hash) : { ok: true, query: found.document };
}

/** The second APQ request, after a miss: the text with its hash. Registered only if they match and it parses. */
async function registerAutomaticPersistedQuery(
  db: Queryable,
  hash: string,
  query: string,
  options: ResolveOptions,
): Promise<DocumentResolution> {
  // Any client could register anything: refused when only an operator's documents may run.
  if (options.trustedOnly) return failure(400, 'PERSISTED_DOCUMENT_REQUIRED', TRUSTED_ONLY_MESSAGE);
  if (sha256Hex(query) !== hash) {
    return failure(
      400,
      'PERSISTED_QUERY_HASH_MISMATCH',
      'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query',
    );
  }
  // Like Apollo Server, keep only documents that can run; the syntax error is reported by execution.
  if (operationDocumentProblem(query, { singleOperation: false }) === undefined) {
    await storeClientDocument(db, hash, query, unixSeconds(options.clock ?? systemClock));
  }
  return { ok: true, query };
}

function notTrusted(hash: string): DocumentFailure {
  return failure(
    403,
    'PERSISTED_DOCUMENT_NOT_TRUSTED',
    `The document "sha256:${hash}" was registered by a client, not by the operator. ${TRUSTED_ONLY_MESSAGE}`,
  );
}

/**
 * Stores operator-registered documents as trusted, in one transaction (all or none), and returns
 * their ids (`sha256:<hex>`) in order. A document a client already registered becomes trusted.
 * Each source must be exactly one operation (with the fragments it uses); its text is stored and
 * hashed exactly as given, trailing newline included, so clients should send the id.
 * Throws, naming the source's position, if one is not.
 */
export async function persistTrustedDocuments(db: Queryable, sources: string[], nowSeconds: number): Promise<string[]> {
  sources.forEach((source, index) => {
    const problem = trustedDocumentProblem(source);
    if (problem) throw new Error(`Document ${index + 1}: ${problem}`);
  });
  const hashes = sources.map(sha256Hex);
  await db.transaction(async (tx) => {
    for (const [index, source] of sources.entries()) {
      await tx.run(
        `INSERT INTO graphql_documents (hash, document, trusted, created) VALUES (?, ?, ?, ?)
         ON CONFLICT (hash) DO UPDATE SET trusted = ?`,
        [hashes[index], source, true, nowSeconds, true],
      );
    }
  });
  const cache = cacheFor(db);
  sources.forEach((source, index) => cache.set(hashes[index], { document: source, trusted: true }));
  return hashes.map((hash) => `sha256:${hash}`);
}

/** Why `persistTrustedDocuments` would refuse this text (not exactly one operation and its fragments), or undefined. */
export function trustedDocumentProblem(source: string): string | undefined {
  return operationDocumentProblem(source, { singleOperation: true });
}

/** Why the text is not an executable GraphQL document (with one operation, if asked), or undefined. */
function operationDocumentProblem(source: string, options: { singleOperation: boolean }): string | undefined {
  let definitions;
  try {
    definitions = parse(source).definitions;
  } catch (error) {
    return `not a GraphQL document: ${(error as Error).message}`;
  }
  if (definitions.some((d) => d.kind !== Kind.OPERATION_DEFINITION && d.kind !== Kind.FRAGMENT_DEFINITION)) {
    return 'only operations and fragments can be persisted, not type definitions';
  }
  const operations = definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length;
  if (options.singleOperation && operations !== 1) return `expected exactly one operation, found ${operations}`;
  return undefined;
}

interface StoredDocument {
  document: string;
  trusted: boolean;
}

/** Per database handle, so that handles on different databases (tests) never share entries. */
const caches = new WeakMap<Queryable, LRUCache<string, StoredDocument>>();

function cacheFor(db: Queryable): LRUCache<string, StoredDocument> {
  let cache = caches.get(db);
  if (!cache) {
    // Bounded by count and by text size (a document may be as large as a request body).
    cache = new LRUCache({ max: 1000, maxSize: 16 * 1024 * 1024, sizeCalculation: (d) => Math.max(1, d.document.length) });
    caches.set(db, cache);
  }
  return cache;
}

/** The stored document with this hash; from the cache unless trust is required and the cached entry lacks it. */
async function findDocument(db: Queryable, hash: string, trustRequired: boolean): Promise<StoredDocument | undefined> {
  const cache = cacheFor(db);
  const cached = cache.get(hash);
  // Trust only grows: an entry cached as untrusted may have been trusted since, by another process.
  if (cached && (cached.trusted || !trustRequired)) return cached;
  const found = await db.one<StoredDocument>('SELECT document, trusted FROM graphql_documents WHERE hash = ?', [hash]);
  if (found) cache.set(hash, found);
  return found;
}

/**
 * How long a document registered by a client (APQ) is kept. Any authenticated client may register
 * documents, so they cannot be kept for ever; a client whose hash was purged gets
 * `PersistedQueryNotFound` and registers it again, as the APQ protocol provides.
 */
export const CLIENT_DOCUMENT_TTL_SECONDS = 7 * 86_400;

/**
 * Deletes client-registered documents older than the TTL (operator-registered, trusted ones are
 * kept). A process that cached one may go on serving it from memory until it restarts.
 */
export function purgeClientDocuments(db: Queryable, nowSeconds: number, ttlSeconds = CLIENT_DOCUMENT_TTL_SECONDS): Promise<number> {
  return db.run('DELETE FROM graphql_documents WHERE trusted = ? AND created < ?', [false, nowSeconds - ttlSeconds]);
}

/** Registers a client's document, untrusted; a concurrent or earlier registration of the hash wins quietly. */
async function storeClientDocument(db: Queryable, hash: string, document: string, nowSeconds: number): Promise<void> {
  const cache = cacheFor(db);
  if (cache.has(hash)) return;
  await db.run(
    `INSERT INTO graphql_documents (hash, document, trusted, created) VALUES (?, ?, ?, ?)
     ON CONFLICT (hash) DO NOTHING`,
    [hash, document, false, nowSeconds],
  );
  // Maybe trusted already (an operator registered it first): caching it as untrusted is safe, see findDocument.
  cache.set(hash, { document, trusted: false });
}
