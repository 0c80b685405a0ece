import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

/** Where the server under test keeps its data. */
export type Store = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; url: string };

/** The `charges` columns of migration 0001, `seq` left to the database. */
const COLUMNS =
  'id, account_id, customer_id, amount, amount_refunded, currency, description, metadata, ' +
  'status, failure_code, failure_message, card_brand, card_last4, created';
const SQLITE_BATCH = 500;

/** What a bulk insert leaves behind. */
export interface BulkResult {
  accountId: string;
  /** The id of the charge `depth` rows below the newest, for `starting_after`. */
  deepCursor: string;
  seconds: number;
}

/**
 * Inserts `count` succeeded charges, straight into the database and in one transaction, for the
 * account that holds `apiKey` (found by the key's SHA-256, as the server stores it).
 */
export async function insertCharges(
  store: Store,
  apiKey: string,
  count: number,
  depth: number,
): Promise<BulkResult> {
  const keyHash = createHash('sha256').update(apiKey).digest('hex');
  const started = performance.now();
  const { accountId, deepCursor } =
    store.kind === 'sqlite'
      ? insertSqlite(store.filename, keyHash, count, depth)
      : await insertPostgres(store.url, keyHash, count, depth);
  return { accountId, deepCursor, seconds: (performance.now() - started) / 1000 };
}

/** Ids sort in insertion order, look like real ones (`ch_` and 24 base62 characters) and never clash. */
function chargeId(n: number): string {
  return `ch_bulk${String(n).padStart(20, '0')}`;
}

function insertSqlite(filename: string, keyHash: string, count: number, depth: number) {
  const db = new BetterSqlite3(filename);
  try {
    db.pragma('busy_timeout = 5000');
    const accountId = db
      .prepare('SELECT account_id FROM api_keys WHERE key_hash = ?')
      .pluck()
      .get(keyHash) as string;
    if (!accountId) throw new Error('The bench API key is not in the database');
    const row = `(${new Array(14).fill('?').join(', ')})`;
    const statements = new Map<number, BetterSqlite3.Statement>();
    const insertRows = (size: number) => {
      if (!statements.has(size)) {
        statements.set(
          size,
          db.prepare(
            `INSERT INTO charges (${COLUMNS}) VALUES ${new Array(size).fill(row).join(', ')}`,
          ),
        );
      }
      return statements.get(size)!;
    };
    const created = Math.floor(Date.now() / 1000);
    db.transaction(() => {
      for (let start = 0; start < count; start += SQLITE_BATCH) {
        const size = Math.min(SQLITE_BATCH, count - start);
        const params: unknown[] = [];
        for (let n = start; n < start + size; n++) {
          params.push(
            chargeId(n),
            accountId,
            null,
            2000,
            0,
            'usd',
            null,
            '{}',
            'succeeded',
            null,
            null,
            'visa',
            '4242',
            created,
          );
        }
        insertRows(size).run(params);
      }
    })();
    // Fold the large WAL back into the file, so that the server's reads do not go through it.
    db.pragma('wal_checkpoint(TRUNCATE)');
    const deepCursor = db
      .prepare('SELECT id FROM charges WHERE account_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?')
      .pluck()
      .get(accountId, depth) as string;
    return { accountId, deepCursor };
  } finally {
    db.close();
  }
}

async function insertPostgres(url: string, keyHash: string, count: number, depth: number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const key = await client.query<{ account_id: string }>(
      'SELECT account_id FROM api_keys WHERE key_hash = $1',
      [keyHash],
    );
    const accountId = key.rows[0]?.account_id;
    if (!accountId) throw new Error('The bench API key is not in the database');
    // One statement is one transaction; generate_series makes the rows on the server.
    await client.query(
      `INSERT INTO charges (${COLUMNS})
       SELECT 'ch_bulk' || lpad(n::text, 20, '0'), $1, NULL, 2000, 0, 'usd', NULL, '{}', 'succeeded', NULL, NULL, 'visa', '4242', $2
       FROM generate_series(0, $3::int - 1) AS n ORDER BY n`,
      [accountId, Math.floor(Date.now() / 1000), count],
    );
    await client.query('ANALYZE charges');
    const deep = await client.query<{ id: string }>(
      'SELECT id FROM charges WHERE account_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2',
      [accountId, depth],
    );
    return { accountId, deepCursor: deep.rows[0].id };
  } finally {
    await client.end();
  }
}

/** A new, empty Postgres database on the server of `adminUrl`, and how to drop it. */
export async function createPostgresDatabase(
  adminUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `payments_bench_${Date.now()}_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
