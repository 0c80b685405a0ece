import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a server (Postgres), that plays the network and the
 * server's restarts: it can cut every connection through it at once, and refuse new ones for a
 * while (each is accepted and reset at once, as a server that is not there yet), then let them
 * through again. Point a process's `DATABASE_URL` at its port.
 */
export interface TcpFaultProxy {
  port: number;
  /** Connections open through it now. */
  readonly open: number;
  /** Resets every connection through it: clients see their sockets fail mid-statement. */
  cutAll(): void;
  /** Refuses (resets) new connections until `allow()`; with `count`, only that many more. */
  refuse(count?: number): void;
  allow(): void;
  close(): Promise<void>;
}

export async function startTcpFaultProxy(upstreamPort: number, upstreamHost = '127.0.0.1'): Promise<TcpFaultProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  /** How many more connections to refuse (Infinity: until allowed). */
  let refusing = 0;
  const server = net.createServer((client) => {
    if (refusing > 0) {
      refusing -= 1;
      return void client.resetAndDestroy();
    }
    const upstream = net.connect(upstreamPort, upstreamHost);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      pairs.delete(pair);
      if (!client.destroyed) client.resetAndDestroy();
      if (!upstream.destroyed) upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = () => {
    for (const { client, upstream } of [...pairs]) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    get open() {
      return pairs.size;
    },
    cutAll,
    refuse: (count = Number.POSITIVE_INFINITY) => void (refusing = count),
    allow: () => void (refusing = 0),
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
