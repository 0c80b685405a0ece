import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Queryable } from '../../src/db/database.js';
import { findApiKeyByHash } from '../../src/resources/accounts/accounts.repo.js';
import { hashApiKey } from '../../src/resources/accounts/accounts.service.js';

/** How long a test waits for an event that must arrive before it fails (a bound, not a measurement). */
export const ARRIVAL_BOUND_MS = 10_000;

/**
 * The next value of an async iterator, or a failure after `boundMs` (so that a missing event fails
 * the test instead of hanging it). A `done` iterator fails too: the test expected a value.
 */
export async function nextValue<T>(iterator: AsyncIterator<T>, boundMs = ARRIVAL_BOUND_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`nothing arrived within ${boundMs} ms`)), boundMs);
  });
  try {
    const result = await Promise.race([iterator.next(), bound]);
    if (result.done) throw new Error('the iterator ended instead of yielding a value');
    return result.value;
  } finally {
    clearTimeout(timer);
  }
}

/** The account an API key belongs to. */
export async function accountOf(db: Queryable, apiKey: string): Promise<string> {
  // At time 0 every key that was not revoked works, whatever the test's clock says now.
  const row = await findApiKeyByHash(db, hashApiKey(apiKey), 0);
  if (!row) throw new Error('unknown API key');
  return row.account_id;
}

/** The error a promise rejects with; fails if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/**
 * A graphql-ws client of `wsUrl` that sends `connectionParams` in its `connection_init` (by default
 * the API key as `Authorization: Bearer …`), and never retries, so that a refusal reaches the test.
 */
export function subscriptionClient(wsUrl: string, connectionParams: Record<string, unknown>): Client {
  return createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true });
}

/** The `connection_init` payload of a client holding this API key. */
export function bearer(apiKey: string): Record<string, unknown> {
  return { Authorization: `Bearer ${apiKey}` };
}

/** How a connection attempt ended: the close code and reason the client saw. */
export async function refusalOf(client: Client): Promise<{ code: number; reason: string }> {
  const iterator = client.iterate({ query: 'subscription { events { id } }' });
  const error = (await rejectionOf(iterator.next())) as unknown as { code: number; reason: string };
  return { code: error.code, reason: error.reason };
}
