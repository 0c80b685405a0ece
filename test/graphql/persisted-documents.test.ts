import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Database, Queryable, SqlValue } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open-database.js';
import {
  CLIENT_DOCUMENT_TTL_SECONDS,
  documentFailureBody,
  documentIdOf,
  persistTrustedDocuments,
  purgeClientDocuments,
  resolveDocument,
  type DocumentResolution,
} from '../../src/graphql/persisted-documents.js';
import { createDatabase, createSqliteDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OPEN = { trustedOnly: false };
const TRUSTED_ONLY = { trustedOnly: true };

// Each test uses its own document text, so that no test depends on what another one stored.
let counter = 0;
function aQuery(): string {
  counter += 1;
  return `query Q${counter} { charge(id: "ch_${counter}") { id amount } }`;
}

function hashOf(query: string): string {
  return documentIdOf(query).slice('sha256:'.length);
}

function apq(sha256Hash: string, query?: string) {
  return { query, extensions: { persistedQuery: { version: 1, sha256Hash } } };
}

function expectQuery(resolution: DocumentResolution, query: string): void {
  expect(resolution).to.deep.equal({ ok: true, query });
}

function expectFailure(resolution: DocumentResolution, status: number, code: string): void {
  expect(resolution).to.include({ ok: false, status, code });
}

forEachDatabase('persisted GraphQL documents', (engine) => {
  let database: TestDatabase;
  // Two handles on one database: what two server processes hold.
  let first: Database;
  let second: Database;

  before(async () => {
    database = await createDatabase(engine);
    first = await openDatabase(database.target);
    second = await openDatabase(database.target);
  });

  after(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
  });

  describe('plain queries', () => {
    it('runs query text as sent, and refuses a request that names no document', async () => {
      const query = aQuery();
      expectQuery(await resolveDocument(first, { query }, OPEN), query);
      expectFailure(await resolveDocument(first, { extensions: { persistedQuery: null } }, OPEN), 400, 'BAD_REQUEST');
    });
  });

  describe('automatic persisted queries', () => {
    it('answers an unknown hash as Apollo does, so that the client retries with the full query', async () => {
      const resolution = await resolveDocument(first, apq(hashOf(aQuery())), OPEN);
      expect(resolution).to.deep.equal({
        ok: false,
        status: 200,
        message: 'PersistedQueryNotFound',
        code: 'PERSISTED_QUERY_NOT_FOUND',
        headers: { 'Cache-Control': 'private, no-cache, must-revalidate' },
      });
      if (resolution.ok) return;
      expect(JSON.stringify(documentFailureBody(resolution))).to.equal(
        '{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}',
      );
    });

    it('forgets client registrations after the TTL, keeps trusted documents, and takes a registration again', async () => {
      const clientQuery = aQuery();
      const trustedQuery = aQuery();
      const registeredAt = Date.UTC(2026, 0, 1) / 1000;
      const clock = { nowMs: () => registeredAt * 1000 };
      expectQuery(await resolveDocument(first, apq(hashOf(clientQuery), clientQuery), { ...OPEN, clock }), clientQuery);
      await persistTrustedDocuments(first, [trustedQuery], registeredAt);

      // At the TTL nothing goes yet; a second later the client's registration does.
      expect(await purgeClientDocuments(first, registeredAt + CLIENT_DOCUMENT_TTL_SECONDS)).to.equal(0);
      expect(await purgeClientDocuments(first, registeredAt + CLIENT_DOCUMENT_TTL_SECONDS + 1)).to.equal(1);

      // Another process (no cache of it) no longer knows the hash; the client registers it again.
      expectFailure(await resolveDocument(second, apq(hashOf(clientQuery)), OPEN), 200, 'PERSISTED_QUERY_NOT_FOUND');
      expectQuery(await resolveDocument(second, apq(hashOf(clientQuery), clientQuery), OPEN), clientQuery);
      expectQuery(await resolveDocument(second, { documentId: documentIdOf(trustedQuery) }, TRUSTED_ONLY), trustedQuery);
    });

    it('registers hash and query, then runs the hash alone in another process over the same database', async () => {
      const query = aQuery();
      expectQuery(await resolveDocument(first, apq(hashOf(query), query), OPEN), query);
      expectQuery(await resolveDocument(second, apq(hashOf(query)), OPEN), query);
      // Registered by APQ, the same document is also reachable by its documentId.
      expectQuery(await resolveDocument(second, { documentId: documentIdOf(query) }, OPEN), query);
    });

    it('refuses a query whose SHA-256 is not the hash, and stores nothing under that hash', async () => {
      const query = aQuery();
      const otherHash = hashOf(aQuery());
      expectFailure(await resolveDocument(first, apq(otherHash, query), OPEN), 400, 'PERSISTED_QUERY_HASH_MISMATCH');
      expectFailure(await resolveDocument(second, apq(otherHash), OPEN), 200, 'PERSISTED_QUERY_NOT_FOUND');
    });

    it('refuses a persisted-query version other than 1, and a malformed extension', async () => {
      const query = aQuery();
      const versionTwo = { extensions: { persistedQuery: { version: 2, sha256Hash: hashOf(query) } } };
      expectFailure(await resolveDocument(first, versionTwo, OPEN), 400, 'PERSISTED_QUERY_VERSION_UNSUPPORTED');
      const noHash = { extensions: { persistedQuery: { version: 1 } } };
      expectFailure(await resolveDocument(first, noHash, OPEN), 400, 'PERSISTED_QUERY_INVALID');
    });

    it('lets concurrent registrations of one hash from two processes all succeed, storing it once', async () => {
      const query = aQuery();
      const registrations = [first, second, first, second, first, second].map((db) =>
        resolveDocument(db, apq(hashOf(query), query), OPEN),
      );
      for (const resolution of await Promise.all(registrations)) expectQuery(resolution, query);
      const rows = await first.all('SELECT hash FROM graphql_documents WHERE hash = ?', [hashOf(query)]);
      expect(rows).to.have.length(1);
    });

    it('does not store a registered text that is not a GraphQL document, but hands it on to report the error', async () => {
      const garbage = `{ charge(id: "${counter++}") {`;
      expectQuery(await resolveDocument(first, apq(hashOf(garbage), garbage), OPEN), garbage);
      expectFailure(await resolveDocument(second, apq(hashOf(garbage)), OPEN), 200, 'PERSISTED_QUERY_NOT_FOUND');
    });

    it('serves a hot document from memory, without a database query', async () => {
      const query = aQuery();
      await resolveDocument(first, apq(hashOf(query), query), OPEN);
      const counting = countingQueryable(second);
      for (let i = 0; i < 3; i++) expectQuery(await resolveDocument(counting, apq(hashOf(query)), OPEN), query);
      expect(counting.queries).to.equal(1);
    });
  });

  describe('persisted documents (documentId)', () => {
    it('runs a trusted document by its documentId and by its APQ hash', async () => {
      const query = aQuery();
      const [id] = await persistTrustedDocuments(first, [query], 1_800_000_000);
      expect(id).to.equal(documentIdOf(query)).and.match(/^sha256:[0-9a-f]{64}$/);
      expectQuery(await resolveDocument(second, { documentId: id }, OPEN), query);
      expectQuery(await resolveDocument(second, apq(hashOf(query)), OPEN), query);
    });

    it('answers an unknown documentId with PERSISTED_DOCUMENT_NOT_FOUND', async () => {
      const resolution = await resolveDocument(first, { documentId: documentIdOf(aQuery()) }, OPEN);
      expectFailure(resolution, 404, 'PERSISTED_DOCUMENT_NOT_FOUND');
    });

    it('refuses a malformed documentId', async () => {
      const hash = hashOf(aQuery());
      for (const documentId of [hash, `sha256:${hash.toUpperCase()}`, `sha256:${hash.slice(1)}`, `md5:${hash}`, '']) {
        expectFailure(await resolveDocument(first, { documentId }, OPEN), 400, 'PERSISTED_DOCUMENT_ID_INVALID');
      }
    });

    it('refuses a request that sends both a query and a documentId', async () => {
      const query = aQuery();
      await persistTrustedDocuments(first, [query], 1_800_000_000);
      const both = { query, documentId: documentIdOf(query) };
      expectFailure(await resolveDocument(first, both, OPEN), 400, 'PERSISTED_DOCUMENT_CONFLICT');
    });

    it('refuses to trust anything but exactly one operation, storing none of the batch', async () => {
      const good = aQuery();
      const twoOperations = `${aQuery()}\n${aQuery()}`;
      let refusal: Error | undefined;
      await persistTrustedDocuments(first, [good, twoOperations], 1_800_000_000).catch((error) => (refusal = error));
      expect(refusal?.message).to.equal('Document 2: expected exactly one operation, found 2');
      expectFailure(await resolveDocument(first, { documentId: documentIdOf(good) }, OPEN), 404, 'PERSISTED_DOCUMENT_NOT_FOUND');
    });
  });

  describe('trusted documents only', () => {
    it('refuses a plain query, saying that only trusted documents are accepted', async () => {
      const resolution = await resolveDocument(first, { query: aQuery() }, TRUSTED_ONLY);
      expectFailure(resolution, 400, 'PERSISTED_DOCUMENT_REQUIRED');
      expect(resolution.ok === false && resolution.message).to.match(/only trusted documents are accepted/i);
    });

    it('refuses an APQ registration and stores nothing', async () => {
      const query = aQuery();
      expectFailure(await resolveDocument(first, apq(hashOf(query), query), TRUSTED_ONLY), 400, 'PERSISTED_DOCUMENT_REQUIRED');
      expectFailure(await resolveDocument(second, apq(hashOf(query)), OPEN), 200, 'PERSISTED_QUERY_NOT_FOUND');
    });

    it('refuses a document a client stored, by hash and by documentId', async () => {
      const query = aQuery();
      expectQuery(await resolveDocument(first, apq(hashOf(query), query), OPEN), query);
      expectFailure(await resolveDocument(first, apq(hashOf(query)), TRUSTED_ONLY), 403, 'PERSISTED_DOCUMENT_NOT_TRUSTED');
      const byId = await resolveDocument(second, { documentId: documentIdOf(query) }, TRUSTED_ONLY);
      expectFailure(byId, 403, 'PERSISTED_DOCUMENT_NOT_TRUSTED');
    });

    it('answers an unknown hash with not found rather than asking for the query it would refuse', async () => {
      expectFailure(await resolveDocument(first, apq(hashOf(aQuery())), TRUSTED_ONLY), 404, 'PERSISTED_DOCUMENT_NOT_FOUND');
    });

    it('runs a trusted document by APQ hash and by documentId', async () => {
      const query = aQuery();
      await persistTrustedDocuments(second, [query], 1_800_000_000);
      expectQuery(await resolveDocument(first, apq(hashOf(query)), TRUSTED_ONLY), query);
      expectQuery(await resolveDocument(first, { documentId: documentIdOf(query) }, TRUSTED_ONLY), query);
    });

    it('runs a client-stored document once the operator trusts it, in a process that had cached it untrusted', async () => {
      const query = aQuery();
      await resolveDocument(first, apq(hashOf(query), query), OPEN);
      expectFailure(await resolveDocument(first, apq(hashOf(query)), TRUSTED_ONLY), 403, 'PERSISTED_DOCUMENT_NOT_TRUSTED');
      await persistTrustedDocuments(second, [query], 1_800_000_000);
      expectQuery(await resolveDocument(first, apq(hashOf(query)), TRUSTED_ONLY), query);
    });
  });
});

