import { ok, type Handlers } from '../../operations/operations.js';
import * as events from './events.service.js';

export const eventHandlers = {
  listEvents: async ({ query, ctx }) => ok(await events.listEvents(ctx, query)),
  retrieveEvent: async ({ path, ctx }) => ok(await events.retrieveEvent(ctx, path.id)),
} satisfies Pick<Handlers, 'listEvents' | 'retrieveEvent'>;
