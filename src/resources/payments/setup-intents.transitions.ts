import { ApiError, notFound } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import {
  findSetupIntentForUpdate,
  type SetupIntentRow,
  type SetupIntentStatus,
} from './setup-intents.repo.js';
import { toSetupIntentResource } from './setup-intents.mapper.js';
import { originOf } from '../shared/public-origin.js';

/** What can be done to a setup intent, each in the statuses that allow it (the spec's SetupIntentStatus table). */
const ALLOWED = {
  update: ['requires_payment_method', 'requires_confirmation', 'requires_action'],
  'change the payment method of': ['requires_payment_method', 'requires_confirmation'],
  confirm: ['requires_payment_method', 'requires_confirmation'],
  cancel: ['requires_payment_method', 'requires_confirmation', 'requires_action'],
  authenticate: ['requires_action'],
} satisfies Record<string, readonly SetupIntentStatus[]>;

export type SetupIntentAction = keyof typeof ALLOWED;

/**
 * Throws 400 `setup_intent_unexpected_state`, naming the status and carrying the setup intent as
 * it is, unless its status allows the action.
 */
export function assertSetupCan(ctx: Pick<RequestContext, 'settings'>, row: SetupIntentRow, action: SetupIntentAction): void {
  if ((ALLOWED[action] as readonly SetupIntentStatus[]).includes(row.status)) return;
  const allowed = ALLOWED[action].join(', ');
  throw new ApiError(
    'setup_intent_unexpected_state',
    `You cannot ${action} this SetupIntent because it has a status of ${row.status}; only a SetupIntent in ${allowed} can be.`,
    { setupIntent: toSetupIntentResource(row, originOf(ctx)) },
  );
}

/** The setup intent, locked for this change, or 404. */
export async function requireLockedSetupIntent(
  ctx: RequestContext,
  id: string,
  param = 'id',
): Promise<SetupIntentRow> {
  const row = await findSetupIntentForUpdate(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('setup_intent', id, param);
  return row;
}
