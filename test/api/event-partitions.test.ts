import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Queryable, SqlValue } from '../../src/db/database.js';
import { createKnex } from '../../src/db/knex.js';
import { MIGRATIONS, migrationSource } from '../../src/db/migrations/index.js';
import { createMonthPartitions, ensureMonthPartitions, monthPartitions, PARTITIONED_TABLES, type Month } from '../../src/db/partitions.js';
import { newId } from '../../src/domain/ids.js';
import { findEvent, listEventRows } from '../../src/resources/events/events.repo.js';
import { purgeExpiredEvents, retentionCutoff, retireExpiredEvents } from '../../src/resources/events/events.retention.js';
import {
  claimDueDeliveries,
  findDelivery,
  listAttempts,
  listDeliveryRows,
} from '../../src/resources/webhook-deliveries/webhook-deliveries.repo.js';
import { createUnmigratedPostgresDatabase, forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

const RETENTION_DAYS = 30;

/** Unix seconds of a UTC day. */
const at = (year: number, month: number, day: number) => Date.UTC(year, month - 1, day) / 1000;

interface StoredEvent {
  eventId: string;
  deliveryId: string;
}

/** What `data.object` of the stored events is: a customer as the API answers it (the tests validate answers). */
let customer: Record<string, unknown> = { id: 'cus_partitions', object: 'customer' };

/** An event with one delivery in `status` and one attempt of it, written as the server writes them. */
async function storeEvent(
  db: Pick<Queryable, 'run'>,
  accountId: string,
  created: number,
  status: 'pending' | 'succeeded' | 'failed' = 'succeeded',
): Promise<StoredEvent> {
  const eventId = newId('event');
  const deliveryId = newId('webhookDelivery');
  await db.run(
    `INSERT INTO events (id, account_id, type, api_version, request_id, idempotency_key, data, object_id, pending_webhooks, created)
     VALUES (?, ?, 'customer.created', '2026-11-01', NULL, NULL, ?, 'cus_partitions', ?, ?)`,
    [eventId, accountId, JSON.stringify({ object: customer }), status === 'pending' ? 1 : 0, created],
  );
  await db.run(
    `INSERT INTO webhook_deliveries (id, account_id, event_id, endpoint_id, status, attempts, next_attempt_at, created, completed_at)
     VALUES (?, ?, ?, 'we_partitions', ?, 1, ?, ?, ?)`,
    [deliveryId, accountId, eventId, status, created * 1000, created, status === 'pending' ? null : created * 1000 + 500],
  );
  await db.run(
    `INSERT INTO webhook_attempts (delivery_id, account_id, delivery_created, started_at, duration_ms, response_status, response_body, error, manual)
     VALUES (?, ?, ?, ?, 5, 200, NULL, NULL, ?)`,
    [deliveryId, accountId, created, created * 1000, false],
  );
  return { eventId, deliveryId };
}

/** The partitions of a table that hold rows, with their counts. */
async function rowsByPartition(db: Pick<Queryable, 'all'>, table: string): Promise<Record<string, number>> {
  const rows = await db.all<{ partition: string; n: string }>(
    `SELECT tableoid::regclass::text AS partition, COUNT(*) AS n FROM ${table} GROUP BY 1`,
  );
  return Object.fromEntries(rows.map((row) => [row.partition, Number(row.n)]));
}

const monthNames = (months: Month[]) => months.map((m) => `${m.year}-${String(m.month).padStart(2, '0')}`);

forEachDatabase('event partitions', (engine) => {
  if (engine !== 'postgres') return;

  describe('migration 0011 on a database that has rows', () => {
    let knex: Knex | undefined;
    let drop: (() => Promise<void>) | undefined;
    after(async () => {
      await knex?.destroy();
      await drop?.();
    });

    it('moves every event, delivery and attempt into the partition of its month, and the sequences go on', async function () {
      this.timeout(60_000);
      const database = await createUnmigratedPostgresDatabase();
      drop = () => database.drop();
      knex = createKnex(database.target);
      const before = MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === '0011_event_partitions'));
      await knex.migrate.latest({
        migrationSource: {
          getMigrations: async () => before.map(([, migration]) => migration),
          getMigrationName: (migration) => before.find(([, m]) => m === migration)![0],
          getMigration: async (migration: Knex.Migration) => migration,
        },
      });
      // What 0010 left: attempts without their delivery's creation.
      const raw = knex;
      const legacy: Pick<Queryable, 'run'> = {
        run: async (sql, params = []) => {
          const attempts = sql.replace('delivery_created, ', '').replace('VALUES (?, ?, ?, ?,', 'VALUES (?, ?, ?,');
          const values = sql.includes('delivery_created') ? params.filter((_, i) => i !== 2) : params;
          await raw.raw(attempts, values as Knex.RawBinding[]);
          return 1;
        },
      };
      const december = await storeEvent(legacy, 'acct_migrated', at(2025, 12, 31));
      await storeEvent(legacy, 'acct_migrated', at(2026, 9, 1));
      await storeEvent(legacy, 'acct_migrated', at(2026, 9, 30), 'pending');
      const maxSeq = Number((await knex.raw('SELECT MAX(seq) AS seq FROM events')).rows[0].seq);

      await knex.migrate.latest({ migrationSource });

      const partitioned = (await knex.raw('SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid ORDER BY 1')).rows;
      expect(partitioned.map((row: { relname: string }) => row.relname)).to.deep.equal(['events', 'webhook_attempts', 'webhook_deliveries']);
      const query: Pick<Queryable, 'all'> = { all: async (sql, params = []) => (await raw.raw(sql, params as Knex.RawBinding[])).rows };
      for (const { table } of PARTITIONED_TABLES) {
        expect(await rowsByPartition(query, table), table).to.deep.equal({ [`${table}_y2025m12`]: 1, [`${table}_y2026m09`]: 2 });
      }
      const attempt = (await knex.raw('SELECT delivery_created FROM webhook_attempts WHERE delivery_id = ?', [december.deliveryId])).rows[0];
      expect(Number(attempt.delivery_created)).to.equal(at(2025, 12, 31));
      // Every month from the oldest row's to three after the current one, none missing between.
      const months = monthNames(await monthPartitions(query, 'events'));
      const now = new Date();
      const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1));
      expect(months[0]).to.equal('2025-12');
      expect(months.at(-1)).to.equal(`${last.getUTCFullYear()}-${String(last.getUTCMonth() + 1).padStart(2, '0')}`);
      expect(months).to.have.length((last.getUTCFullYear() - 2025) * 12 + last.getUTCMonth() + 1 - 11);

      const next = await knex.raw(
        `INSERT INTO events (id, account_id, type, api_version, data, created) VALUES ('evt_after', 'acct_migrated', 'customer.created', '2026-11-01', '{}', ?) RETURNING seq`,
        [at(2026, 9, 15)],
      );
      expect(Number(next.rows[0].seq)).to.equal(maxSeq + 1);
      // The same id twice in one month is refused, as before.
      let duplicate: unknown;
      await knex
        .raw(`INSERT INTO events (id, account_id, type, api_version, data, created) VALUES ('evt_after', 'acct_migrated', 'customer.created', '2026-11-01', '{}', ?)`, [at(2026, 9, 15)])
        .catch((error) => (duplicate = error));
      expect((duplicate as { code?: string }).code).to.equal('23505');
    });
  });

  describe('with a server', () => {
    const server = useTestServer(engine, { webhookAllowPrivateNetworks: true });
    beforeEach(async () => {
      customer = (await server.api.post('/v1/customers', { email: 'partitions@example.com' })).body;
      await server.db.run('DELETE FROM events'); // its customer.created: each test stores the events it counts
    });

    it('creates the current month and three ahead, and moves the rows a default partition held into their month', async () => {
      const farAhead = at(2027, 6, 10);
      const stored = await storeEvent(server.db, server.accountIds.first, farAhead);
      expect(await rowsByPartition(server.db, 'events')).to.deep.equal({ events_default: 1 });

      const created = await ensureMonthPartitions(server.db, farAhead * 1000);
      expect(created).to.include.members(['events_y2027m06', 'events_y2027m09', 'webhook_deliveries_y2027m06', 'webhook_attempts_y2027m09']);
      for (const { table } of PARTITIONED_TABLES) {
        expect(await rowsByPartition(server.db, table), table).to.deep.equal({ [`${table}_y2027m06`]: 1 });
      }
      expect(await ensureMonthPartitions(server.db, farAhead * 1000)).to.deep.equal([]);
      expect((await server.api.get(`/v1/events/${stored.eventId}`)).status).to.equal(200);
      expect((await server.api.get(`/v1/webhook_deliveries/${stored.deliveryId}`)).body.attempts).to.have.length(1);
    });

    it('drops a month past retention with its deliveries and attempts, and a month a pending delivery keeps once it ends', async () => {
      // The server's clock is 2026-11-22: with 30 days, September is wholly past; October is not.
      await createMonthPartitions(server.db, { year: 2026, month: 8 }, { year: 2026, month: 10 });
      const account = server.accountIds.first;
      const august = await storeEvent(server.db, account, at(2026, 8, 20));
      const september = await storeEvent(server.db, account, at(2026, 9, 12), 'pending');
      const october = await storeEvent(server.db, account, at(2026, 10, 2));
      const recent = await storeEvent(server.db, account, at(2026, 11, 20));

      const first = await retireExpiredEvents(server.db, server.clock.nowMs(), RETENTION_DAYS);
      expect(first).to.deep.include({ droppedMonths: ['2026-08'], events: 0 });
      for (const { table } of PARTITIONED_TABLES) {
        expect(monthNames(await monthPartitions(server.db, table)), table).not.to.include('2026-08');
        expect(await rowsByPartition(server.db, table), table).to.deep.equal({
          [`${table}_y2026m09`]: 1,
          [`${table}_y2026m10`]: 1,
          [`${table}_y2026m11`]: 1,
        });
      }
      expect((await server.api.get(`/v1/events/${august.eventId}`)).status).to.equal(404);
      expect((await server.api.get(`/v1/events/${september.eventId}`)).status).to.equal(200);
      // Past retention but still stored until October is dropped: already gone from the API.
      expect((await server.api.get(`/v1/events/${october.eventId}`)).status).to.equal(404);
      expect((await server.api.get(`/v1/webhook_deliveries/${october.deliveryId}`)).status).to.equal(404);
      // The list shows the retention period; September's event, kept by its pending delivery, is
      // retrieved by id and listed with its deliveries.
      const listed = (await server.api.get('/v1/events?limit=100')).body.data.map((event: { id: string }) => event.id);
      expect(listed).to.deep.equal([recent.eventId]);
      const ofSeptember = await server.api.get(`/v1/webhook_deliveries?event=${september.eventId}`);
      expect(ofSeptember.body.data.map((delivery: { id: string }) => delivery.id)).to.deep.equal([september.deliveryId]);

      await server.db.run("UPDATE webhook_deliveries SET status = 'succeeded', completed_at = ? WHERE id = ?", [
        server.clock.nowMs(),
        september.deliveryId,
      ]);
      const second = await retireExpiredEvents(server.db, server.clock.nowMs(), RETENTION_DAYS);
      expect(second.droppedMonths).to.deep.equal(['2026-09']);
      expect(await rowsByPartition(server.db, 'events')).to.deep.equal({ events_y2026m10: 1, events_y2026m11: 1 });
    });

    it('drops at its next run the tables of a month whose drop stopped after the detach', async () => {
      await createMonthPartitions(server.db, { year: 2026, month: 8 }, { year: 2026, month: 8 });
      await storeEvent(server.db, server.accountIds.first, at(2026, 8, 20));
      // What a worker stopped between its detach and its drops leaves.
      for (const { table } of PARTITIONED_TABLES) await server.db.run(`ALTER TABLE ${table} DETACH PARTITION ${table}_y2026m08`);
      const leftover = () => server.db.all("SELECT relname FROM pg_class WHERE relname LIKE '%_y2026m08'");
      expect(await leftover()).to.have.length(3);

      await retireExpiredEvents(server.db, server.clock.nowMs(), RETENTION_DAYS);
      expect(await leftover()).to.deep.equal([]);
    });

    it('keeps a month while a delivery of it failed less than the retention ago', async () => {
      await createMonthPartitions(server.db, { year: 2026, month: 9 }, { year: 2026, month: 9 });
      const september = await storeEvent(server.db, server.accountIds.first, at(2026, 9, 3), 'failed');
      await server.db.run('UPDATE webhook_deliveries SET completed_at = ? WHERE id = ?', [at(2026, 11, 1) * 1000, september.deliveryId]);
      expect((await retireExpiredEvents(server.db, server.clock.nowMs(), RETENTION_DAYS)).droppedMonths).to.deep.equal([]);
      const failedView = await server.api.get('/v1/events?delivery_success=false');
      expect(failedView.body.data.map((event: { id: string }) => event.id)).to.deep.equal([september.eventId]);

      server.clock.advance(31 * 86_400_000);
      expect((await retireExpiredEvents(server.db, server.clock.nowMs(), RETENTION_DAYS)).droppedMonths).to.deep.equal(['2026-09']);
    });

    describe('query plans across partitions', () => {
      /** A Queryable that runs nothing and keeps the statements the repos send it. */
      function recorder() {
        const statements: Array<{ sql: string; params: readonly SqlValue[] }> = [];
        const keep = (sql: string, params: readonly SqlValue[] = []) => {
          if (!sql.startsWith('SELECT set_config')) statements.push({ sql, params });
        };
        const db: Queryable = {
          dialect: 'postgres',
          all: async (sql, params) => (keep(sql, params), []),
          // A cursor's row exists, as far as the repos can tell.
          one: async <T>(sql: string, params?: readonly SqlValue[]) => (keep(sql, params), { seq: 1 } as T),
          run: async (sql, params) => (keep(sql, params), 0),
          write: async (sql, params) => keep(sql, params),
          transaction: (work) => work(db),
        };
        return { db, statements };
      }

      /** The plan's scans: node type and relation, with sequential scans discouraged as far as the planner allows. */
      async function scansOf(statement: { sql: string; params: readonly SqlValue[] }) {
        const [row] = await server.db.transaction(async (tx) => {
          await tx.run('SET LOCAL enable_seqscan = off');
          return tx.all<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params);
        });
        const scans: Array<{ type: string; relation: string; index?: string; condition?: string }> = [];
        const walk = (node: PlanNode) => {
          if (node['Relation Name']) {
            scans.push({ type: node['Node Type'], relation: node['Relation Name'], index: node['Index Name'], condition: node['Index Cond'] });
          }
          node.Plans?.forEach(walk);
        };
        walk(row['QUERY PLAN'][0].Plan);
        return scans;
      }

      interface PlanNode {
        'Node Type': string;
        'Relation Name'?: string;
        'Index Name'?: string;
        'Index Cond'?: string;
        Plans?: PlanNode[];
      }

      it('seeks an index in every partition, for every read of events, deliveries and attempts', async function () {
        this.timeout(30_000);
        const account = server.accountIds.first;
        await createMonthPartitions(server.db, { year: 2026, month: 9 }, { year: 2026, month: 10 });
        const stored: StoredEvent[] = [];
        for (const created of [at(2026, 9, 5), at(2026, 10, 5), at(2026, 11, 5), at(2026, 12, 5)]) {
          for (let i = 0; i < 20; i++) stored.push(await storeEvent(server.db, account, created + i, i % 2 ? 'pending' : 'succeeded'));
        }
        await server.db.run('ANALYZE events, webhook_deliveries, webhook_attempts');
        const { db, statements } = recorder();
        const cutoff = retentionCutoff(server.clock.nowMs(), RETENTION_DAYS);
        const page = { limit: 10 };
        await findEvent(db, account, stored[5].eventId, cutoff);
        await listEventRows(db, account, {}, page, cutoff);
        await listEventRows(db, account, {}, { ...page, starting_after: stored[40].eventId }, cutoff);
        await listEventRows(db, account, { types: ['customer.created'] }, page, cutoff);
        await listEventRows(db, account, { deliverySuccess: false }, page, cutoff);
        await findDelivery(db, account, stored[7].deliveryId, cutoff);
        await listDeliveryRows(db, account, { event: stored[7].eventId }, page, cutoff);
        await listAttempts(db, stored[7].deliveryId);
        await claimDueDeliveries(db, { owner: 'plan', nowMs: server.clock.nowMs(), leaseUntil: server.clock.nowMs() + 1000, limit: 10 });
        await purgeExpiredEvents(db, server.clock.nowMs(), RETENTION_DAYS);
        expect(statements).to.have.length.of.at.least(10);

        const months = (await monthPartitions(server.db, 'events')).map((m) => `${m.year}m${String(m.month).padStart(2, '0')}`);
        for (const statement of statements) {
          const scans = await scansOf(statement);
          const label = statement.sql.replace(/\s+/g, ' ');
          expect(scans.filter((scan) => scan.type === 'Seq Scan'), label).to.deep.equal([]);
          expect(scans.length, label).to.be.greaterThan(0);
          const table = /FROM (events|webhook_deliveries|webhook_attempts)\b/.exec(statement.sql)?.[1] ?? 'webhook_deliveries';
          // A read not bounded by creation reaches into every month (pruned ones are not in the plan).
          if (statement.sql.includes('created >=')) continue;
          const scanned = new Set(scans.map((scan) => scan.relation));
          for (const month of months) expect(scanned.has(`${table}_y${month}`), `${table}_y${month} in ${label}`).to.equal(true);
        }
      });

      it('stops a list of events at the first one within retention instead of reading the months past it', async () => {
        const account = server.accountIds.first;
        await createMonthPartitions(server.db, { year: 2026, month: 9 }, { year: 2026, month: 10 });
        for (const created of [at(2026, 9, 5), at(2026, 10, 5), at(2026, 11, 5)]) {
          for (let i = 0; i < 20; i++) await storeEvent(server.db, account, created + i);
        }
        await server.db.run('ANALYZE events');
        const { db, statements } = recorder();
        await listEventRows(db, account, {}, { limit: 10 }, retentionCutoff(server.clock.nowMs(), RETENTION_DAYS));
        const listScans = (await scansOf(statements[0])).filter((scan) => /^events_y/.test(scan.relation) && scan.index?.includes('account_id_seq'));
        expect(listScans.length).to.be.greaterThan(0);
        // The index range itself ends at the bound: the scan reads no row before it.
        for (const scan of listScans) expect(scan.condition, scan.relation).to.match(/seq >= \$\d+|seq >= \(/);
      });

      it('plans a page once for all its executions (its LIMIT is in the statement), and never compiles one (no JIT)', async () => {
        const account = server.accountIds.first;
        const cutoff = retentionCutoff(server.clock.nowMs(), RETENTION_DAYS);
        const plans = await server.db.transaction(async (tx) => {
          // One connection: prepared statements and their plans are a session's.
          for (let i = 0; i < 8; i++) await listEventRows(tx, account, {}, { limit: 10 }, cutoff);
          return tx.all<{ statement: string; generic_plans: string; jit: string }>(
            `SELECT statement, generic_plans, current_setting('jit') AS jit FROM pg_prepared_statements
             WHERE statement LIKE 'SELECT * FROM events WHERE account_id = %'`,
          );
        });
        expect(plans).to.have.length(1);
        expect(Number(plans[0].generic_plans)).to.be.greaterThan(0);
        expect(plans[0].jit).to.equal('off');
      });

      it('reads only the months a created filter can match', async () => {
        const account = server.accountIds.first;
        await createMonthPartitions(server.db, { year: 2026, month: 9 }, { year: 2026, month: 10 });
        const { db, statements } = recorder();
        const cutoff = retentionCutoff(server.clock.nowMs(), RETENTION_DAYS);
        await listEventRows(db, account, {}, { limit: 10, created: { gte: at(2026, 11, 1) } }, cutoff);
        // The list's own scan (the retention bound's lookup reads from the cutoff's month on).
        const scanned = (await scansOf(statements[0])).filter((scan) => scan.index?.includes('account_id_seq')).map((scan) => scan.relation);
        expect(scanned).to.include('events_y2026m11');
        expect(scanned).not.to.include('events_y2026m09');
        expect(scanned).not.to.include('events_y2026m10');
      });
    });
  });
});
