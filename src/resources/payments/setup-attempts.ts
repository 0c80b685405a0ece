/**
 * What confirming a setup intent does with its payment method: a declined card sends it back to
 * `requires_payment_method` with `last_setup_error` (a committed outcome, answered 402), a card
 * that asks for authentication waits in `requires_action` for the customer's answer on the
 * authentication page, and any other card is set up at once: attached to the setup intent's
 * customer, and ready for off-session payments when the customer authenticated it for them.
 */
import type { components } from '../../../generated/openapi.js';
import type { DeclineCode } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import { recordEvent } from '../events/events.service.js';
import { toPaymentMethodResource, type PaymentMethod } from './payment-methods.mapper.js';
import { updatePaymentMethodRow } from './payment-methods.repo.js';
import {
  attachToCustomer,
  isOffSessionReady,
  sourceOf,
  type UsablePaymentMethod,
} from './payment-methods.js';
import {
  toSetupIntentResource,
  type SetupError,
  type SetupIntent,
} from './setup-intents.mapper.js';
import { updateSetupIntentRow, type SetupIntentRow } from './setup-intents.repo.js';
import { originOf } from '../shared/public-origin.js';

/** A setup intent after a confirmation; `decline` when the card was declined (answered 402). */
export interface SetupOutcome {
  setupIntent: SetupIntent;
  decline?: { code: DeclineCode; message: string; paymentMethod: PaymentMethod };
}

/** Confirms the setup intent with this payment method (see the module's header). */
export async function attemptSetup(
  ctx: RequestContext,
  row: Omit<SetupIntentRow, 'seq'>,
  method: UsablePaymentMethod,
): Promise<SetupOutcome> {
  const card = sourceOf(method);
  if (card.decline) {
    const paymentMethod = toPaymentMethodResource(method);
    const error: SetupError = {
      type: 'card_error',
      code: 'card_declined',
      decline_code: card.decline.code,
      message: card.decline.message,
      payment_method: paymentMethod,
    };
    const setupIntent = await failSetup(ctx, row, error);
    return {
      setupIntent,
      decline: { code: card.decline.code, message: card.decline.message, paymentMethod },
    };
  }
  // A setup always asks the customer to authenticate a card that wants it, whatever it was set up for before.
  if (card.requiresAction || card.requiresSetupForOffSession) {
    const waiting = await updateSetupIntentRow(ctx.db, ctx.accountId, row.id, {
      status: 'requires_action',
      payment_method: method.id,
      last_setup_error: null,
    });
    const setupIntent = toSetupIntentResource(waiting, originOf(ctx));
    await recordEvent(ctx, 'setup_intent.requires_action', setupIntent);
    return { setupIntent };
  }
  return { setupIntent: await completeSetup(ctx, row, method, false) };
}

/**
 * The setup succeeds: the payment method is attached to the setup intent's customer (if any), and
 * one the customer authenticated for `off_session` usage passes off-session payments from now on.
 */
export async function completeSetup(
  ctx: RequestContext,
  row: Omit<SetupIntentRow, 'seq'>,
  method: UsablePaymentMethod,
  authenticated: boolean,
): Promise<SetupIntent> {
  if (authenticated && row.usage === 'off_session' && !isOffSessionReady(method)) {
    await updatePaymentMethodRow(ctx.db, ctx.accountId, method.id, { off_session_ready: true });
  }
  if (row.customer_id !== null)
    await attachToCustomer(ctx, method.id, row.customer_id, 'payment_method');
  const succeeded = await updateSetupIntentRow(ctx.db, ctx.accountId, row.id, {
    status: 'succeeded',
    payment_method: method.id,
    last_setup_error: null,
  });
  const setupIntent = toSetupIntentResource(succeeded, originOf(ctx));
  await recordEvent(ctx, 'setup_intent.succeeded', setupIntent);
  return setupIntent;
}

/** The customer failed the authentication: back to `requires_payment_method` with `setup_intent_authentication_failure`. */
export function failAuthentication(
  ctx: RequestContext,
  row: Omit<SetupIntentRow, 'seq'>,
  method: UsablePaymentMethod,
): Promise<SetupIntent> {
  return failSetup(ctx, row, {
    type: 'invalid_request_error',
    code: 'setup_intent_authentication_failure',
    message:
      'The latest attempt to set up the payment method has failed because authentication failed.',
    payment_method: toPaymentMethodResource(method),
  });
}

async function failSetup(
  ctx: RequestContext,
  row: Omit<SetupIntentRow, 'seq'>,
  error: SetupError,
): Promise<SetupIntent> {
  const failed = await updateSetupIntentRow(ctx.db, ctx.accountId, row.id, {
    status: 'requires_payment_method',
    payment_method: null,
    last_setup_error: JSON.stringify(error),
  });
  const setupIntent = toSetupIntentResource(failed, originOf(ctx));
  await recordEvent(ctx, 'setup_intent.setup_failed', setupIntent);
  return setupIntent;
}

/** The `error` of the 402 a declined setup answers: the setup intent as it now is, and the declined payment method. */
export function setupDeclineBody(
  outcome: Required<SetupOutcome>,
  requestId: string,
): components['schemas']['SetupIntentCardError'] {
  const { decline, setupIntent } = outcome;
  return {
    type: 'card_error',
    code: 'card_declined',
    message: decline.message,
    decline_code: decline.code,
    payment_method: decline.paymentMethod,
    setup_intent: setupIntent,
    request_id: requestId,
  };
}
