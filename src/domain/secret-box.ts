/**
 * Secrets sealed at rest: AES-256-GCM under a key-encryption key that never enters the database.
 *
 * A sealed value is one line of text, `sealed.v1.<key id>.<nonce>.<ciphertext and tag>` (the last
 * two base64url), so it fits the text columns that held the plain secret and names the key that
 * opens it. The key id is derived from the key, so a value tells which key sealed it without
 * revealing it. The additional authenticated data is the value's place (table, column, row), so
 * a sealed value copied into another row or column does not open.
 *
 * A value without the prefix is a plain secret written before sealing existed: it is read as it
 * is, and the start seals it (resources/shared/sealed-secrets.ts).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

const PREFIX = 'sealed.v1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Values opened and remembered: a webhook is signed with its endpoint's secret on every attempt. */
const OPENED_CACHE_SIZE = 10_000;
/** AES-256: a key-encryption key is exactly 32 bytes. */
export const SECRETS_KEY_BYTES = 32;

/** Where a sealed value lives; the same place must be named to open it. */
export interface SealedPlace {
  table: string;
  column: string;
  /** The row's id (or primary key). */
  row: string;
}

/** A sealed value that cannot be opened: no key of the ring sealed it, or it was altered or moved. */
export class SecretUnreadable extends Error {
  override readonly name = 'SecretUnreadable';
}

/** The id of a key-encryption key: 16 hex digits of a domain-separated SHA-256 of it. */
export function secretsKeyId(key: Buffer): string {
  return createHash('sha256').update('payments-api secrets key id\0').update(key).digest('hex').slice(0, 16);
}

/** Whether a stored value is sealed (rather than a plain secret from before sealing). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** The id of the key that sealed a stored value; undefined for a plain value. */
export function sealedKeyId(stored: string): string | undefined {
  return isSealed(stored) ? stored.slice(PREFIX.length).split('.', 1)[0] : undefined;
}

/** The `LIKE` pattern of the values sealed under key `keyId` (hex digits: no wildcard in it). */
export function sealedUnderPattern(keyId: string): string {
  return `${PREFIX}${keyId}.%`;
}

/** The `LIKE` pattern of every sealed value. */
export const SEALED_PATTERN = `${PREFIX}%`;

function additionalData(place: SealedPlace): Buffer {
  return Buffer.from(`${place.table}.${place.column}:${place.row}`, 'utf8');
}

/**
 * The key ring: the key that seals (`SECRETS_KEY`), and the keys that still open (the current one
 * and `SECRETS_KEY_PREVIOUS`, during a rotation).
 */
export class SecretBox {
  /** The id of the key new values are sealed under. */
  readonly currentKeyId: string;
  private readonly keys = new Map<string, Buffer>();
  /** By place and sealed text together, so a value moved to another place is opened (and refused) afresh. */
  private readonly opened = new LRUCache<string, string>({ max: OPENED_CACHE_SIZE });

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== SECRETS_KEY_BYTES) throw new Error(`a secrets key must be ${SECRETS_KEY_BYTES} bytes, got ${key.length}`);
      if (!this.keys.has(secretsKeyId(key))) this.keys.set(secretsKeyId(key), key);
    }
    this.currentKeyId = secretsKeyId(current);
  }

  /** The ids of every key that opens (the current one first). */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Whether a value sealed under `keyId` opens with this ring. */
  opensKey(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  /** Seals `plain` for `place` under the current key, with a fresh random nonce. */
  seal(plain: string, place: SealedPlace): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, nonce);
    cipher.setAAD(additionalData(place));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.currentKeyId}.${nonce.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  /** The plain secret of a stored value (a plain value as it is); throws `SecretUnreadable`. */
  open(stored: string, place: SealedPlace): string {
    if (!isSealed(stored)) return stored;
    const cacheKey = `${place.table}.${place.column}:${place.row}\0${stored}`;
    let plain = this.opened.get(cacheKey);
    if (plain === undefined) {
      plain = this.decrypt(stored, place);
      this.opened.set(cacheKey, plain);
    }
    return plain;
  }

  private decrypt(stored: string, place: SealedPlace): string {
    const [keyId, nonceText, sealedText] = stored.slice(PREFIX.length).split('.');
    const where = `${place.table}.${place.column} of ${place.row}`;
    const key = this.keys.get(keyId);
    if (!key) {
      throw new SecretUnreadable(
        `${where} is sealed under secrets key ${keyId}, which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS ` +
          `(their ids: ${this.keyIds.join(', ')})`,
      );
    }
    const nonce = Buffer.from(nonceText ?? '', 'base64url');
    const sealed = Buffer.from(sealedText ?? '', 'base64url');
    if (nonce.length !== NONCE_BYTES || sealed.length < TAG_BYTES) throw new SecretUnreadable(`${where} is not a well-formed sealed value`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, nonce);
      decipher.setAAD(additionalData(place));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadable(`${where} does not open under key ${keyId}: it was altered, or sealed for another place`);
    }
  }

  /** The value sealed under the current key: left as it is when it already is. */
  reseal(stored: string, place: SealedPlace): string {
    if (sealedKeyId(stored) === this.currentKeyId) return stored;
    return this.seal(this.open(stored, place), place);
  }
}
