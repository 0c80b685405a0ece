import net from 'node:net';

/** A response read off a raw socket. */
export interface RawResponse {
  status: number;
  /** Header names lower-case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the connection being opened to the response's last byte. */
  afterMs: number;
}

/**
 * A bare TCP connection to the server, for what `fetch` cannot do: send a partial request and
 * stall, repeat a header, hold a keep-alive connection idle. Nothing is sent but what the test writes.
 */
export class RawConnection {
  private readonly socket: net.Socket;
  private readonly openedAt = Date.now();
  private received = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  /** Resolves with the milliseconds from opening to the server closing (or resetting) the connection. */
  readonly closed: Promise<number>;
  private isClosed = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    // A reset after the server gave up on us is an ending like any other here.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.wake();
        resolve(Date.now() - this.openedAt);
      }),
    );
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Whether the server has closed the connection so far. */
  get isOpen(): boolean {
    return !this.isClosed;
  }

  /**
   * The next complete response (headers and a `Content-Length` body), or a failure after
   * `boundMs` (a bound against hanging, not a measurement) or when the connection closes first.
   */
  async response(boundMs = 15_000): Promise<RawResponse> {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const parsed = this.takeResponse();
      if (parsed) return parsed;
      if (this.isClosed)
        throw new Error(
          `connection closed without a complete response; received: ${JSON.stringify(this.received.toString())}`,
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no response within ${boundMs} ms; received: ${JSON.stringify(this.received.toString())}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves once the server closes the connection; fails after `boundMs`. */
  async closedWithin(boundMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the server kept the connection open for ${boundMs} ms`)),
        boundMs,
      );
    });
    try {
      return await Promise.race([this.closed, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }

  private takeResponse(): RawResponse | null {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.received.length < end + 4 + length) return null;
    const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
    this.received = this.received.subarray(end + 4 + length);
    return {
      status: Number(statusLine.split(' ')[1]),
      headers,
      body,
      afterMs: Date.now() - this.openedAt,
    };
  }
}

/** A request's head as raw text: request line, `Host`, the given headers, and the blank line. */
export function requestHead(
  method: string,
  path: string,
  headers: Array<[string, string]>,
): string {
  return [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...headers.map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
}
