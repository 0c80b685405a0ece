import { Resolver } from 'node:dns/promises';
import type { LookupAll } from './ssrf.js';

export interface ResolverLookupOptions {
  /** DNS servers (`host` or `host:port`) instead of the system's (`/etc/resolv.conf`). */
  servers?: readonly string[];
  /** The first try's timeout; c-ares doubles it on each retry. */
  timeoutMs?: number;
  tries?: number;
  /** Look-ups in flight at once; more wait their turn. */
  concurrency?: number;
}

/** A name's A and AAAA records, through its own resolver. */
export interface ResolverLookup {
  lookup: LookupAll;
  /** Ends the queries in flight (they fail with ECANCELLED). */
  cancel(): void;
}

/**
 * Look-ups through a c-ares `Resolver` of their own: DNS queries on the event loop, not
 * `getaddrinfo` on libuv's threadpool (4 threads by default, shared with file and crypto work),
 * so that they never queue behind other look-ups, however slow those are. Unlike `dns.lookup` it
 * reads neither `/etc/hosts` nor the search domains; the names it is for (webhook receivers) are
 * public names with dots, and the connect-time check judges what the OS resolves them to.
 *
 * A name is resolved to every A and AAAA record; a name with neither, that does not exist, or
 * whose servers do not answer in time resolves to no address (it does not throw).
 */
export function createResolverLookup(options: ResolverLookupOptions = {}): ResolverLookup {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 500, tries: options.tries ?? 2 });
  if (options.servers) resolver.setServers([...options.servers]);
  const limit = options.concurrency ?? Infinity;
  let running = 0;
  const waiting: Array<() => void> = [];
  const turn = (): Promise<void> => {
    if (running < limit) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };
  // A finished look-up hands its place to the next one waiting, if any.
  const done = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  const records = (lookup: Promise<string[]>, family: number) =>
    lookup.then(
      (addresses) => addresses.map((address) => ({ address, family })),
      () => [],
    );
  return {
    async lookup(name) {
      await turn();
      try {
        const [v4, v6] = await Promise.all([records(resolver.resolve4(name), 4), records(resolver.resolve6(name), 6)]);
        return [...v4, ...v6];
      } finally {
        done();
      }
    },
    cancel: () => resolver.cancel(),
  };
}
