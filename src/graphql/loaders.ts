import DataLoader from 'dataloader';
import type { Queryable, SqlValue } from '../db/database.js';
import { inJsonArray } from '../db/dialect.js';
import type { RequestContext } from '../operations/operations.js';
import { toChargeResource, type Charge } from '../resources/charges/charges.mapper.js';
import { findChargesByIds, type ChargeRow } from '../resources/charges/charges.repo.js';
import { toCustomerResource, type Customer } from '../resources/customers/customers.mapper.js';
import { findCustomersByIds } from '../resources/customers/customers.repo.js';
import { toRefundResource, type Refund } from '../resources/refunds/refunds.mapper.js';
import type { RefundRow } from '../resources/refunds/refunds.repo.js';

/** The first page of one customer's charges, fetched one row beyond `limit` to know `hasMore`. */
export interface ChargePageKey {
  customerId: string;
  limit: number;
}

export interface ChargePage {
  charges: Charge[];
  hasMore: boolean;
}

/**
 * Batching loaders for the nested fields, so that a page of 100 charges with their customers and
 * refunds costs one statement per field, not one per charge. Every statement is scoped to the
 * caller's account, like every REST query.
 */
export interface Loaders {
  customer: DataLoader<string, Customer | null>;
  charge: DataLoader<string, Charge | null>;
  refundsOfCharge: DataLoader<string, Refund[]>;
  firstChargesOfCustomer: DataLoader<ChargePageKey, ChargePage, string>;
}

/** Statements stay within the engines' limits on parameters and compound terms. */
const MAX_BATCH = 100;

export function createLoaders(ctx: Pick<RequestContext, 'db' | 'accountId'>): Loaders {
  const { db, accountId } = ctx;
  const made: Partial<Loaders> = {};
  // Built on first use: most operations need none or one of them.
  return {
    get customer() {
      return (made.customer ??= byIdLoader((ids) => findCustomersByIds(db, accountId, ids), toCustomerResource));
    },
    get charge() {
      return (made.charge ??= byIdLoader((ids) => findChargesByIds(db, accountId, ids), toChargeResource));
    },
    get refundsOfCharge() {
      return (made.refundsOfCharge ??= new DataLoader(
        async (chargeIds) => {
          const rows = await db.all<RefundRow>(
            `SELECT * FROM refunds WHERE account_id = ? AND ${inJsonArray(db.dialect, 'charge_id')} ORDER BY seq DESC`,
            [accountId, JSON.stringify(chargeIds)],
          );
          const byCharge = new Map<string, Refund[]>(chargeIds.map((id) => [id, []]));
          for (const row of rows) byCharge.get(row.charge_id)?.push(toRefundResource(row));
          return chargeIds.map((id) => byCharge.get(id)!);
        },
        { maxBatchSize: MAX_BATCH },
      ));
    },
    get firstChargesOfCustomer() {
      return (made.firstChargesOfCustomer ??= new DataLoader((keys) => firstChargePages(db, accountId, keys), {
        maxBatchSize: MAX_BATCH,
        cacheKeyFn: (key) => `${key.customerId}:${key.limit}`,
      }));
    },
  };
}

/** Objects by id, one statement per batch (`find` is scoped to the account); an id it does not find is null. */
function byIdLoader<Row extends { id: string }, Resource>(
  find: (ids: readonly string[]) => Promise<Row[]>,
  toResource: (row: Row) => Resource,
): DataLoader<string, Resource | null> {
  return new DataLoader(
    async (ids) => {
      const byId = new Map((await find(ids)).map((row) => [row.id, toResource(row)]));
      return ids.map((id) => byId.get(id) ?? null);
    },
    { maxBatchSize: MAX_BATCH },
  );
}

/**
 * The newest charges of several customers in one statement: a UNION ALL of one index seek per
 * customer on `(account_id, customer_id, seq)`, so each customer costs what its own page would.
 */
async function firstChargePages(db: Queryable, accountId: string, keys: readonly ChargePageKey[]): Promise<ChargePage[]> {
  const branches: string[] = [];
  const params: SqlValue[] = [];
  keys.forEach((key, i) => {
    branches.push(
      `SELECT ${i} AS branch, page${i}.* FROM
         (SELECT * FROM charges WHERE account_id = ? AND customer_id = ? ORDER BY seq DESC LIMIT ?) AS page${i}`,
    );
    params.push(accountId, key.customerId, key.limit + 1);
  });
  const rows = await db.all<ChargeRow & { branch: number }>(branches.join(' UNION ALL '), params);
  const byBranch = keys.map((): ChargeRow[] => []);
  for (const { branch, ...row } of rows) byBranch[branch].push(row);
  return keys.map((key, i) => {
    const list = byBranch[i].sort((a, b) => b.seq - a.seq);
    return { charges: list.slice(0, key.limit).map(toChargeResource), hasMore: list.length > key.limit };
  });
}
