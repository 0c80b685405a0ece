import { ApiError, notFound } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import { findPaymentIntentForUpdate, type PaymentIntentRow, type PaymentIntentStatus } from './payment-intents.repo.js';
import { toPaymentIntentResource } from './payment-intents.mapper.js';
import { originOf } from '../shared/public-origin.js';

/** What can be done to an intent, each in the statuses that allow it (the spec's PaymentIntentStatus table). */
const ALLOWED = {
  update: ['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture'],
  'change the payment of': ['requires_payment_method', 'requires_confirmation'],
  confirm: ['requires_payment_method', 'requires_confirmation'],
  capture: ['requires_capture'],
  cancel: ['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture'],
  authenticate: ['requires_action'],
} satisfies Record<string, readonly PaymentIntentStatus[]>;

export type IntentAction = keyof typeof ALLOWED;

/**
 * Throws 400 `payment_intent_unexpected_state`, naming the status and carrying the intent as it is,
 * unless the intent's status allows the action.
 */
export function assertCan(ctx: Pick<RequestContext, 'settings'>, row: PaymentIntentRow, action: IntentAction): void {
  if ((ALLOWED[action] as readonly PaymentIntentStatus[]).includes(row.status)) return;
  const allowed = ALLOWED[action].join(', ');
  throw new ApiError(
    'payment_intent_unexpected_state',
    `You cannot ${action} this PaymentIntent because it has a status of ${row.status}; only a PaymentIntent in ${allowed} can be.`,
    { paymentIntent: toPaymentIntentResource(row, originOf(ctx)) },
  );
}

/** The intent, locked for this change (see findPaymentIntentForUpdate), or 404. */
export async function requireLocked(ctx: RequestContext, id: string, param = 'id'): Promise<PaymentIntentRow> {
  const row = await findPaymentIntentForUpdate(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('payment_intent', id, param);
  return row;
}
