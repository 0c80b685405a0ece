import type { Knex } from 'knex';

/**
 * `payments_claim_key(key)` on Postgres: takes the transaction-scoped advisory lock on the key's
 * hash, or raises `lock_not_available` (55P03) at once if another transaction holds it. A lock
 * that fails by raising, rather than by answering false, can be pipelined with the statements
 * after it: the transaction fails at its next awaited statement (src/db/key-locks.ts). The lock
 * taken is the same as `pg_try_advisory_xact_lock(hashtextextended(key, 0))`, so processes of the
 * previous version, which take it that way, still exclude this one's. SQLite needs no lock.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(`
    CREATE OR REPLACE FUNCTION payments_claim_key(key text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended(key, 0)) THEN
        RAISE EXCEPTION 'the key % is claimed by another transaction', key USING ERRCODE = 'lock_not_available';
      END IF;
    END
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('DROP FUNCTION IF EXISTS payments_claim_key(text)');
}
