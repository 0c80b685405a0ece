import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PaymentsEvent } from './generated/events.js';
import { verifyWebhook, WebhookSignatureError, type VerifyOptions } from './webhooks.js';

/** Remembers which event ids were handled, so a redelivery is acknowledged without new work. */
export interface SeenEventStore {
  has(eventId: string): boolean | Promise<boolean>;
  add(eventId: string): void | Promise<void>;
  delete(eventId: string): void | Promise<void>;
}

/** An in-memory store of the last `capacity` event ids (the default; use a shared one across processes). */
export function memorySeenEventStore(capacity = 10_000): SeenEventStore {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add: (id) => {
      ids.add(id);
      if (ids.size > capacity) ids.delete(ids.values().next().value!);
    },
    delete: (id) => void ids.delete(id),
  };
}

export interface WebhookHandlerOptions extends VerifyOptions {
  /** The endpoint's `whsec_…` secret. */
  secret: string;
  /**
   * Your code, given the verified event: check `event.type` to get its `data.object` typed. Keep it
   * quick (enqueue work); if it throws, the answer is 500 and the delivery is retried.
   */
  onEvent: (event: PaymentsEvent) => unknown | Promise<unknown>;
  seen?: SeenEventStore;
}

/**
 * A request handler (Express or plain node:http) that follows the consumer rules: read the raw
 * body first; a bad signature answers 400 and does nothing; an event already handled answers 200
 * and does nothing; otherwise hand the event to `onEvent` and answer 200.
 *
 * Mount it before any JSON body parser, e.g. `app.post('/webhooks/payments', createWebhookHandler({ … }))`;
 * a body already read by `express.raw()` (a Buffer) works too.
 */
export function createWebhookHandler(options: WebhookHandlerOptions) {
  const seen = options.seen ?? memorySeenEventStore();
  return async (req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> => {
    const raw = Buffer.isBuffer(req.body) ? req.body : await readBody(req);
    let event: PaymentsEvent;
    try {
      event = verifyWebhook(raw, header(req, 'service-signature'), options.secret, options);
    } catch (error) {
      if (!(error instanceof WebhookSignatureError)) throw error;
      return answer(res, 400, { error: error.message });
    }
    if (await seen.has(event.id)) return answer(res, 200, { received: true, duplicate: true });
    await seen.add(event.id);
    try {
      await options.onEvent(event);
    } catch {
      await seen.delete(event.id); // not handled: let the retry through
      return answer(res, 500, { error: 'handler failed' });
    }
    answer(res, 200, { received: true });
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function answer(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
