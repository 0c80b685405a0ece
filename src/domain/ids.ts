import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The id prefixes of every object kind (docs/conventions.md#ids). */
export const ID_PREFIX = {
  account: 'acct',
  apiKey: 'key',
  oauthClient: 'client',
  signingKey: 'hmk',
  clientCertificate: 'cert',
  customer: 'cus',
  charge: 'ch',
  refund: 're',
  event: 'evt',
  paymentIntent: 'pi',
  paymentMethod: 'pm',
  setupIntent: 'seti',
  user: 'usr',
  order: 'ord',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  request: 'req',
} as const;

// Random bytes are drawn from the OS in blocks: one call per id would cost more than the id.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function randomByte(): number {
  if (poolOffset === POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Random base62 text; `length` 24 carries about 143 bits, so ids cannot be guessed. */
export function randomBase62(length = 24): string {
  let out = '';
  while (out.length < length) {
    // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** A new id such as `ch_3MtwBwLkdIwHu7ix28a3tqPa`. */
export function newId(kind: keyof typeof ID_PREFIX): string {
  return `${ID_PREFIX[kind]}_${randomBase62()}`;
}
