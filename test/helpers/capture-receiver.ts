import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as received (signatures are over these bytes). */
  body: string;
  receivedAt: number;
}

/** How the receiver answers its n-th request (0-based). */
export type Responder = (request: CapturedRequest, index: number) => { status: number; headers?: Record<string, string> };

/**
 * A webhook consumer on 127.0.0.1 that records every request. It plays the remote peer: tests
 * choose its answers (`respond`) to make deliveries fail, succeed or ask to retry later.
 */
export async function startCaptureReceiver(respond: Responder = () => ({ status: 200 }), options: { delayMs?: number } = {}) {
  const received: CapturedRequest[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      const answer = respond(request, received.length);
      received.push(request);
      for (const wake of waiters.splice(0)) wake();
      // A slow consumer keeps attempts in flight, e.g. to kill a worker in the middle of them.
      setTimeout(() => res.writeHead(answer.status, answer.headers).end('ok'), options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return {
    url,
    received,
    /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = 10_000): Promise<CapturedRequest[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
