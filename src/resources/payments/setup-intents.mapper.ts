import type { components } from '../../../generated/openapi.js';
import type { SecretBox } from '../../domain/secret-box.js';
import { parseMetadata } from '../shared/metadata.js';
import { SETUP_INTENT_CLIENT_SECRET } from '../shared/sealed-secrets.js';
import { openClientSecret } from './client-secrets.js';
import { redirectPageUrl, withSecretInQuery } from './payment-intents.mapper.js';
import type { SetupIntentRow } from './setup-intents.repo.js';

export type SetupIntent = components['schemas']['SetupIntent'];
export type SetupError = components['schemas']['SetupError'];
export type AutomaticPaymentMethods = components['schemas']['AutomaticPaymentMethods'];
export type SetupIntentCreateParams = components['schemas']['SetupIntentCreateParams'];
export type SetupIntentUpdateParams = components['schemas']['SetupIntentUpdateParams'];
export type SetupIntentConfirmParams = components['schemas']['SetupIntentConfirmParams'];
export type SetupIntentCancelParams = components['schemas']['SetupIntentCancelParams'];

/** Card options as every setup intent here has them: 3-D Secure when the card asks for it. */
const PAYMENT_METHOD_OPTIONS: SetupIntent['payment_method_options'] = {
  card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' },
};

/**
 * The sealed client secret of each setup intent the mapper made, so that an API answer shows it
 * (`withSetupClientSecret`) while the same object in an event never carries it.
 */
const sealedSecrets = new WeakMap<SetupIntent, { id: string; sealed: string }>();

/** The setup intent with its `client_secret` (opened), and its page's URL carrying it, for an API answer. */
export function withSetupClientSecret(secrets: SecretBox, intent: SetupIntent): SetupIntent {
  const stored = sealedSecrets.get(intent);
  if (!stored) return intent;
  const clientSecret = openClientSecret(
    secrets,
    SETUP_INTENT_CLIENT_SECRET,
    stored.id,
    stored.sealed,
  )!;
  const action = intent.next_action;
  const next_action = action && {
    ...action,
    redirect_to_url: { ...action.redirect_to_url, url: withSecretInQuery(action.redirect_to_url.url, clientSecret) },
  };
  return { ...intent, client_secret: clientSecret, next_action };
}

/** The setup intent as the API shows it; `origin` is the public origin its page's URL is made on. */
export function toSetupIntentResource(row: Omit<SetupIntentRow, 'seq'>, origin: string): SetupIntent {
  const intent: SetupIntent = {
    id: row.id,
    object: 'setup_intent',
    allowed_payment_method_types: null,
    application: null,
    automatic_payment_methods:
      row.automatic_payment_methods === null ? null : JSON.parse(row.automatic_payment_methods),
    cancellation_reason: row.cancellation_reason as SetupIntent['cancellation_reason'],
    created: row.created,
    customer: row.customer_id,
    description: row.description,
    excluded_payment_method_types: null,
    flow_directions: null,
    last_setup_error:
      row.last_setup_error === null ? null : (JSON.parse(row.last_setup_error) as SetupError),
    latest_attempt: null,
    livemode: false,
    mandate: null,
    metadata: parseMetadata(row.metadata),
    next_action:
      row.status === 'requires_action'
        ? {
            type: 'redirect_to_url',
            redirect_to_url: { url: redirectPageUrl(origin, row.id), return_url: row.return_url },
          }
        : null,
    on_behalf_of: null,
    payment_method: row.payment_method,
    payment_method_configuration_details: null,
    payment_method_options: PAYMENT_METHOD_OPTIONS,
    payment_method_types: JSON.parse(
      row.payment_method_types,
    ) as SetupIntent['payment_method_types'],
    single_use_mandate: null,
    status: row.status,
    usage: row.usage,
  };
  sealedSecrets.set(intent, { id: row.id, sealed: row.client_secret });
  return intent;
}
