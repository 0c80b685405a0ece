import { unixSeconds } from '../../domain/clock.js';
import { ApiError, notFound } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { requireCustomer } from '../customers/customers.service.js';
import { recordEvent } from '../events/events.service.js';
import {
  assertClientSecret,
  newClientSecret,
  openClientSecret,
} from '../payments/client-secrets.js';
import { resolvePaymentMethod } from '../payments/payment-methods.js';
import {
  attemptSetup,
  completeSetup,
  failAuthentication,
  type SetupOutcome,
} from '../payments/setup-attempts.js';
import {
  toSetupIntentResource,
  type SetupIntent,
  type SetupIntentCancelParams,
  type SetupIntentConfirmParams,
  type SetupIntentCreateParams,
  type SetupIntentUpdateParams,
} from '../payments/setup-intents.mapper.js';
import {
  findSetupIntent,
  insertSetupIntent,
  listSetupIntentRows,
  updateSetupIntentRow,
  type SetupIntentChanges,
  type SetupIntentRow,
} from '../payments/setup-intents.repo.js';
import { assertSetupCan, requireLockedSetupIntent } from '../payments/setup-intents.transitions.js';
import { findPaymentMethod } from '../payments/payment-methods.repo.js';
import { initialMetadata, updatedMetadata } from '../shared/metadata.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { readMayLag } from '../shared/replica-reads.js';
import { SETUP_INTENT_CLIENT_SECRET } from '../shared/sealed-secrets.js';
import { originOf } from '../shared/public-origin.js';

type TypeParams = Pick<
  SetupIntentCreateParams,
  'payment_method_types' | 'automatic_payment_methods'
>;

/**
 * The payment method types and automatic payment methods of a new setup intent: the types sent,
 * or automatic payment methods (enabled unless said otherwise), as the payments API defaults them.
 */
function typesOf({
  payment_method_types,
  automatic_payment_methods,
}: TypeParams): Pick<SetupIntentRow, 'payment_method_types' | 'automatic_payment_methods'> {
  if (payment_method_types !== undefined && automatic_payment_methods !== undefined) {
    throw new ApiError(
      'parameter_invalid',
      'You may only specify one of these parameters: automatic_payment_methods, payment_method_types.',
      {
        param: 'automatic_payment_methods',
      },
    );
  }
  if (payment_method_types !== undefined)
    return {
      payment_method_types: JSON.stringify(payment_method_types),
      automatic_payment_methods: null,
    };
  const automatic = {
    allow_redirects: automatic_payment_methods?.allow_redirects ?? 'always',
    enabled: automatic_payment_methods?.enabled ?? true,
  };
  return {
    payment_method_types: JSON.stringify(['card']),
    automatic_payment_methods: JSON.stringify(automatic),
  };
}

/**
 * Creates a setup intent: `requires_payment_method`, or `requires_confirmation` with a payment
 * method; `confirm` confirms it at once (a decline is then an outcome, answered 402).
 */
export async function createSetupIntent(
  ctx: RequestContext,
  params: SetupIntentCreateParams,
): Promise<SetupOutcome> {
  // `expand` is applied to the result by the handler.
  const {
    customer,
    payment_method,
    payment_method_types,
    automatic_payment_methods,
    usage,
    confirm,
    return_url,
    description,
    metadata,
    expand: _expand,
    ...unread
  } = params;
  allParamsRead(unread);
  if (confirm && payment_method === undefined) {
    throw new ApiError(
      'parameter_missing',
      'A payment_method is required to confirm a SetupIntent.',
      { param: 'payment_method' },
    );
  }
  const types = typesOf({ payment_method_types, automatic_payment_methods });
  if (customer !== undefined) await requireCustomer(ctx, customer, 'customer');
  const method =
    payment_method === undefined
      ? undefined
      : await resolvePaymentMethod(ctx, payment_method, customer ?? null);
  const id = newId('setupIntent');
  const row = await insertSetupIntent(ctx.db, {
    id,
    account_id: ctx.accountId,
    customer_id: customer ?? null,
    status: method ? 'requires_confirmation' : 'requires_payment_method',
    payment_method: method?.id ?? null,
    usage: usage ?? 'off_session',
    ...types,
    last_setup_error: null,
    description: description ?? null,
    metadata: initialMetadata(metadata),
    cancellation_reason: null,
    client_secret: newClientSecret(ctx.secrets, SETUP_INTENT_CLIENT_SECRET, id).sealed,
    return_url: return_url ?? null,
    created: unixSeconds(ctx.clock),
  });
  const setupIntent = toSetupIntentResource(row, originOf(ctx));
  await recordEvent(ctx, 'setup_intent.created', setupIntent);
  if (!confirm || !method) return { setupIntent };
  return attemptSetup(ctx, row, method);
}

