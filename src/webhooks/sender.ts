import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createResolverLookup } from '../resources/webhook-endpoints/resolver-lookup.js';
import { isForbiddenAddress, type LookupAll } from '../resources/webhook-endpoints/ssrf.js';

/** What one HTTP attempt produced; `status` is absent when no response arrived. */
export interface SendResult {
  status?: number;
  retryAfter?: string;
  /** The first `RESPONSE_CAPTURE_BYTES` of the response body. */
  body: string;
  error?: string;
  durationMs: number;
}

export interface SenderOptions {
  allowPrivateNetworks: boolean;
  /** Connections kept per receiving host (64): the worker's concurrency, so no attempt queues for one. */
  maxSocketsPerHost?: number;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /**
   * Resolve names by asking these DNS servers (`host:port`) with a resolver of the sender's own
   * (tests, whose DNS is a fake peer); left out, the OS resolver (`getaddrinfo`, `/etc/hosts`).
   */
  dnsServers?: readonly string[];
}

export type Sender = (url: string, body: string, headers: Record<string, string>) => Promise<SendResult>;

const RESPONSE_CAPTURE_BYTES = 4096;
/** A response body is read (to keep the connection reusable) up to this size, then dropped. */
const RESPONSE_DRAIN_LIMIT = 1024 * 1024;

/**
 * POSTs webhook payloads over keep-alive connections (node:http: several times the throughput
 * of fetch here). Redirects are never followed. Unless private networks are allowed, the address
 * a name resolves to is checked at connect time, so a DNS answer cannot smuggle a request to a
 * private or metadata address.
 */
export function createSender(options: SenderOptions): { send: Sender; close(): void } {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const totalTimeoutMs = options.totalTimeoutMs ?? 15_000;
  const resolver = options.dnsServers && createResolverLookup({ servers: options.dnsServers });
  const resolve = resolver ? resolverLookup(resolver.lookup) : dns.lookup;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const refused = options.allowPrivateNetworks ? undefined : addresses.find((a) => isForbiddenAddress(a.address));
      if (refused) return callback(new Error(`refused: ${hostname} resolves to ${refused.address}`), '', 4);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
  const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerHost ?? 64, lookup };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  const send: Sender = (url, body, headers) =>
    new Promise((resolve) => {
      const started = performance.now();
      const done = (result: Omit<SendResult, 'durationMs'>) =>
        resolve({ ...result, durationMs: Math.round(performance.now() - started) });
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, '');
      // A literal address is never looked up, so it is checked here.
      if (!options.allowPrivateNetworks && isIP(host) && isForbiddenAddress(host)) {
        return done({ body: '', error: `refused: ${host} is a private or reserved address` });
      }
      const protocol = target.protocol === 'https:' ? https : http;
      const request = protocol.request(target, {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'payments-api-webhooks/1', ...headers },
      });
      const total = setTimeout(() => request.destroy(new Error(`timed out after ${totalTimeoutMs} ms`)), totalTimeoutMs);
      request.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connect = setTimeout(() => request.destroy(new Error(`connect timed out after ${connectTimeoutMs} ms`)), connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connect));
        socket.once('close', () => clearTimeout(connect));
      });
      request.on('error', (error) => {
        clearTimeout(total);
        done({ body: '', error: error.message.slice(0, 500) });
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let captured = 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (captured < RESPONSE_CAPTURE_BYTES) {
            chunks.push(chunk.subarray(0, RESPONSE_CAPTURE_BYTES - captured));
            captured += Math.min(chunk.length, RESPONSE_CAPTURE_BYTES - captured);
          }
          if (read > RESPONSE_DRAIN_LIMIT) response.destroy();
        });
        response.on('close', () => {
          clearTimeout(total);
          const retryAfter = response.headers['retry-after'];
          done({
            status: response.statusCode,
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      request.end(body);
    });

  return {
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
      resolver?.cancel();
    },
  };
}

/** `dns.lookup(name, {all: true}, callback)` over a `LookupAll`; a name without addresses is ENOTFOUND. */
function resolverLookup(lookupAll: LookupAll) {
  return (hostname: string, _options: dns.LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => {
    lookupAll(hostname).then((addresses) => {
      if (addresses.length > 0) return callback(null, addresses);
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), []);
    }, (error: Error) => callback(error, []));
  };
}
