import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PaymentsEvent } from './generated/events.js';

/** The signature did not match, was missing, or is too old: answer 400 and do no work. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export interface VerifyOptions {
  /** How old (or far in the future) a signature may be, in seconds; default 300. */
  tolerance?: number;
  /** The current unix time in seconds (for tests). */
  now?: number;
}

/**
 * Verifies a delivery's `Service-Signature` header (`t=<unix>,v1=<hex>[,v1=<hex>…]`) against the
 * raw request body, and returns the parsed event. Any matching `v1` is accepted (during a secret
 * rotation there is one per valid secret); the comparison takes constant time.
 *
 * Pass the body exactly as received: re-serialized JSON would not match.
 *
 * The event is a {@link PaymentsEvent}: check `event.type` and `event.data.object` takes that
 * event's type. `T` (one member of the union, or several) only asserts which events the caller
 * expects; nothing checks it, so prefer narrowing on `type`.
 */
export function verifyWebhook<T extends PaymentsEvent = PaymentsEvent>(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): T {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  if (!signatureHeader) throw new WebhookSignatureError('No Service-Signature header');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of signatureHeader.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't') timestamp = Number(value);
    else if (key === 'v1' && value) signatures.push(value);
  }
  if (timestamp === undefined || !Number.isInteger(timestamp) || signatures.length === 0) {
    throw new WebhookSignatureError('Malformed Service-Signature header');
  }
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.tolerance ?? 300)) {
    throw new WebhookSignatureError('Signature timestamp is outside the tolerance');
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookSignatureError('No signature matches the secret');
  return JSON.parse(body) as T;
}
