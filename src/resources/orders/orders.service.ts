import { unixSeconds } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { recordEvent } from '../events/events.service.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { previousAttributes } from '../shared/updates.js';
import { requireUser } from '../users/users.service.js';
import { deleteOrderRow, findOrder, insertOrder, listOrderRows, updateOrderRow, type OrderRow } from './orders.repo.js';
import {
  toOrderResource,
  type Order,
  type OrderCreateParams,
  type OrderStatus,
  type OrderUpdateParams,
} from './orders.mapper.js';

/** The generic nesting convention: an order is reached through its user, `/v1/users/{id}/orders/…`. */
export async function createOrder(ctx: RequestContext, userId: string, params: OrderCreateParams): Promise<Order> {
  const { amount, currency, description, status, metadata, ...unread } = params;
  allParamsRead(unread);
  await requireUser(ctx, userId);
  const order = toOrderResource(
    await insertOrder(ctx.db, {
      id: newId('order'),
      account_id: ctx.accountId,
      user_id: userId,
      amount,
      currency: currency.toLowerCase(),
      description: description ?? null,
      status: status ?? 'pending',
      metadata: initialMetadata(metadata),
      created: unixSeconds(ctx.clock),
    }),
  );
  await recordEvent(ctx, 'order.created', order);
  return order;
}

async function requireOrder(ctx: RequestContext, userId: string, id: string): Promise<OrderRow> {
  await requireUser(ctx, userId);
  const row = await findOrder(ctx.db, ctx.accountId, userId, id);
  if (!row) throw notFound('order', id, 'order_id');
  return row;
}

export async function retrieveOrder(ctx: RequestContext, userId: string, id: string): Promise<Order> {
  return toOrderResource(await requireOrder(ctx, userId, id));
}

export async function updateOrder(ctx: RequestContext, userId: string, id: string, params: OrderUpdateParams): Promise<Order> {
  const { amount, currency, description, status, metadata, ...unread } = params;
  allParamsRead(unread);
  const current = await requireOrder(ctx, userId, id);
  const updated = await updateOrderRow(ctx.db, ctx.accountId, id, {
    amount: amount ?? current.amount,
    currency: currency?.toLowerCase() ?? current.currency,
    description: description === undefined ? current.description : description,
    status: status ?? current.status,
    metadata: updatedMetadata(current.metadata, metadata),
  });
  if (!updated) throw notFound('order', id, 'order_id');
  const after = toOrderResource(updated);
  const changed = previousAttributes(toOrderResource(current), after);
  if (Object.keys(changed).length > 0) await recordEvent(ctx, 'order.updated', after, changed);
  return after;
}

export async function deleteOrder(ctx: RequestContext, userId: string, id: string) {
  const existing = await requireOrder(ctx, userId, id);
  if (!(await deleteOrderRow(ctx.db, ctx.accountId, id))) throw notFound('order', id, 'order_id');
  await recordEvent(ctx, 'order.deleted', toOrderResource(existing));
  return { id, object: 'order' as const, deleted: true as const };
}

export async function listOrders(ctx: RequestContext, userId: string, query: PageParams & { status?: OrderStatus }) {
  const page = await readMayLag(ctx, async (db) => {
    await requireUser({ ...ctx, db }, userId);
    return listOrderRows(db, ctx.accountId, userId, query.status, query);
  });
  return listOf(`/v1/users/${userId}/orders`, page, toOrderResource);
}
