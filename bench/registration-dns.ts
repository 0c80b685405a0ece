/**
 * A one-off measurement (`npx tsx bench/registration-dns.ts`): how long `POST /v1/webhook_endpoints`
 * takes, DNS check included, while the webhook worker retries 1,000 deliveries to names whose DNS
 * never answers and libuv's threadpool is held (as the OS resolver's `getaddrinfo` calls hold it
 * when they wait on an unreachable DNS server). The names' DNS is a fake server on 127.0.0.1: it
 * answers registration's names at once and never answers the worker's. Prints p50/p99 of the
 * registrations, and what a look-up through the OS resolver takes in the same conditions.
 */
import { execFileSync } from 'node:child_process';
import dns from 'node:dns';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeDns } from '../test/helpers/fake-dns.js';
import { startTestServer } from '../test/helpers/test-server.js';

const ENDPOINTS = 50;
const EVENTS = 20; // 50 × 20 = 1,000 deliveries
const REGISTRATIONS = 200;
/** libuv's threadpool size (UV_THREADPOOL_SIZE, 4 by default). */
const POOL = Number(process.env.UV_THREADPOOL_SIZE ?? 4);

let stuck: 'nxdomain' | 'silent' = 'nxdomain';
const fake = await startFakeDns((name) => {
  if (name.endsWith('.stuck.test')) return stuck;
  if (name === 'private.hooks.test') return ['10.0.0.7'];
  if (name === 'public.hooks.test') return ['93.184.215.14'];
  return 'nxdomain';
});
const server = await startTestServer('sqlite', { webhookWorker: { retryScheduleSeconds: [1, 1, 1, 1, 1, 1] }, dnsServers: [fake.server] });
const post = (body: unknown) =>
  fetch(`${server.url}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.apiKeys.first}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

for (let i = 0; i < ENDPOINTS; i++) await post({ url: `https://hook-${i}.stuck.test/`, enabled_events: ['customer.created'] });
stuck = 'silent';
for (let i = 0; i < EVENTS; i++) await server.api.post('/v1/customers', { email: `c${i}@example.com` });

// Hold every thread of the pool, as stuck getaddrinfo calls would: opening a FIFO's read end blocks until a writer comes.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-'));
const fifos = Array.from({ length: POOL }, (_, i) => path.join(dir, `fifo-${i}`));
for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
const held = fifos.map((fifo) => fs.promises.open(fifo, 'r'));
await new Promise((resolve) => setTimeout(resolve, 2000)); // the worker's look-ups start and get stuck
const workerQueries = new Set(fake.queries.map((q) => q.name).filter((name) => name.endsWith('.stuck.test'))).size;

const timings: number[] = [];
let refused = 0;
for (let i = 0; i < REGISTRATIONS; i++) {
  const name = i % 2 === 0 ? 'public.hooks.test' : 'private.hooks.test';
  const started = performance.now();
  const res = await post({ url: `https://${name}/hook-${i}`, enabled_events: ['customer.created'] });
  timings.push(performance.now() - started);
  if (res.status === 400) refused += 1;
  await res.text();
}
const osStarted = performance.now();
const osOutcome = await Promise.race([
  dns.promises.lookup('public.hooks.test').then(() => 'answered', (error: NodeJS.ErrnoException) => error.code),
  new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2000)),
]);
const osMs = performance.now() - osStarted;

for (const fifo of fifos) fs.closeSync(fs.openSync(fifo, 'w'));
for (const handle of await Promise.all(held)) await handle.close();
fs.rmSync(dir, { recursive: true, force: true });

timings.sort((a, b) => a - b);
const at = (q: number) => timings[Math.min(timings.length - 1, Math.ceil(q * timings.length) - 1)].toFixed(1);
console.log(`worker: ${ENDPOINTS * EVENTS} deliveries, ${workerQueries} of ${ENDPOINTS} stuck names queried; threadpool: ${POOL} of ${POOL} threads held`);
console.log(`registration: ${REGISTRATIONS} requests, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms; ${refused} private answers refused of ${REGISTRATIONS / 2}`);
console.log(`the OS resolver (getaddrinfo) in the same conditions: ${osOutcome} after ${osMs.toFixed(0)} ms`);
await server.close();
await fake.close();
