import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../src/db/knex.js';
import { MIGRATIONS, migrationSource } from '../../src/db/migrations/index.js';
import {
  createSqliteDatabase,
  createUnmigratedPostgresDatabase,
  forEachDatabase,
  type TestDatabase,
} from '../helpers/databases.js';

/** Migrations up to (not including) `name`, as a source Knex runs. */
function migrationsBefore(name: string): Knex.MigrationSource<Knex.Migration> {
  const before = MIGRATIONS.slice(
    0,
    MIGRATIONS.findIndex(([n]) => n === name),
  );
  return {
    getMigrations: async () => before.map(([, migration]) => migration),
    getMigrationName: (migration) => before.find(([, m]) => m === migration)![0],
    getMigration: async (migration) => migration,
  };
}

const charge = (
  id: string,
  account: string,
  customer: string | null,
  paymentMethod: string | null,
) => ({
  id,
  account_id: account,
  customer_id: customer,
  payment_method_id: paymentMethod,
  amount: 2000,
  currency: 'usd',
  metadata: '{}',
  status: 'succeeded',
  card_brand: 'visa',
  card_last4: '4242',
  created: 1795536393,
});

const refund = (id: string, account: string, chargeId: string) => ({
  id,
  account_id: account,
  charge_id: chargeId,
  amount: 500,
  currency: 'usd',
  status: 'succeeded',
  metadata: '{}',
  created: 1795536420,
});

forEachDatabase('migration 0021_refund_payers', (engine) => {
  let database: TestDatabase;
  let knex: Knex;

  beforeEach(async () => {
    database =
      engine === 'sqlite' ? createSqliteDatabase() : await createUnmigratedPostgresDatabase();
    knex = createKnex(database.target);
  });

  afterEach(async () => {
    await knex.destroy();
    await database.drop();
  });

  it("gives the refunds made before it their charge's customer and payment method", async () => {
    await knex.migrate.latest({ migrationSource: migrationsBefore('0021_refund_payers') });
    await knex('charges').insert([
      charge('ch_paid', 'acct_a', 'cus_a', 'pm_a'),
      charge('ch_token', 'acct_a', null, null),
      // The same charge id under another account must not leak into account a's refunds.
      charge('ch_other', 'acct_b', 'cus_b', 'pm_b'),
    ]);
    await knex('refunds').insert([
      refund('re_paid', 'acct_a', 'ch_paid'),
      refund('re_token', 'acct_a', 'ch_token'),
      refund('re_orphan', 'acct_a', 'ch_other'),
    ]);

    await knex.migrate.latest({ migrationSource });

    const rows = await knex('refunds')
      .select('id', 'customer_id', 'payment_method_id')
      .orderBy('id');
    expect(rows).to.deep.equal([
      { id: 're_orphan', customer_id: null, payment_method_id: null },
      { id: 're_paid', customer_id: 'cus_a', payment_method_id: 'pm_a' },
      { id: 're_token', customer_id: null, payment_method_id: null },
    ]);
  });
});
