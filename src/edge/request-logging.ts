import type { RequestHandler } from 'express';
import type { Logger } from '../logging/logger.js';
import { requestIdOf } from './request-id.js';

/** One line per request, with its id, once the response is sent (install it only at `info`). */
export function logRequests(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info({
        req_id: requestIdOf(res),
        method: req.method,
        path: req.originalUrl,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}
