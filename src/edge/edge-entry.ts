import diagnosticsChannel from 'node:diagnostics_channel';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** What the edge passed on with `next(...)`, for the app's router to carry on from. */
interface PassedOn {
  error: unknown;
}

/** Requests the edge passed on, between the edge's `next` and the app's router taking them up. */
const passedOn = new WeakMap<Request, PassedOn>();

/** Express's router reports each layer it runs here; with a subscriber, every request goes its way. */
const routerTracing = diagnosticsChannel.tracingChannel('express.router.request');

type Handle = (req: Request, res: Response, callback?: NextFunction) => void;

/**
 * Installs the edge as the app's first layer, and lets a request enter it directly: Express's own
 * entry (`app.handle`, then its router's `handle` finding the first layer, mounted at `/`) builds a
 * final handler, a restore closure, the router's state and closures, and a match per request
 * (1 KB of the 33 a GET allocated once requests were born with the app's prototypes). A request the edge answers never needed them; one it passes
 * on (`next()`, `next(error)`) is handed to Express's entry then, and the app's first layer
 * passes it on at once with the same argument, to the error handlers and Express's final handler,
 * as if the edge had been run by the router.
 *
 * The request is prepared as Express prepares it for its first layer: `req.res` and `res.req`,
 * the app's request and response prototypes, `res.locals`, `req.baseUrl` (''), `req.originalUrl`,
 * `req.params` ({}), `req.next`, and `X-Powered-By` where enabled. Express's own way is kept for a
 * mounted app (a callback given) and while anyone traces the router (diagnostics channel
 * `express.router.request`), whose events name each layer. test/unit/edge-entry.test.ts compares
 * what the steps see and what the client gets, both ways.
 */
export function installEdge(app: Express, edge: RequestHandler): void {
  app.use(function edgeOrPassedOn(req: Request, res: Response, next: NextFunction) {
    const passed = passedOn.get(req);
    if (!passed) return edge(req, res, next);
    passedOn.delete(req);
    next(passed.error);
  });
  const expressHandle = (app as unknown as { handle: Handle }).handle;
  (app as unknown as { handle: Handle }).handle = function handle(req, res, callback) {
    if (callback || isTraced()) return expressHandle.call(this, req, res, callback);
    // What app.handle does before its router…
    if (app.enabled('x-powered-by')) res.setHeader('X-Powered-By', 'Express');
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    if (!res.locals) res.locals = Object.create(null) as Response['locals'];
    // …and what its router sets for a layer mounted at `/`.
    req.baseUrl = '';
    req.originalUrl = req.originalUrl || req.url;
    req.params = {};
    const next: NextFunction = (error?: unknown) => {
      passedOn.set(req, { error });
      expressHandle.call(app, req, res);
    };
    req.next = next;
    // As the router runs a layer: a throw, or a promise it returns that rejects, is passed on.
    try {
      const result: unknown = edge(req, res, next);
      if (result instanceof Promise)
        result.then(undefined, (rejected: unknown) =>
          next(rejected || new Error('Rejected promise')),
        );
    } catch (thrown) {
      next(thrown);
    }
  };
}

/** The router's own test (`shouldTrace`): any subscriber to any of the channel's events. */
function isTraced(): boolean {
  const { start, end, asyncStart, asyncEnd, error } = routerTracing;
  return (
    start.hasSubscribers ||
    end.hasSubscribers ||
    asyncStart.hasSubscribers ||
    asyncEnd.hasSubscribers ||
    error.hasSubscribers
  );
}
