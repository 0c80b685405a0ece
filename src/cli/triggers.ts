/**
 * Which API calls produce each event type, for `payments trigger`. The table is typed by the
 * SDK's `PaymentsEventType` (generated from the spec's `webhooks:` section), so a new event type
 * in the spec fails tsc here until it gets a trigger, or a reason why the API cannot produce it;
 * test/cli/trigger.test.ts checks the same against the spec itself.
 */
import type { PaymentsClient, PaymentsEventType } from '../../sdk/src/index.js';
import { dataOrThrow } from './failures.js';
import {
  aCharge,
  aCustomer,
  aDeclinedCharge,
  aDeclinedPaymentIntent,
  anOrder,
  aPaymentIntent,
  aDeclinedSetupIntent,
  aSetupIntent,
  aUser,
} from './trigger-fixtures.js';

/** An event type the API's calls produce: what is done, and doing it (answering the objects made, in order). */
export interface Trigger {
  does: string;
  run(client: PaymentsClient): Promise<unknown[]>;
}

/** An event type no API call can produce on demand, and why. */
export interface NotTriggerable {
  notTriggerable: string;
}

/** Every event type of the spec: its trigger, or why it has none. */
export const TRIGGERS: Record<PaymentsEventType, Trigger | NotTriggerable> = {
  'customer.created': { does: 'creates a customer', run: async (c) => [await aCustomer(c)] },
  'customer.updated': {
    does: 'creates a customer and updates its description',
    run: async (c) => {
      const customer = await aCustomer(c);
      return [dataOrThrow(await c.updateCustomer(customer.id, { description: 'Updated by payments trigger' }))];
    },
  },
  'customer.deleted': {
    does: 'creates a customer and deletes it',
    run: async (c) => {
      const customer = await aCustomer(c);
      return [customer, dataOrThrow(await c.deleteCustomer(customer.id))];
    },
  },
  'charge.succeeded': { does: 'creates a charge with tok_visa', run: async (c) => [await aCharge(c)] },
  'charge.failed': { does: 'creates a charge with tok_chargeDeclined (declined: 402)', run: async (c) => [await aDeclinedCharge(c)] },
  'charge.updated': {
    does: "creates a charge and updates its description",
    run: async (c) => {
      const charge = await aCharge(c);
      return [dataOrThrow(await c.updateCharge(charge.id, { description: 'Updated by payments trigger' }))];
    },
  },
  'charge.refunded': refundOfACharge(),
  'refund.created': refundOfACharge(),
  'refund.updated': {
    does: 'creates a charge with tok_visa, refunds it in full and sets a metadata key on the refund',
    run: async (c) => {
      const charge = await aCharge(c);
      const refund = dataOrThrow(await c.createRefund({ charge: charge.id }));
      return [dataOrThrow(await c.updateRefundByPost(refund.id, { metadata: { trigger: 'payments' } }))];
    },
  },
  'charge.captured': {
    does: 'creates an uncaptured charge (capture=false) and captures it',
    run: async (c) => {
      const charge = await aCharge(c, 'tok_visa', false);
      return [dataOrThrow(await c.captureCharge(charge.id))];
    },
  },
  'charge.expired': {
    notTriggerable: 'only the worker produces it, when an authorisation has not been captured within 7 days',
  },
  'payment_intent.created': { does: 'creates a payment intent', run: async (c) => [await aPaymentIntent(c)] },
  'payment_intent.succeeded': {
    does: 'creates and confirms a payment intent with pm_card_visa',
    run: async (c) => [await aPaymentIntent(c, { payment_method: 'pm_card_visa', confirm: true })],
  },
  'payment_intent.requires_action': {
    does: 'creates and confirms a payment intent with pm_card_authenticationRequired',
    run: async (c) => [await aPaymentIntent(c, { payment_method: 'pm_card_authenticationRequired', confirm: true })],
  },
  'payment_intent.amount_capturable_updated': {
    does: 'creates and confirms a payment intent with capture_method=manual (authorised, not captured)',
    run: async (c) => [await aPaymentIntent(c, { payment_method: 'pm_card_visa', confirm: true, capture_method: 'manual' })],
  },
  'payment_intent.payment_failed': {
    does: 'creates and confirms a payment intent with pm_card_chargeDeclined (declined: 402)',
    run: async (c) => [await aDeclinedPaymentIntent(c)],
  },
  'payment_intent.canceled': {
    does: 'creates a payment intent and cancels it',
    run: async (c) => {
      const intent = await aPaymentIntent(c);
      return [dataOrThrow(await c.cancelPaymentIntent(intent.id, { cancellation_reason: 'requested_by_customer' }))];
    },
  },
  'setup_intent.created': { does: 'creates a setup intent', run: async (c) => [await aSetupIntent(c)] },
  'setup_intent.succeeded': {
    does: 'creates and confirms a setup intent with pm_card_visa',
    run: async (c) => [await aSetupIntent(c, { payment_method: 'pm_card_visa', confirm: true })],
  },
  'setup_intent.requires_action': {
    does: 'creates and confirms a setup intent with pm_card_authenticationRequired',
    run: async (c) => [await aSetupIntent(c, { payment_method: 'pm_card_authenticationRequired', confirm: true })],
  },
  'setup_intent.setup_failed': {
    does: 'creates and confirms a setup intent with pm_card_chargeDeclined (declined: 402)',
    run: async (c) => [await aDeclinedSetupIntent(c)],
  },
  'setup_intent.canceled': {
    does: 'creates a setup intent and cancels it',
    run: async (c) => {
      const intent = await aSetupIntent(c);
      return [dataOrThrow(await c.cancelSetupIntent(intent.id, { cancellation_reason: 'requested_by_customer' }))];
    },
  },
  'user.created': { does: 'creates a user', run: async (c) => [await aUser(c)] },
  'user.updated': {
    does: 'creates a user and updates its name',
    run: async (c) => {
      const user = await aUser(c);
      return [dataOrThrow(await c.updateUser(user.id, { name: 'Jenny Rosen (updated)' }))];
    },
  },
  'user.deleted': {
    does: 'creates a user and deletes it',
    run: async (c) => {
      const user = await aUser(c);
      return [user, dataOrThrow(await c.deleteUser(user.id))];
    },
  },
  'order.created': { does: 'creates a user and an order of theirs', run: async (c) => anOrder(c) },
  'order.updated': {
    does: "creates a user's order and marks it paid",
    run: async (c) => {
      const [user, order] = await anOrder(c);
      return [user, dataOrThrow(await c.updateUserOrder(user.id, order.id, { status: 'paid' }))];
    },
  },
  'order.deleted': {
    does: "creates a user's order and deletes it",
    run: async (c) => {
      const [user, order] = await anOrder(c);
      return [user, order, dataOrThrow(await c.deleteUserOrder(user.id, order.id))];
    },
  },
  'payment_method.attached': {
    does: 'creates a customer and a tok_visa card, and attaches the card to the customer',
    run: async (c) => [...(await anAttachedCard(c))],
  },
  'payment_method.detached': {
    does: 'creates a customer and an attached tok_visa card, and detaches the card',
    run: async (c) => {
      const [customer, card] = await anAttachedCard(c);
      return [customer, card, dataOrThrow(await c.detachPaymentMethod(card.id))];
    },
  },
  'payment_method.updated': {
    does: "creates a tok_visa card and updates its billing name",
    run: async (c) => {
      const card = dataOrThrow(await c.createPaymentMethod({ type: 'card', card: { token: 'tok_visa' } }));
      return [card, dataOrThrow(await c.updatePaymentMethodByPost(card.id, { billing_details: { name: 'Jenny Rosen' } }))];
    },
  },
};

/** A customer, and a tok_visa card attached to it. */
async function anAttachedCard(c: PaymentsClient) {
  const customer = await aCustomer(c);
  const card = dataOrThrow(await c.createPaymentMethod({ type: 'card', card: { token: 'tok_visa' } }));
  return [customer, dataOrThrow(await c.attachPaymentMethod(card.id, { customer: customer.id }))] as const;
}

function refundOfACharge(): Trigger {
  return {
    does: 'creates a charge with tok_visa and refunds it in full',
    run: async (c) => {
      const charge = await aCharge(c);
      const refund = dataOrThrow(await c.createRefund({ charge: charge.id }));
      return [dataOrThrow(await c.retrieveCharge(charge.id)), refund];
    },
  };
}

/** Whether an entry of {@link TRIGGERS} is a trigger (not a reason why there is none). */
export function isTrigger(entry: Trigger | NotTriggerable): entry is Trigger {
  return 'run' in entry;
}
