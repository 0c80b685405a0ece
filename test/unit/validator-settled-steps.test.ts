import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { loadSpec } from '../../src/operations/spec.js';
import {
  callSettledSteps,
  type ValidatorInstance,
} from '../../src/http/validator-settled-steps.js';

/** The validator over the spec with the options src/http/spec-validator.ts gives it, and its instance. */
function aValidator(): { middleware: RequestHandler[]; instance: ValidatorInstance } {
  const middleware = OpenApiValidator.middleware({
    apiSpec: structuredClone(loadSpec()) as never,
    validateApiSpec: false,
    validateRequests: {
      allowUnknownQueryParameters: false,
      coerceTypes: false,
      removeAdditional: false,
    },
    validateResponses: false,
    validateFormats: true,
    useRequestUrl: true,
    validateSecurity: false,
  }) as unknown as RequestHandler[];
  const instance = (OpenApiValidator.middleware as unknown as { _oav: ValidatorInstance })._oav;
  return { middleware, instance };
}

/**
 * An app with the validator's steps, answering what they left on the request, or the error they
 * raised. `sameTurn` says whether the steps after the security step ran in the turn of the event
 * loop the request reached them in (no promise between them).
 */
async function serve(steps: RequestHandler[]): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(express.json());
  const security = steps.findIndex((step) => step.name === 'securityMiddleware');
  const markTurn: RequestHandler = (_req, res, next) => {
    res.locals.sameTurn = true;
    queueMicrotask(() => (res.locals.sameTurn = false));
    next();
  };
  app.use(...steps.slice(0, security + 1), markTurn, ...steps.slice(security + 1));
  app.use((req, res) => {
    res.setHeader('Same-Turn', String(res.locals.sameTurn));
    res.json({
      operationId: req.openapi?.schema.operationId,
      params: req.params,
      query: req.query,
      body: req.body as unknown,
    });
  });
  const answerError: ErrorRequestHandler = (
    error: { status?: number; message: string; errors?: unknown },
    _req,
    res,
    _next,
  ) => {
    res.status(error.status ?? 500).json({ message: error.message, errors: error.errors });
  };
  app.use(answerError);
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const REQUESTS: Array<{ method: string; path: string; body?: unknown; type?: string }> = [
  { method: 'GET', path: '/v1/customers/cus_123' },
  { method: 'GET', path: '/v1/customers/cus_%E2%82%AC' },
  { method: 'GET', path: '/v1/customers?limit=5' },
  { method: 'GET', path: '/v1/customers?limit=abc' },
  { method: 'GET', path: '/v1/customers?limit=1000' },
  { method: 'GET', path: '/v1/customers?unknown=1' },
  { method: 'GET', path: '/v1/customers?email=a%40example.com&limit=3' },
  { method: 'GET', path: '/v1/nothing-here' },
  { method: 'DELETE', path: '/v1/charges/ch_1' },
  { method: 'POST', path: '/v1/customers', body: { email: 'a@example.com', name: 'A' } },
  { method: 'POST', path: '/v1/customers', body: { email: 12 } },
  { method: 'POST', path: '/v1/customers', body: { unexpected_field: 'x' } },
  { method: 'POST', path: '/v1/customers', body: { metadata: { order: 6735 } } },
  { method: 'POST', path: '/v1/customers', body: 'email=a', type: 'text/plain' },
  { method: 'POST', path: '/v1/charges', body: { amount: 'ten', currency: 'usd' } },
  {
    method: 'POST',
    path: '/v1/charges',
    body: { amount: 1000, currency: 'usd', source: 'tok_visa' },
  },
];

interface Answer {
  status: number;
  body: unknown;
  sameTurn: string | null;
}

/** Every request, twice over (the first ones build the validator's steps), through the steps. */
async function answers(steps: RequestHandler[]): Promise<Answer[]> {
  const server = await serve(steps);
  try {
    const results: Answer[] = [];
    for (let round = 0; round < 2; round++)
      for (const request of REQUESTS) {
        const res = await fetch(`${server.url}${request.path}`, {
          method: request.method,
          headers:
            request.body === undefined
              ? {}
              : { 'Content-Type': request.type ?? 'application/json' },
          body:
            request.body === undefined
              ? undefined
              : typeof request.body === 'string'
                ? request.body
                : JSON.stringify(request.body),
        });
        results.push({
          status: res.status,
          body: await res.json(),
          sameTurn: res.headers.get('same-turn'),
        });
      }
    return results;
  } finally {
    await server.close();
  }
}

describe("express-openapi-validator's steps called directly once built (validator-settled-steps.ts)", function () {
  this.timeout(120_000);

  it("gives every request the validator's own answer, without waiting on its spec again", async () => {
    const own = aValidator();
    const expected = await answers(own.middleware);
    const settled = aValidator();
    const actual = await answers(callSettledSteps(settled.instance, settled.middleware));
    const withoutTurn = (list: Answer[]) => list.map(({ sameTurn: _turn, ...answer }) => answer);
    expect(withoutTurn(actual)).to.deep.equal(withoutTurn(expected));
    // Valid and invalid requests both: 200s, 400s, a 404, a 405, a 415.
    const statuses = new Set(actual.map((answer) => answer.status));
    for (const status of [200, 400, 404, 405, 415]) expect(statuses).to.include(status);
    // The validator's wrappers wait a turn for the spec on every request; past the first requests,
    // the steps called directly do not.
    const validated = (list: Answer[]) =>
      list.slice(REQUESTS.length).filter((answer) => answer.status === 200);
    expect(validated(expected).map((answer) => answer.sameTurn)).to.satisfy((turns: string[]) =>
      turns.every((turn) => turn === 'false'),
    );
    expect(validated(actual).map((answer) => answer.sameTurn)).to.satisfy(
      (turns: string[]) => turns.length > 0 && turns.every((turn) => turn === 'true'),
    );
  });
});
