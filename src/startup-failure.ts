/**
 * Why the process could not start, as one line for stderr (`payments-api: <what>: <why>`): each
 * start-up stage says what it was doing (`startupStage`), and the system's, the driver's or the
 * configuration's error says why, in words rather than a stack. What the start had opened by then
 * is closed in a fixed order (`OpenedResources`), as at shutdown.
 */
import type { Logger } from './logging/logger.js';

/** A start-up failure whose message is the whole line to print. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** System error codes a start meets (listen, connect, mkdir, open), in words. */
const SYSTEM_REASONS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use',
  EADDRNOTAVAIL: 'the address is not available on this machine',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (DNS failure)',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'is a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  SQLITE_CANTOPEN: 'cannot open the SQLite file (is DATA_DIR a writable directory?)',
  SQLITE_READONLY: 'the SQLite file is read-only',
  SQLITE_NOTADB: 'the file is not a SQLite database',
  SQLITE_CORRUPT: 'the SQLite file is corrupt',
};

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The reason an error gives, in words, on one line (never a stack). */
export function reasonOf(error: unknown): string {
  // Connecting to a name with several addresses fails with one error per address: the first says why.
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    path?: unknown;
    syscall?: unknown;
    severity?: unknown;
    message?: unknown;
    name?: unknown;
  };
  const message = typeof fields.message === 'string' ? fields.message : String(error);
  // Postgres' own errors carry a severity and a SQLSTATE; their message is the reason
  // (`database "x" does not exist`, `password authentication failed for user "y"`).
  if (typeof fields.severity === 'string') return oneLine(message);
  if (fields.name === 'KnexTimeoutError') return 'timed out waiting for a database connection';
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  const words = code ? SYSTEM_REASONS[code] : undefined;
  if (!words) return oneLine(message) || 'unknown error';
  if (typeof fields.path !== 'string') return words;
  return typeof fields.syscall === 'string' ? `${words} (${fields.syscall} ${fields.path})` : `${words} (${fields.path})`;
}

/** Runs one stage of the start; a failure becomes `<what>: <reason>`. */
export async function startupStage<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`${what}: ${reasonOf(error)}`, { cause: error });
  }
}

/** The line to print for any start-up failure. */
export function describeStartupFailure(error: unknown): string {
  return error instanceof StartupError ? oneLine(error.message) : `could not start: ${reasonOf(error)}`;
}

/** `host:port`, with brackets around an IPv6 address. */
export function hostAndPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * What a process has opened, each with how to close it, closed in a fixed order: at shutdown, and
 * after a failed start (then only what was opened by the time it failed).
 */
export class OpenedResources<Name extends string> {
  private readonly opened = new Map<Name, () => unknown>();

  /** `order`: the order things close in, whatever the order they were opened in. */
  constructor(private readonly order: readonly Name[]) {}

  /** Remembers how to close `name`, which is open now. */
  track(name: Name, close: () => unknown): void {
    this.opened.set(name, close);
  }

  /** Closes everything opened, in order; a close that fails does not stop the others. */
  async closeAll(logger?: Logger): Promise<void> {
    for (const name of this.order) {
      const close = this.opened.get(name);
      if (!close) continue;
      this.opened.delete(name);
      try {
        await close();
      } catch (err) {
        logger?.warn({ err }, `closing the ${name} failed`);
      }
    }
  }
}
