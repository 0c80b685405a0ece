import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthFailure } from '../auth/authenticator.js';
import type { ApiError } from '../domain/errors.js';
import './request-state.js';

/** The credentials a request must carry: an account's, the operator's HTTP Basic, or none. */
export type CredentialsAsked = 'account' | 'admin' | null;

/**
 * A door into the services (REST, GraphQL) as the edge sees it. The edge picks a request's door
 * once, by the path it arrived on, and from then on asks the door rather than the path: which
 * credentials to check, how to word a refusal, and who serves the request once it is let through.
 */
export interface Door {
  /** What metrics call this door's requests that matched no operation of the spec. */
  label: string;
  /** The credentials authentication checks before the body is read; null: none (pages, probes). */
  credentialsFor(req: Request): CredentialsAsked;
  /** Runs before authentication: a browser's preflight carries no credential. */
  welcome?: RequestHandler;
  /** Refuses a request before its body is read, in the door's shape, status and headers kept. */
  refuse(error: ApiError, req: Request, res: Response, next: NextFunction): void;
  /** Answers credentials authentication refused (`req.authFailure` holds the verdict too). */
  refuseCredentials(failure: AuthFailure, req: Request, res: Response, next: NextFunction): void;
  /** The body of a refusal the edge writes itself, when no later step may run (the body timer's 408). */
  refusalBody(error: ApiError, requestId: string): object;
  /** Serves a request the edge let through. */
  serve: RequestHandler;
}

/** Where the doors are mounted: each at one exact path, and the one that takes every other path. */
export interface Doors {
  mounted: Readonly<Record<string, Door>>;
  otherwise: Door;
}

/** The door the edge picked for the request (set by its first step). */
export function doorOf(req: Request): Door {
  return req.door!;
}
