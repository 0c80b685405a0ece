import { pino, type Logger } from 'pino';
import type { RequestHandler } from 'express';
import { requestIdOf } from './http/request-id.js';

export type { Logger };

/** Structured JSON logs on stdout. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

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
