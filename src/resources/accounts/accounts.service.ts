import { createHash } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import type { Queryable } from '../../db/database.js';
import { unixSeconds, type Clock } from '../../domain/clock.js';
import { newId, randomBase62 } from '../../domain/ids.js';
import { allParamsRead } from '../shared/params.js';
import { insertAccount, insertApiKey } from './accounts.repo.js';

export type AccountWithKey = components['schemas']['AccountWithKey'];
export type AccountCreateParams = components['schemas']['AccountCreateParams'];

/** API keys are stored as their SHA-256: a leaked table reveals no usable key. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** A new secret key, `sk_test_` and 32 random base62 characters. */
export function generateApiKey(): string {
  return `sk_test_${randomBase62(32)}`;
}

/** A new publishable key, `pk_test_` and 32 random base62 characters. */
export function generatePublishableKey(): string {
  return `pk_test_${randomBase62(32)}`;
}

/** Stores the account's publishable key: hashed to authenticate by, as every key, and in full (it is public). */
export async function addPublishableKey(db: Queryable, clock: Clock, accountId: string, key: string = generatePublishableKey()): Promise<string> {
  await insertApiKey(db, {
    id: newId('apiKey'),
    account_id: accountId,
    key_hash: hashApiKey(key),
    last4: key.slice(-4),
    created: unixSeconds(clock),
    scopes: '[]',
    publishable_key: key,
  });
  return key;
}

/** Stores a key for an account (hashed) and returns nothing of it. */
export async function addApiKey(db: Queryable, clock: Clock, accountId: string, apiKey: string): Promise<void> {
  await insertApiKey(db, {
    id: newId('apiKey'),
    account_id: accountId,
    key_hash: hashApiKey(apiKey),
    last4: apiKey.slice(-4),
    created: unixSeconds(clock),
    scopes: null,
  });
}

/** Creates an account with its first API key, which the result shows this once. */
export async function createAccount(
  db: Queryable,
  clock: Clock,
  params: AccountCreateParams,
  apiKey: string = generateApiKey(),
): Promise<AccountWithKey> {
  const { name, email, ...unread } = params;
  allParamsRead(unread);
  const account = { id: newId('account'), name, email, created: unixSeconds(clock) };
  await insertAccount(db, account);
  // The publishable key first, so that the secret key is the newest key of a new account.
  const publishableKey = await addPublishableKey(db, clock, account.id);
  await addApiKey(db, clock, account.id, apiKey);
  return { ...account, object: 'account', api_key: apiKey, publishable_key: publishableKey };
}
