import type { RequestHandler, Response } from 'express';
import { newId } from '../domain/ids.js';

/** Gives a request its id (`req_…`), sent back as `Request-Id` and used in logs and errors. */
export function giveRequestId(res: Response): void {
  const id = newId('request');
  res.locals.requestId = id;
  res.setHeader('Request-Id', id);
}

/** `giveRequestId` as a step (the worker's listener; the edge's first step gives it itself). */
export const assignRequestId: RequestHandler = (_req, res, next) => {
  giveRequestId(res);
  next();
};

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'req_unknown';
}
