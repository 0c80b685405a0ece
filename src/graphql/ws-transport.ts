import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import type { WebSocketServer } from 'ws';
import type { Logger } from '../logging/logger.js';

/** How often an idle connection is pinged, and how long its pong may take before it is cut. */
const KEEP_ALIVE_MS = 12_000;

/**
 * Serves the graphql-ws protocol on a `ws` server through graphql-ws's own `makeServer`, as its
 * `useServer` does (subprotocol check, keep-alive pings, dispose), with two differences: errors of
 * sockets and message handling go to the process's logger instead of `console`, and a close
 * reason never carries an error's message, whatever `NODE_ENV` says. A client's oversized or
 * malformed frame is its own fault: logged at `warn`.
 */
export function serveGraphQLWs<P extends Record<string, unknown>, E extends Record<PropertyKey, unknown>>(
  options: ServerOptions<P, Extra & Partial<E>>,
  wss: WebSocketServer,
  logger: Logger,
): { dispose(): Promise<void> } {
  const server = makeServer(options);
  wss.options.handleProtocols = handleProtocols;
  wss.on('error', (error) => logger.error({ err: error }, 'GraphQL WebSocket server failed'));

  wss.on('connection', (socket, request) => {
    socket.once('error', (error) => {
      logger.warn({ err: error, url: request.url }, 'GraphQL WebSocket connection error');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    });

    let pongWait: NodeJS.Timeout | undefined;
    const pings = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), KEEP_ALIVE_MS);
      socket.once('pong', () => clearTimeout(pongWait));
      socket.ping();
    }, KEEP_ALIVE_MS);

    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (error) {
              logger.error({ err: error }, 'GraphQL WebSocket message handling failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request } as Extra & Partial<E>,
    );

    socket.once('close', (code, reason) => {
      clearTimeout(pongWait);
      clearInterval(pings);
      closed(code, String(reason)).catch((error: unknown) => logger.error({ err: error }, 'GraphQL WebSocket cleanup failed'));
    });
  });

  return {
    async dispose() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
