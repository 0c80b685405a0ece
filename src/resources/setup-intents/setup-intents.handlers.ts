import { ok, type Handlers, type RequestContext } from '../../operations/operations.js';
import { setupDeclineBody, type SetupOutcome } from '../payments/setup-attempts.js';
import { withSetupClientSecret, type SetupIntent } from '../payments/setup-intents.mapper.js';
import { setupIntentExpandableFields } from '../payments/payments.expansion.js';
import { listExpansion, objectExpansion, type ObjectExpansion } from '../shared/expansion.js';
import * as setups from './setup-intents.service.js';

// `expand` is checked before the service runs, so a path that cannot be expanded changes nothing.
const expandSetup = (paths?: string[]) => objectExpansion(setupIntentExpandableFields, paths);

/** A setup intent as an API call answers it: with its client secret, and expanded as asked. */
const answer = async (ctx: RequestContext, expand: ObjectExpansion, intent: SetupIntent) =>
  expand(ctx, withSetupClientSecret(ctx.secrets, intent));

/** A confirmation's answer: the setup intent, or 402 for a decline (a committed outcome, replayed as such). */
async function setupAnswer(ctx: RequestContext, expand: ObjectExpansion, outcome: SetupOutcome) {
  if (!outcome.decline) return ok(await answer(ctx, expand, outcome.setupIntent));
  return {
    status: 402 as const,
    body: {
      error: setupDeclineBody(
        { setupIntent: outcome.setupIntent, decline: outcome.decline },
        ctx.requestId,
      ),
    },
  };
}

export const setupIntentHandlers = {
  listSetupIntents: async ({ query, ctx }) => {
    const expand = listExpansion(setupIntentExpandableFields, query.expand);
    const page = await setups.listSetupIntents(ctx, query);
    return ok(
      await expand(ctx, {
        ...page,
        data: page.data.map((intent) => withSetupClientSecret(ctx.secrets, intent)),
      }),
    );
  },
  createSetupIntent: async ({ body, ctx }) => {
    const expand = expandSetup(body?.expand);
    return setupAnswer(ctx, expand, await setups.createSetupIntent(ctx, body ?? {}));
  },
  retrieveSetupIntent: async ({ path, query, ctx }) => {
    const expand = expandSetup(query.expand);
    return ok(await answer(ctx, expand, await setups.retrieveSetupIntent(ctx, path.id, query)));
  },
  updateSetupIntent: async ({ path, body, ctx }) => {
    const expand = expandSetup(body.expand);
    return ok(await answer(ctx, expand, await setups.updateSetupIntent(ctx, path.id, body)));
  },
  updateSetupIntentByPost: async ({ path, body, ctx }) => {
    const expand = expandSetup(body?.expand);
    return ok(await answer(ctx, expand, await setups.updateSetupIntent(ctx, path.id, body ?? {})));
  },
  confirmSetupIntent: async ({ path, body, ctx }) => {
    const expand = expandSetup(body?.expand);
    return setupAnswer(ctx, expand, await setups.confirmSetupIntent(ctx, path.id, body ?? {}));
  },
  cancelSetupIntent: async ({ path, body, ctx }) => {
    const expand = expandSetup(body?.expand);
    return ok(await answer(ctx, expand, await setups.cancelSetupIntent(ctx, path.id, body ?? {})));
  },
} satisfies Pick<
  Handlers,
  | 'listSetupIntents'
  | 'createSetupIntent'
  | 'retrieveSetupIntent'
  | 'updateSetupIntent'
  | 'updateSetupIntentByPost'
  | 'confirmSetupIntent'
  | 'cancelSetupIntent'
>;
