import { createHmac } from 'node:crypto';

/**
 * Signature headers for one attempt, signed afresh with its own timestamp:
 * - `Service-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, the key being the
 *   whole `whsec_…` string, with one `v1=` per valid secret during a rotation;
 * - the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature:
 *   v1,<base64 HMAC-SHA256(key, "<id>.<t>.<body>")>`), the key being the base64 text after `whsec_`.
 */
export function signatureHeaders(
  body: string,
  eventId: string,
  secrets: readonly string[],
  timestampSeconds: number,
): Record<string, string> {
  const service = secrets.map((secret) => `v1=${hmac(secret, `${timestampSeconds}.${body}`).toString('hex')}`);
  const standard = secrets.map(
    (secret) =>
      `v1,${hmac(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'), `${eventId}.${timestampSeconds}.${body}`).toString('base64')}`,
  );
  return {
    'Service-Signature': `t=${timestampSeconds},${service.join(',')}`,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standard.join(' '),
  };
}

function hmac(key: string | Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}
