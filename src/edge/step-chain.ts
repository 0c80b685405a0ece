import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run in order as one layer of Express's router, with `app.use`'s contract: a step
 * passes on with `next()`, leaves the chain for the error handlers with `next(error)`, and an error
 * it throws or a promise it returns that rejects is passed on the same way. Express allocates a set
 * of closures per layer and per request; the steps every API request passes are one layer.
 */
export function chain(
  steps: ReadonlyArray<RequestHandler | readonly RequestHandler[]>,
): RequestHandler {
  const flat = steps.flat();
  // An error handler (four parameters) belongs after the chain, where Express calls it with the error.
  if (flat.some((step) => step.length === 4))
    throw new Error('An error handler cannot be a step of a chain');
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error) return done(error);
      if (index === flat.length) return done();
      const step = flat[index++];
      try {
        const result: unknown = step(req, res, next);
        if (result instanceof Promise)
          result.catch((rejected: unknown) => next(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}
