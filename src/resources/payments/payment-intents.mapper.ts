import type { components } from '../../../generated/openapi.js';
import type { SecretBox } from '../../domain/secret-box.js';
import { parseMetadata } from '../shared/metadata.js';
import { parseJsonOrNull, type Shipping } from '../shared/shipping.js';
import { PAYMENT_INTENT_CLIENT_SECRET } from '../shared/sealed-secrets.js';
import { openClientSecret } from './client-secrets.js';
import type { PaymentIntentRow } from './payment-intents.repo.js';

export type PaymentIntent = components['schemas']['PaymentIntent'];
export type PaymentError = components['schemas']['PaymentError'];
export type PaymentIntentCreateParams = components['schemas']['PaymentIntentCreateParams'];
export type PaymentIntentUpdateParams = components['schemas']['PaymentIntentUpdateParams'];
export type PaymentIntentConfirmParams = components['schemas']['PaymentIntentConfirmParams'];
export type PaymentIntentCaptureParams = components['schemas']['PaymentIntentCaptureParams'];
export type PaymentIntentCancelParams = components['schemas']['PaymentIntentCancelParams'];
export type PaymentIntentAuthenticateParams = components['schemas']['PaymentIntentAuthenticateParams'];
export type PaymentMethodOptionsParams = components['schemas']['PaymentMethodOptionsParams'];
export type AutomaticPaymentMethods = components['schemas']['AutomaticPaymentMethods'];

/** The capture method a card payment of the intent is made with: `payment_method_options[card][capture_method]` wins. */
export function cardCaptureMethod(row: Pick<PaymentIntentRow, 'capture_method' | 'payment_method_options'>): 'automatic' | 'manual' {
  const options = parseJsonOrNull<PaymentMethodOptionsParams>(row.payment_method_options);
  return options?.card?.capture_method === 'manual' ? 'manual' : row.capture_method;
}

function paymentMethodOptions(stored: string | null): PaymentIntent['payment_method_options'] {
  const captureMethod = parseJsonOrNull<PaymentMethodOptionsParams>(stored)?.card?.capture_method;
  return { card: { ...(captureMethod === 'manual' ? { capture_method: captureMethod } : {}), request_three_d_secure: 'automatic' } };
}

/**
 * The test helper that completes (or fails) an intent's customer action: an API call the SDK makes
 * against its own base URL (as every `/v1` path), so a path, unlike the page a browser opens.
 */
export function authenticationPath(id: string): string {
  return `/v1/test_helpers/payment_intents/${id}/authenticate`;
}

/**
 * The page where the customer completes (or fails) an authentication, served by this server
 * (customer-pages/), as an absolute URL on its public origin: the merchant sends the browser there
 * as given. It opens only with the client secret in its query, which only API answers carry
 * ({@link withClientSecret}): the same intent in an event names the page without it.
 */
export function redirectPageUrl(origin: string, id: string): string {
  return `${origin}/authenticate/${id}`;
}

/** The page's URL with the client secret that opens it. */
export function withSecretInQuery(url: string, clientSecret: string): string {
  return `${url}?client_secret=${encodeURIComponent(clientSecret)}`;
}

/**
 * The sealed client secret of each resource the mapper made, so that an API answer can show it
 * (`withClientSecret`) while the very same object, recorded in an event, never carries it: events
 * leave it out, as they are kept, listed and sent to webhook endpoints.
 */
const sealedSecrets = new WeakMap<PaymentIntent, { id: string; sealed: string }>();

/** The intent with its `client_secret` (opened), for the answer of an API call; as it is when it has none. */
export function withClientSecret(secrets: SecretBox, intent: PaymentIntent): PaymentIntent {
  const stored = sealedSecrets.get(intent);
  if (!stored) return intent;
  const clientSecret = openClientSecret(secrets, PAYMENT_INTENT_CLIENT_SECRET, stored.id, stored.sealed)!;
  const action = intent.next_action;
  const next_action =
    action?.type === 'redirect_to_url'
      ? { ...action, redirect_to_url: { ...action.redirect_to_url, url: withSecretInQuery(action.redirect_to_url.url, clientSecret) } }
      : action;
  return { ...intent, client_secret: clientSecret, next_action };
}

function nextAction(row: Omit<PaymentIntentRow, 'seq'>, origin: string): PaymentIntent['next_action'] {
  if (row.status !== 'requires_action') return null;
  if (row.return_url === null || row.client_secret === null) {
    return { type: 'authenticate', authenticate: { url: authenticationPath(row.id) } };
  }
  return { type: 'redirect_to_url', redirect_to_url: { url: redirectPageUrl(origin, row.id), return_url: row.return_url } };
}

/** The intent as the API shows it; `origin` is the public origin its page's URL is made on. */
export function toPaymentIntentResource(row: Omit<PaymentIntentRow, 'seq'>, origin: string): PaymentIntent {
  const intent: PaymentIntent = {
    id: row.id,
    object: 'payment_intent',
    created: row.created,
    livemode: false,
    amount: row.amount,
    amount_capturable: row.amount_capturable,
    amount_received: row.amount_received,
    canceled_at: row.canceled_at,
    cancellation_reason: row.cancellation_reason as PaymentIntent['cancellation_reason'],
    capture_method: row.capture_method,
    currency: row.currency,
    customer: row.customer_id,
    description: row.description,
    last_payment_error: row.last_payment_error === null ? null : (JSON.parse(row.last_payment_error) as PaymentError),
    latest_charge: row.latest_charge_id,
    metadata: parseMetadata(row.metadata),
    next_action: nextAction(row, origin),
    payment_method: row.payment_method,
    setup_future_usage: row.setup_future_usage,
    status: row.status,
    receipt_email: row.receipt_email,
    automatic_payment_methods: parseJsonOrNull<AutomaticPaymentMethods>(row.automatic_payment_methods),
    confirmation_method: row.confirmation_method,
    payment_method_options: paymentMethodOptions(row.payment_method_options),
    payment_method_types: JSON.parse(row.payment_method_types) as PaymentIntent['payment_method_types'],
    processing: null,
    shipping: parseJsonOrNull<Shipping>(row.shipping),
    statement_descriptor: row.statement_descriptor,
    statement_descriptor_suffix: row.statement_descriptor_suffix,
    application: null,
    application_fee_amount: null,
    on_behalf_of: null,
    review: null,
    source: null,
    transfer_data: null,
    transfer_group: null,
    allowed_payment_method_types: null,
    customer_account: null,
    excluded_payment_method_types: null,
    managed_payments: null,
    payment_method_configuration_details: null,
    payment_record: null,
  };
  if (row.client_secret !== null) sealedSecrets.set(intent, { id: row.id, sealed: row.client_secret });
  return intent;
}
