import { createHmac } from 'node:crypto';
import type { components } from '../../generated/openapi.js';

/** A name, other than `Service-Signature`, under which a delivery can carry the same signature. */
export type SignatureHeaderAlias = components['schemas']['SignatureHeaderAlias'];

/**
 * Every alias the contract allows (`SignatureHeaderAliases`): `Stripe-Signature`, the header the
 * widely used payments API signs with, in the same `t=…,v1=…` form, so that its libraries'
 * verifiers accept our deliveries as they are.
 */
export const SIGNATURE_HEADER_ALIASES = ['Stripe-Signature'] as const satisfies readonly SignatureHeaderAlias[];

/**
 * Signature headers for one attempt, signed afresh with its own timestamp:
 * - `Service-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, the key being the
 *   whole `whsec_…` string, with one `v1=` per valid secret during a rotation, and the same value
 *   under each of `aliases`;
 * - the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature:
 *   v1,<base64 HMAC-SHA256(key, "<id>.<t>.<body>")>`), the key being the base64 text after `whsec_`.
 */
export function signatureHeaders(
  body: string,
  eventId: string,
  secrets: readonly string[],
  timestampSeconds: number,
  aliases: readonly SignatureHeaderAlias[] = [],
): Record<string, string> {
  const service = secrets.map((secret) => `v1=${hmac(secret, `${timestampSeconds}.${body}`).toString('hex')}`);
  const standard = secrets.map(
    (secret) =>
      `v1,${hmac(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'), `${eventId}.${timestampSeconds}.${body}`).toString('base64')}`,
  );
  const signature = `t=${timestampSeconds},${service.join(',')}`;
  return {
    'Service-Signature': signature,
    ...Object.fromEntries(aliases.map((alias) => [alias, signature])),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standard.join(' '),
  };
}

function hmac(key: string | Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}
