/**
 * Telling a broken connection from a refused statement, in Postgres' and Node's errors: only the
 * first is worth retrying (the statement itself was fine), and only it is a 503.
 */
import { DatabaseUnavailableError } from '../domain/errors.js';

/** Errors of the socket: the server is not there, or it went away. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * SQLSTATEs of a session that ends or cannot start: class 08 (connection exception), the server
 * shutting down or terminating the backend (`pg_terminate_backend` is 57P01), starting up, or out of
 * connection slots.
 */
const SESSION_STATES = /^(08...|57P0[1-3]|53300)$/;

/** pg's own messages for a connection that broke or was never made. */
const DRIVER_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/** pg's refusal of a query on a connection already known to be broken: it sent nothing. */
const NOT_SENT = /^Client has encountered a connection error and is not queryable/;

/** Whether `error` says the connection to the database failed or broke, rather than that a statement was refused. */
export function isConnectionFault(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as NodeJS.ErrnoException;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SESSION_STATES.test(code))) return true;
  if (DRIVER_MESSAGES.test(error.message)) return true;
  // Node reports a refused connection to every address of a host as one AggregateError.
  return error instanceof AggregateError && error.errors.some(isConnectionFault);
}

/** Whether `error` is pg refusing to send a statement on a connection it knows is broken (safe to retry elsewhere). */
export function wasNotSent(error: unknown): boolean {
  return error instanceof Error && NOT_SENT.test(error.message);
}

/** A broken connection's error as a 503; any other error as it is. */
export function asUnavailable(error: unknown): unknown {
  return isConnectionFault(error) ? new DatabaseUnavailableError(error) : error;
}