/** The setup intent; with the publishable key, only with its `client_secret`. */
export async function retrieveSetupIntent(
  ctx: RequestContext,
  id: string,
  query: { client_secret?: string; expand?: string[] } = {},
): Promise<SetupIntent> {
  const row = await findSetupIntent(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('setup_intent', id);
  assertClientSecretOf(ctx, row, query, 'query');
  return toSetupIntentResource(row, originOf(ctx));
}

function assertClientSecretOf(
  ctx: RequestContext,
  row: SetupIntentRow,
  sent: { client_secret?: string; expand?: string[] },
  where: 'query' | 'body',
) {
  const secret = openClientSecret(
    ctx.secrets,
    SETUP_INTENT_CLIENT_SECRET,
    row.id,
    row.client_secret,
  );
  assertClientSecret(ctx, { name: 'setup_intent', id: row.id, secret }, sent, where);
}

export async function listSetupIntents(
  ctx: RequestContext,
  query: PageParams & { customer?: string; payment_method?: string },
) {
  const filters = { customer: query.customer, paymentMethod: query.payment_method };
  const page = await readMayLag(ctx, (db) =>
    listSetupIntentRows(db, ctx.accountId, filters, query),
  );
  return listOf('/v1/setup_intents', page, (row) => toSetupIntentResource(row, originOf(ctx)));
}

/**
 * Changes a setup intent that is not final: `description` and `metadata` at any time, its customer,
 * payment method and types only before confirmation. A payment method set on a setup intent
 * without one makes it `requires_confirmation`.
 */
export async function updateSetupIntent(
  ctx: RequestContext,
  id: string,
  params: SetupIntentUpdateParams,
): Promise<SetupIntent> {
  // `expand` is applied to the result by the handler.
  const {
    customer,
    payment_method,
    payment_method_types,
    description,
    metadata,
    expand: _expand,
    ...unread
  } = params;
  allParamsRead(unread);
  const row = await requireLockedSetupIntent(ctx, id);
  assertSetupCan(ctx, row, 'update');
  const changes: SetupIntentChanges = { metadata: updatedMetadata(row.metadata, metadata) };
  if (description !== undefined) changes.description = description;
  if (
    customer !== undefined ||
    payment_method !== undefined ||
    payment_method_types !== undefined
  ) {
    assertSetupCan(ctx, row, 'change the payment method of');
    if (customer !== undefined)
      changes.customer_id = (await requireCustomer(ctx, customer, 'customer')).id;
    if (payment_method_types !== undefined)
      Object.assign(changes, typesOf({ payment_method_types }));
    if (payment_method !== undefined) {
      changes.payment_method = (
        await resolvePaymentMethod(ctx, payment_method, customer ?? row.customer_id)
      ).id;
      if (row.status === 'requires_payment_method') changes.status = 'requires_confirmation';
    } else if (customer !== undefined && row.payment_method !== null) {
      // The payment method already set must be usable for the new customer too.
      await resolvePaymentMethod(ctx, row.payment_method, customer, 'customer');
    }
  }
  return toSetupIntentResource(await updateSetupIntentRow(ctx.db, ctx.accountId, id, changes), originOf(ctx));
}

/** Confirms a setup intent with its payment method, or the one sent (see attemptSetup). */
export async function confirmSetupIntent(
  ctx: RequestContext,
  id: string,
  params: SetupIntentConfirmParams,
): Promise<SetupOutcome> {
  // `expand` is applied to the result by the handler.
  const { payment_method, return_url, client_secret, expand, ...unread } = params;
  allParamsRead(unread);
  let row = await requireLockedSetupIntent(ctx, id);
  assertClientSecretOf(ctx, row, { client_secret, expand }, 'body');
  assertSetupCan(ctx, row, 'confirm');
  const reference = payment_method ?? row.payment_method;
  if (reference === null) {
    throw new ApiError(
      'parameter_missing',
      'A payment_method is required to confirm this SetupIntent.',
      { param: 'payment_method' },
    );
  }
  const method = await resolvePaymentMethod(ctx, reference, row.customer_id);
  if (return_url !== undefined && return_url !== row.return_url)
    row = await updateSetupIntentRow(ctx.db, ctx.accountId, id, { return_url });
  return attemptSetup(ctx, row, method);
}

/** Cancels a setup intent that is not final. */
export async function cancelSetupIntent(
  ctx: RequestContext,
  id: string,
  params: SetupIntentCancelParams,
): Promise<SetupIntent> {
  // `expand` is applied to the result by the handler.
  const { cancellation_reason, expand: _expand, ...unread } = params;
  allParamsRead(unread);
  const row = await requireLockedSetupIntent(ctx, id);
  assertSetupCan(ctx, row, 'cancel');
  const canceled = await updateSetupIntentRow(ctx.db, ctx.accountId, id, {
    status: 'canceled',
    cancellation_reason: cancellation_reason ?? null,
  });
  const setupIntent = toSetupIntentResource(canceled, originOf(ctx));
  await recordEvent(ctx, 'setup_intent.canceled', setupIntent);
  return setupIntent;
}

/**
 * The customer's answer on the authentication page of a setup intent in `requires_action`:
 * `succeeded` sets the payment method up (authenticated); `failed` sends the setup intent back to
 * `requires_payment_method` with `setup_intent_authentication_failure`.
 */
export async function authenticateSetupIntent(
  ctx: RequestContext,
  id: string,
  outcome: 'succeeded' | 'failed',
): Promise<SetupIntent> {
  const row = await requireLockedSetupIntent(ctx, id);
  assertSetupCan(ctx, row, 'authenticate');
  const method = await findPaymentMethod(ctx.db, ctx.accountId, row.payment_method!);
  if (!method) throw notFound('PaymentMethod', row.payment_method!, 'payment_method');
  return outcome === 'succeeded'
    ? completeSetup(ctx, row, method, true)
    : failAuthentication(ctx, row, method);
}
