import type { Knex } from 'knex';
import { addMonths, compareMonths, defaultPartitionName, monthBounds, monthOf, MONTHS_AHEAD, partitionName, PARTITIONED_TABLES, type Month } from '../partitions.js';

/**
 * Attempts carry their delivery's creation (`delivery_created`, the event's, in unix seconds), on
 * both engines: on Postgres it places an attempt in the month partition of its event, so that a
 * month's events, deliveries and attempts are dropped together (src/db/partitions.ts).
 *
 * On Postgres, `events`, `webhook_deliveries` and `webhook_attempts` become tables partitioned by
 * month, with their rows, sequences and indexes: a partition for every month from the oldest row's
 * to {@link MONTHS_AHEAD} months from now, and a default partition. A primary key or unique index
 * of a partitioned table must hold the partition key, so `seq` and `id` are unique with it: ids are
 * random and `seq` comes from one sequence, so they stay unique alone. SQLite keeps plain tables.
 */

/** The indexes each table had, kept under the same names; the unique id gains the partition key. */
const INDEXES: Record<string, string[][]> = {
  events: [['account_id', 'seq'], ['account_id', 'type', 'seq'], ['account_id', 'object_id', 'seq']],
  webhook_deliveries: [['status', 'next_attempt_at'], ['account_id', 'seq'], ['account_id', 'endpoint_id', 'seq'], ['account_id', 'event_id']],
  webhook_attempts: [['delivery_id', 'seq']],
};
const UNIQUE_IDS = new Set(['events', 'webhook_deliveries']);

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.bigInteger('delivery_created').notNullable().defaultTo(0);
  });
  await knex.raw(
    `UPDATE webhook_attempts SET delivery_created = COALESCE(
       (SELECT d.created FROM webhook_deliveries d WHERE d.id = webhook_attempts.delivery_id), 0)`,
  );
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('ALTER TABLE webhook_attempts ALTER COLUMN delivery_created DROP DEFAULT');

  const oldest = await knex.raw<{ rows: Array<{ created: string | null }> }>('SELECT MIN(created) AS created FROM events');
  const now = monthOf(Math.floor(Date.now() / 1000));
  const first = oldest.rows[0].created === null ? now : monthOf(Number(oldest.rows[0].created));
  for (const { table, key } of PARTITIONED_TABLES) {
    await rebuild(knex, table, `PARTITION BY RANGE (${key})`, async () => {
      await knex.raw(`CREATE TABLE ${defaultPartitionName(table)} PARTITION OF ${table} DEFAULT`);
      for (let month: Month = first; compareMonths(month, addMonths(now, MONTHS_AHEAD)) <= 0; month = addMonths(month, 1)) {
        const { from, to } = monthBounds(month);
        await knex.raw(`CREATE TABLE ${partitionName(table, month)} PARTITION OF ${table} FOR VALUES FROM (${from}) TO (${to})`);
      }
    });
    // Creation first: it finds the first row at or after a moment (retentionBound in partitions.ts).
    await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${key}, seq)`);
    if (UNIQUE_IDS.has(table)) await knex.raw(`CREATE UNIQUE INDEX ${table}_id_${key}_unique ON ${table} (id, ${key})`);
    await createIndexes(knex, table);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') {
    for (const { table } of PARTITIONED_TABLES) {
      await rebuild(knex, table, '', async () => undefined);
      await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (seq)`);
      if (UNIQUE_IDS.has(table)) await knex.raw(`CREATE UNIQUE INDEX ${table}_id_unique ON ${table} (id)`);
      await createIndexes(knex, table);
    }
  }
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.dropColumn('delivery_created');
  });
}

/**
 * Replaces `table` by a new one of the same columns, defaults and NOT NULLs (`partitioning` after
 * it, if any), made ready by `prepare` before the rows are copied; its `seq` sequence goes on.
 * Keys and indexes are left to the caller: they build once, after the copy.
 */
async function rebuild(knex: Knex, table: string, partitioning: string, prepare: () => Promise<void>): Promise<void> {
  const sequence = (await knex.raw<{ rows: Array<{ name: string }> }>(`SELECT pg_get_serial_sequence(?, 'seq') AS name`, [table])).rows[0].name;
  const old = `${table}_before_0011`;
  await knex.raw(`ALTER TABLE ${table} RENAME TO ${old}`);
  // The sequence belongs to the old table's column, and would be dropped with it.
  await knex.raw(`ALTER SEQUENCE ${sequence} OWNED BY NONE`);
  await knex.raw(`CREATE TABLE ${table} (LIKE ${old} INCLUDING DEFAULTS) ${partitioning}`);
  await prepare();
  await knex.raw(`INSERT INTO ${table} SELECT * FROM ${old}`);
  await knex.raw(`DROP TABLE ${old}`);
  await knex.raw(`ALTER SEQUENCE ${sequence} OWNED BY ${table}.seq`);
}

async function createIndexes(knex: Knex, table: string): Promise<void> {
  for (const columns of INDEXES[table]) {
    await knex.raw(`CREATE INDEX ${table}_${columns.join('_')}_index ON ${table} (${columns.join(', ')})`);
  }
}
