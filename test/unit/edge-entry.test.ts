import diagnosticsChannel from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { installEdge } from '../../src/edge/edge-entry.js';
import { requestClassesOf } from '../../src/edge/request-classes.js';

/** What a step sees of its request and response, and what it is given. */
type Seen = Record<string, unknown>;

function seenBy(app: Express, req: Request, res: Response): Seen {
  return {
    url: req.url,
    originalUrl: req.originalUrl,
    baseUrl: req.baseUrl,
    params: req.params,
    path: req.path,
    nextIsFunction: typeof req.next === 'function',
    circular: req.res === res && res.req === req,
    requestPrototype: Object.getPrototypeOf(req) === app.request,
    responsePrototype: Object.getPrototypeOf(res) === app.response,
    requestConstructor: req.constructor === http.IncomingMessage,
    responseConstructor: res.constructor === http.ServerResponse,
    app: req.app === app && res.app === app,
    locals: Object.getPrototypeOf(res.locals) === null ? 'null-prototype' : 'object',
    poweredBy: res.getHeader('X-Powered-By') ?? null,
  };
}

/**
 * The edge under test: what it does depends on the path. It records what it saw, then answers,
 * passes on, passes an error on, throws, rejects, or rewrites the URL and passes an error on.
 */
function testEdge(app: Express, seen: Seen[]): RequestHandler {
  return (req, res, next) => {
    seen.push({ at: 'edge', ...seenBy(app, req, res) });
    switch (req.path) {
      case '/answer':
        return void res.status(201).json({ answered: true });
      case '/pass':
        return next();
      case '/error':
        return next(Object.assign(new Error('refused'), { status: 418 }));
      case '/throw':
        throw Object.assign(new Error('thrown'), { status: 409 });
      case '/reject':
        return Promise.reject(Object.assign(new Error('rejected'), { status: 410 })) as never;
      case '/rewrite':
        req.url = '/v1/rewritten?x=1';
        return next(Object.assign(new Error('after rewrite'), { status: 422 }));
      case '/route':
        return next('route');
      default:
        return void res.json({ path: req.path });
    }
  };
}

/** An app as app.ts assembles it: the edge first, then error handlers. */
function anApp(entry: 'express' | 'direct', seen: Seen[], options: { poweredBy?: boolean } = {}) {
  const app = express();
  if (!options.poweredBy) app.disable('x-powered-by');
  const edge = testEdge(app, seen);
  if (entry === 'direct') installEdge(app, edge);
  else app.use(edge);
  const handleErrors: ErrorRequestHandler = (
    error: { status?: number; message: string },
    req,
    res,
    _next: NextFunction,
  ) => {
    seen.push({ at: 'error handler', ...seenBy(app, req, res), error: error.message });
    res.status(error.status ?? 500).json({ error: error.message });
  };
  app.use(handleErrors);
  return app;
}

async function serve(
  app: Express,
  classes: boolean,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = classes ? http.createServer(requestClassesOf(app), app) : http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Outcome {
  status: number;
  contentType: string | null;
  poweredBy: string | null;
  body: string;
  seen: Seen[];
}

/** Each request through the app, as the client gets it and as the steps saw it. */
async function outcomes(
  entry: 'express' | 'direct',
  classes: boolean,
  requests: Array<[method: string, path: string]>,
  options: { poweredBy?: boolean } = {},
): Promise<Outcome[]> {
  const seen: Seen[] = [];
  const server = await serve(anApp(entry, seen, options), classes);
  try {
    const results: Outcome[] = [];
    for (const [method, path] of requests) {
      seen.length = 0;
      const res = await fetch(`${server.url}${path}`, { method });
      results.push({
        status: res.status,
        contentType: res.headers.get('content-type'),
        poweredBy: res.headers.get('x-powered-by'),
        body: await res.text(),
        seen: [...seen],
      });
    }
    return results;
  } finally {
    await server.close();
  }
}

const REQUESTS: Array<[string, string]> = [
  ['GET', '/answer'],
  ['GET', '/v1/customers/cus_1?expand[]=x'],
  ['GET', '/pass'],
  ['OPTIONS', '/pass'],
  ['GET', '/error'],
  ['GET', '/throw'],
  ['GET', '/reject'],
  ['GET', '/rewrite'],
  ['GET', '/route'],
  ['POST', '/answer'],
];

describe('the edge entered directly (edge-entry.ts)', () => {
  for (const classes of [false, true]) {
    it(`answers, passes on and fails as Express's router does${classes ? ', over the request classes' : ''}`, async () => {
      const expected = await outcomes('express', classes, REQUESTS);
      const actual = await outcomes('direct', classes, REQUESTS);
      expect(actual).to.deep.equal(expected);
      // The cases are what they say: answered, Express's 404 page, the error handler's answers.
      expect(actual.map((outcome) => outcome.status)).to.deep.equal([
        201, 200, 404, 404, 418, 409, 410, 422, 404, 201,
      ]);
      expect(actual[7].seen[1]).to.include({
        at: 'error handler',
        url: '/v1/rewritten?x=1',
        originalUrl: '/rewrite',
      });
    });
  }

  it('sets X-Powered-By where the app leaves it enabled', async () => {
    const requests: Array<[string, string]> = [
      ['GET', '/answer'],
      ['GET', '/error'],
    ];
    const actual = await outcomes('direct', false, requests, { poweredBy: true });
    expect(actual).to.deep.equal(await outcomes('express', false, requests, { poweredBy: true }));
    expect(actual.map((outcome) => outcome.poweredBy)).to.deep.equal(['Express', 'Express']);
  });

  it("goes Express's way while the router is traced, so that every layer is reported", async () => {
    const layers: unknown[] = [];
    const channel = diagnosticsChannel.tracingChannel('express.router.request');
    const subscribers = {
      start: (message: unknown) =>
        layers.push((message as { handler?: { name?: string } }).handler?.name),
      end: () => {},
      asyncStart: () => {},
      asyncEnd: () => {},
      error: () => {},
    };
    channel.subscribe(subscribers);
    try {
      const [outcome] = await outcomes('direct', false, [['GET', '/answer']]);
      expect(outcome.status).to.equal(201);
    } finally {
      channel.unsubscribe(subscribers);
    }
    expect(layers).to.deep.equal(['edgeOrPassedOn']);
  });
});
