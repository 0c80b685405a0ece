import type { RequestHandler, Response } from 'express';
import { newId } from '../domain/ids.js';

/** Gives every request an id (`req_…`), sent back as `Request-Id` and used in logs and errors. */
export const assignRequestId: RequestHandler = (_req, res, next) => {
  const id = newId('request');
  res.locals.requestId = id;
  res.setHeader('Request-Id', id);
  next();
};

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'req_unknown';
}
