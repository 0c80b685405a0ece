/**
 * The objects a redirect page authenticates, by their id's prefix: payment and setup intents. Each says how to find it by id alone (the page has no API key: the
 * client secret is the credential), what the page shows, and how the customer's answer changes it.
 */
import type { Queryable } from '../db/database.js';
import type { RequestContext } from '../operations/operations.js';
import { openClientSecret } from '../resources/payments/client-secrets.js';
import { findPaymentIntentAnyAccount } from '../resources/payments/payment-intents.repo.js';
import { findSetupIntentAnyAccount } from '../resources/payments/setup-intents.repo.js';
import { PAYMENT_INTENT_CLIENT_SECRET, SETUP_INTENT_CLIENT_SECRET } from '../resources/shared/sealed-secrets.js';
import { authenticatePaymentIntent } from '../resources/payment-intents/payment-intents.service.js';
import { authenticateSetupIntent } from '../resources/setup-intents/setup-intents.service.js';
import type { SecretBox } from '../domain/secret-box.js';

/** What the page needs of an object waiting for its customer. */
export interface RedirectSubject {
  id: string;
  accountId: string;
  /** Opened; null for an object made before client secrets existed (no page opens for it). */
  clientSecret: string | null;
  /** Whether it waits for the customer's authentication (`requires_action`). */
  waiting: boolean;
  /** What is to be paid, when it is a payment (a setup intent pays nothing). */
  amount?: { value: number; currency: string };
  returnUrl: string | null;
}

/** A kind of object a redirect page serves. */
export interface RedirectTarget {
  /** The query parameter naming it on the return URL, and the prefix of its `…_client_secret`. */
  param: 'payment_intent' | 'setup_intent';
  /** What the customer is told the object is, in the page's notices: a setup intent pays nothing. */
  noun: 'payment' | 'card setup';
  find(db: Queryable, secrets: SecretBox, id: string): Promise<RedirectSubject | undefined>;
  /** Completes (`succeeded`) or fails the authentication, as the test helper does, in the caller's transaction. */
  complete(ctx: RequestContext, id: string, outcome: 'succeeded' | 'failed'): Promise<void>;
}

const paymentIntents: RedirectTarget = {
  param: 'payment_intent',
  noun: 'payment',
  async find(db, secrets, id) {
    const row = await findPaymentIntentAnyAccount(db, id);
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      clientSecret: openClientSecret(secrets, PAYMENT_INTENT_CLIENT_SECRET, row.id, row.client_secret),
      waiting: row.status === 'requires_action',
      amount: { value: row.amount, currency: row.currency },
      returnUrl: row.return_url,
    };
  },
  async complete(ctx, id, outcome) {
    await authenticatePaymentIntent(ctx, id, { outcome });
  },
};

const setupIntents: RedirectTarget = {
  param: 'setup_intent',
  noun: 'card setup',
  async find(db, secrets, id) {
    const row = await findSetupIntentAnyAccount(db, id);
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      clientSecret: openClientSecret(secrets, SETUP_INTENT_CLIENT_SECRET, row.id, row.client_secret),
      waiting: row.status === 'requires_action',
      returnUrl: row.return_url,
    };
  },
  async complete(ctx, id, outcome) {
    await authenticateSetupIntent(ctx, id, outcome);
  },
};

const TARGETS = new Map<string, RedirectTarget>([
  ['pi', paymentIntents],
  ['seti', setupIntents],
]);

/** The kind of object an id names, by its prefix; undefined for any other id. */
export function redirectTargetOf(id: string): RedirectTarget | undefined {
  return TARGETS.get(id.split('_', 1)[0]);
}
