import DataLoader from 'dataloader';
import { ApiError } from '../domain/errors.js';
import type { Queryable } from '../db/database.js';
import type { RequestContext } from '../operations/operations.js';
import { toCharges, type Charge } from '../resources/payments/charges.mapper.js';
import {
  findChargesByIds,
  firstChargesOfCustomers,
  type ChargeRow,
  type CustomerChargesPageKey,
} from '../resources/payments/charges.repo.js';
import { toCustomerResource, type Customer } from '../resources/customers/customers.mapper.js';
import { findCustomersByIds } from '../resources/customers/customers.repo.js';
import type { Event } from '../resources/events/events.mapper.js';
import { retrieveEvent } from '../resources/events/events.service.js';
import { toPaymentIntentResource, type PaymentIntent } from '../resources/payments/payment-intents.mapper.js';
import { findPaymentIntentsByIds } from '../resources/payments/payment-intents.repo.js';
import { toRefundResource, type Refund } from '../resources/payments/refunds.mapper.js';
import { toSetupIntentResource, type SetupIntent } from '../resources/payments/setup-intents.mapper.js';
import { findSetupIntentsByIds } from '../resources/payments/setup-intents.repo.js';
import { findRefundsOfCharges } from '../resources/payments/refunds.repo.js';
import { retrieveRefund } from '../resources/refunds/refunds.service.js';
import type { WebhookEndpoint } from '../resources/webhook-endpoints/webhook-endpoints.mapper.js';
import { retrieveWebhookEndpoint } from '../resources/webhook-endpoints/webhook-endpoints.service.js';
import { originOf } from '../resources/shared/public-origin.js';

/** The first page of one customer's charges, as a REST list page (what `toConnection` takes). */
export interface ChargePage {
  data: Charge[];
  has_more: boolean;
}

/**
 * Batching loaders for the nested fields, so that a page of 100 charges with their customers and
 * refunds costs one statement per field, not one per charge. The statements are the repos'; every
 * one is scoped to the caller's account, like every REST query. Charges are the REST resources,
 * with their first refunds (`toCharges`): one more statement per batch when any was refunded.
 */
export interface Loaders {
  customer: DataLoader<string, Customer | null>;
  charge: DataLoader<string, Charge | null>;
  paymentIntent: DataLoader<string, PaymentIntent | null>;
  setupIntent: DataLoader<string, SetupIntent | null>;
  refund: DataLoader<string, Refund | null>;
  event: DataLoader<string, Event | null>;
  webhookEndpoint: DataLoader<string, WebhookEndpoint | null>;
  refundsOfCharge: DataLoader<string, Refund[]>;
  firstChargesOfCustomer: DataLoader<CustomerChargesPageKey, ChargePage, string>;
}

/** Statements stay within the engines' limits on parameters and compound terms. */
const MAX_BATCH = 100;

export function createLoaders(ctx: RequestContext): Loaders {
  const { db, accountId } = ctx;
  const origin = originOf(ctx);
  const made: Partial<Loaders> = {};
  // Built on first use: most operations need none or one of them.
  return {
    get customer() {
      return (made.customer ??= byIdLoader(
        (ids) => findCustomersByIds(db, accountId, ids),
        (rows) => rows.map(toCustomerResource),
      ));
    },
    get charge() {
      return (made.charge ??= byIdLoader(
        (ids) => findChargesByIds(db, accountId, ids),
        (rows) => toCharges(db, accountId, rows, origin),
      ));
    },
    get paymentIntent() {
      return (made.paymentIntent ??= byIdLoader(
        (ids) => findPaymentIntentsByIds(db, accountId, ids),
        (rows) => rows.map((row) => toPaymentIntentResource(row, origin)),
      ));
    },
    get setupIntent() {
      return (made.setupIntent ??= byIdLoader(
        (ids) => findSetupIntentsByIds(db, accountId, ids),
        (rows) => rows.map((row) => toSetupIntentResource(row, origin)),
      ));
    },
    get refund() {
      return (made.refund ??= retrieveLoader((id) => retrieveRefund(ctx, id)));
    },
    get event() {
      return (made.event ??= retrieveLoader((id) => retrieveEvent(ctx, id)));
    },
    get webhookEndpoint() {
      return (made.webhookEndpoint ??= retrieveLoader((id) => retrieveWebhookEndpoint(ctx, id)));
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
        async (keys) => {
          const pages = await firstChargesOfCustomers(db, accountId, keys);
          // The charges of all the pages together, so that their refunds cost one statement per 100 charges.
          const charges = await chargesInBatches(db, accountId, pages.flatMap((page) => page.rows), origin);
          let next = 0;
          return pages.map((page) => ({ data: charges.slice(next, (next += page.rows.length)), has_more: page.hasMore }));
        },
        { maxBatchSize: MAX_BATCH, cacheKeyFn: (key) => `${key.customerId}:${key.limit}` },
      ));
    },
  };
}

/** Charges as `toCharges` makes them, at most `MAX_BATCH` to a statement. */
async function chargesInBatches(db: Queryable, accountId: string, rows: ChargeRow[], origin: string): Promise<Charge[]> {
  const charges: Charge[] = [];
  for (let start = 0; start < rows.length; start += MAX_BATCH) {
    charges.push(...(await toCharges(db, accountId, rows.slice(start, start + MAX_BATCH), origin)));
  }
  return charges;
}

/**
 * Objects by id, one statement per batch (`find` is scoped to the account), made resources all at
 * once (`toResources` may read more, for the whole batch); an id it does not find is null.
 */
function byIdLoader<Row, Resource extends { id: string }>(
  find: (ids: readonly string[]) => Promise<Row[]>,
  toResources: (rows: Row[]) => Resource[] | Promise<Resource[]>,
): DataLoader<string, Resource | null> {
  return new DataLoader(
    async (ids) => {
      const byId = new Map((await toResources(await find(ids))).map((resource) => [resource.id, resource]));
      return ids.map((id) => byId.get(id) ?? null);
    },
    { maxBatchSize: MAX_BATCH },
  );
}

/**
 * Objects by id through their service's retrieve (an event's retention included), one call per id:
 * only `Query.node` reads these types by id, rarely many at once. The 404 of an id the account has
 * no object of is null.
 */
function retrieveLoader<Resource>(retrieve: (id: string) => Promise<Resource>): DataLoader<string, Resource | null> {
  return new DataLoader(
    (ids) =>
      Promise.all(
        ids.map((id) =>
          // Any other failure fails its own key only (DataLoader takes an Error in its place).
          retrieve(id).catch((error: Error) => (error instanceof ApiError && error.code === 'resource_missing' ? null : error)),
        ),
      ),
    { maxBatchSize: MAX_BATCH },
  );
}
