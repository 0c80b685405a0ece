import { createResolverLookup } from './resolver-lookup.js';
import type { LookupAll } from './ssrf.js';

/**
 * Webhook URL registration's DNS look-ups: a resolver of its own, apart from the worker's (which
 * resolves at connect time through the OS), so that deliveries retried to names that never
 * resolve cannot make registration wait or skip its check. A few look-ups at a time
 * (`REGISTRATION_LOOKUPS`): registration is rare, and a burst of it should not flood the servers.
 */
const REGISTRATION_LOOKUPS = 8;
/** c-ares's first try; the second waits twice as long, both within ssrf.ts's 2 s for the whole check. */
const TRY_TIMEOUT_MS = 500;
const TRIES = 2;

const lookups = new Map<string, LookupAll>();

/** The registration look-up asking `servers` (tests), or the system's DNS servers; one per process each. */
export function registrationLookup(servers?: readonly string[]): LookupAll {
  const key = servers?.join(',') ?? '';
  let lookup = lookups.get(key);
  if (!lookup) {
    lookup = createResolverLookup({ servers, timeoutMs: TRY_TIMEOUT_MS, tries: TRIES, concurrency: REGISTRATION_LOOKUPS }).lookup;
    lookups.set(key, lookup);
  }
  return lookup;
}
