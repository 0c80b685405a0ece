import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a database server that counts round trips: the times a
 * client speaks again after the server answered it. Statements a client pipelines (sends without
 * waiting) count as one round trip; statements it sends one after another's answer count one each.
 *
 * Answers are held for `latencyMs` on their way back, as from a database across a network: what a
 * client sends without waiting (within one turn of its event loop) reaches the proxy long before
 * any answer could, however the machine schedules the processes, so the count does not depend on
 * timing.
 */
export interface RoundTripProxy {
  /** The proxy's port: give clients the server's URL with this port. */
  port: number;
  /** Round trips on every connection since the last `reset`. */
  roundTrips(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startRoundTripProxy(upstreamPort: number, latencyMs = 20): Promise<RoundTripProxy> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    // Whether the server has spoken since the client last did: the client's next words start a round trip.
    let answered = true;
    client.on('data', (chunk) => {
      if (answered) count += 1;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      // Timers of one delay fire in the order they were set: the answers keep their order.
      setTimeout(() => {
        answered = true;
        if (!client.destroyed) client.write(chunk);
      }, latencyMs);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    roundTrips: () => count,
    reset: () => void (count = 0),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
