import type { components } from '../../../generated/openapi.js';
import { parseMetadata } from '../shared/metadata.js';
import type { OrderRow } from './orders.repo.js';

export type Order = components['schemas']['Order'];
export type OrderCreateParams = components['schemas']['OrderCreateParams'];
export type OrderUpdateParams = components['schemas']['OrderUpdateParams'];
export type OrderStatus = components['schemas']['OrderStatus'];

export function toOrderResource(row: OrderRow): Order {
  return {
    id: row.id,
    object: 'order',
    created: row.created,
    livemode: false,
    user: row.user_id,
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    status: row.status,
    metadata: parseMetadata(row.metadata),
  };
}
