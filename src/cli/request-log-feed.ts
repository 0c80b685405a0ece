/**
 * Follows the account's request log (`GET /v1/request_logs`, newest first) by polling. Entries
 * are written shortly after their answer, so one may commit after a newer one was already read:
 * each poll therefore reads the whole newest page and keeps every entry not seen yet (not only
 * those above the newest seen), and pages back with `starting_after` while a page holds nothing
 * seen. Server restarts and overload are waited out with backoff; other errors end the feed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentsClient, RequestLog } from '../../sdk/src/index.js';
import { ApiFailure, dataOrThrow, NetworkFailure } from './failures.js';
import { SeenIds } from './seen-ids.js';

/** How to follow, and where the entries and status go. */
export interface RequestLogFeedOptions {
  client: PaymentsClient;
  /** Ends the feed (the promise resolves). */
  signal: AbortSignal;
  /** Called with each poll's new entries, oldest first (never with an empty array). */
  onEntries(entries: RequestLog[]): void;
  /** Called when a poll failed for a reason that may pass, and when polling works again. */
  onStatus(message: string): void;
  /** Called once the first poll succeeded: every request answered from now on will be reported. */
  onReady?(): void;
  /** Between polls; default 1 s. */
  intervalMs?: number;
  /** The longest wait after repeated failures; default 10 s. */
  maxBackoffMs?: number;
}

const PAGE_SIZE = 100;
/** A poll reads at most this many pages: after a long outage, the log older than that is skipped. */
const MAX_PAGES = 20;

/**
 * Polls until `signal` aborts. The entries there before the first successful poll are history:
 * they are remembered as seen, not reported.
 */
export async function followRequestLogs(options: RequestLogFeedOptions): Promise<void> {
  const { signal, intervalMs = 1000, maxBackoffMs = 10_000 } = options;
  const seen = new SeenIds();
  let primed = false;
  let failures = 0;
  while (!signal.aborted) {
    try {
      // The first poll only marks the newest page as seen: history is not followed back.
      const entries = await unseenEntries(options.client, seen, signal, primed ? MAX_PAGES : 1);
      if (entries.length === MAX_PAGES * PAGE_SIZE) {
        options.onStatus(`More than ${entries.length} new requests since the last poll; older ones are skipped.`);
      }
      if (failures > 0) options.onStatus('Request log reachable again; following.');
      failures = 0;
      if (primed && entries.length > 0) options.onEntries(entries);
      if (!primed) options.onReady?.();
      primed = true;
    } catch (error) {
      if (signal.aborted) return;
      if (!isTransient(error)) throw error;
      failures++;
      const waitMs = Math.min(intervalMs * 2 ** failures, maxBackoffMs);
      options.onStatus(`Request log unavailable (${(error as Error).message}); retrying in ${Math.round(waitMs / 1000)} s…`);
      if (!(await pause(waitMs, signal))) return;
      continue;
    }
    if (!(await pause(intervalMs, signal))) return;
  }
}

/** The entries of the newest `maxPages` pages not in `seen`, oldest first; they are added to `seen`. */
async function unseenEntries(client: PaymentsClient, seen: SeenIds, signal: AbortSignal, maxPages: number): Promise<RequestLog[]> {
  const fresh: RequestLog[] = [];
  let startingAfter: string | undefined;
  for (let page = 1; page <= maxPages; page++) {
    const list = dataOrThrow(await client.listRequestLogs({ limit: PAGE_SIZE, starting_after: startingAfter }, { signal }));
    const unseen = list.data.filter((entry) => !seen.has(entry.id));
    fresh.push(...unseen);
    // A page with a seen entry on it reaches back to what was already read: older pages hold nothing new.
    const reachedSeen = unseen.length < list.data.length;
    if (reachedSeen || !list.has_more || list.data.length === 0) break;
    startingAfter = list.data[list.data.length - 1]!.id;
  }
  fresh.reverse();
  for (const entry of fresh) seen.add(entry.id);
  return fresh;
}

/** Failures that a server restart or overload explains: worth waiting out. */
function isTransient(error: unknown): boolean {
  if (error instanceof NetworkFailure) return true;
  return error instanceof ApiFailure && (error.status === 429 || error.status >= 500);
}

/** Waits `ms`; false if `signal` aborted meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
