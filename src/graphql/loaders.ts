import DataLoader from 'dataloader';
import type { RequestContext } from '../operations/operations.js';
import { toChargeResource, type Charge } from '../resources/charges/charges.mapper.js';
import {
  findChargesByIds,
  firstChargesOfCustomers,
  type CustomerChargesPageKey,
} from '../resources/charges/charges.repo.js';
import { toCustomerResource, type Customer } from '../resources/customers/customers.mapper.js';
import { findCustomersByIds } from '../resources/customers/customers.repo.js';
import { toRefundResource, type Refund } from '../resources/refunds/refunds.mapper.js';
import { findRefundsOfCharges } from '../resources/refunds/refunds.repo.js';

/** The first page of one customer's charges, as a REST list page (what `toConnection` takes). */
export interface ChargePage {
  data: Charge[];
  has_more: boolean;
}

/**
 * Batching loaders for the nested fields, so that a page of 100 charges with their customers and
 * refunds costs one statement per field, not one per charge. The statements are the repos'; every
 * one is scoped to the caller's account, like every REST query.
 */
export interface Loaders {
  customer: DataLoader<string, Customer | null>;
  charge: DataLoader<string, Charge | null>;
  refundsOfCharge: DataLoader<string, Refund[]>;
  firstChargesOfCustomer: DataLoader<CustomerChargesPageKey, ChargePage, string>;
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
          const byCharge = new Map<string, Refund[]>(chargeIds.map((id) => [id, []]));
          for (const row of await findRefundsOfCharges(db, accountId, chargeIds)) {
            byCharge.get(row.charge_id)?.push(toRefundResource(row));
          }
          return chargeIds.map((id) => byCharge.get(id)!);
        },
        { maxBatchSize: MAX_BATCH },
      ));
    },
    get firstChargesOfCustomer() {
      return (made.firstChargesOfCustomer ??= new DataLoader(
        async (keys) =>
          (await firstChargesOfCustomers(db, accountId, keys)).map((page) => ({
            data: page.rows.map(toChargeResource),
            has_more: page.hasMore,
          })),
        { maxBatchSize: MAX_BATCH, cacheKeyFn: (key) => `${key.customerId}:${key.limit}` },
      ));
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