describe('npm run graphql:persist', function () {
  before(function () {
    requireProcesses(this);
  });
  // Each test starts a real process through npm (tsx compiles on start).
  this.timeout(60_000);
  let database: TestDatabase;
  let db: Database | undefined;
  let dataDir: string;

  before(() => {
    database = createSqliteDatabase();
    dataDir = path.dirname((database.target as { filename: string }).filename);
  });

  after(async () => {
    await db?.close();
    await database?.drop();
  });

  it('registers files as trusted documents in the DATA_DIR database and prints their ids', async () => {
    const files = [aQuery(), aQuery()].map((query, index) => {
      const file = path.join(dataDir, `operation-${index}.graphql`);
      fs.writeFileSync(file, `${query}\n`);
      return file;
    });
    const run = await runCli(files, dataDir);
    expect(run.code, run.stderr).to.equal(0);
    const printed = run.stdout.trim().split('\n').map((line) => line.split(/\s+/));
    expect(printed.map(([, file]) => file)).to.deep.equal(files);

    db = await openDatabase(database.target);
    for (const [id, file] of printed) {
      const source = fs.readFileSync(file, 'utf8');
      expect(id).to.equal(documentIdOf(source));
      expectQuery(await resolveDocument(db, { documentId: id }, TRUSTED_ONLY), source);
    }
  });

  it('registers nothing when one file is not a single operation, naming that file', async () => {
    const good = path.join(dataDir, 'good.graphql');
    const bad = path.join(dataDir, 'bad.graphql');
    const goodQuery = aQuery();
    fs.writeFileSync(good, goodQuery);
    fs.writeFileSync(bad, 'query Broken { charge(id: "x") {');
    const run = await runCli([good, bad], dataDir);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include(`Nothing was registered. ${bad}: not a GraphQL document`);
    db ??= await openDatabase(database.target);
    const resolution = await resolveDocument(db, { documentId: documentIdOf(goodQuery) }, OPEN);
    expectFailure(resolution, 404, 'PERSISTED_DOCUMENT_NOT_FOUND');
  });
});

/** The real CLI, through its npm script, as an operator runs it; its process group is killed after 45 s at most. */
async function runCli(files: string[], dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const child = spawn('npm', ['run', '--silent', 'graphql:persist', '--', ...files], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a hung run is stopped with the tsx process npm started.
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 45_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A handle that counts the statements sent to the database through it. */
function countingQueryable(db: Queryable): Queryable & { queries: number } {
  const counting = {
    dialect: db.dialect,
    queries: 0,
    all: <T>(sql: string, params?: readonly SqlValue[]) => {
      counting.queries += 1;
      return db.all<T>(sql, params);
    },
    one: <T>(sql: string, params?: readonly SqlValue[]) => {
      counting.queries += 1;
      return db.one<T>(sql, params);
    },
    run: (sql: string, params?: readonly SqlValue[]) => {
      counting.queries += 1;
      return db.run(sql, params);
    },
    write: (sql: string, params?: readonly SqlValue[]) => {
      counting.queries += 1;
      return db.write(sql, params);
    },
    transaction: <T>(work: (tx: Queryable) => Promise<T>) => db.transaction(work),
  };
  return counting;
}
