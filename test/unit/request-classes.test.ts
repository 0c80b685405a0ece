import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { type Express } from 'express';
import { requestClassesOf } from '../../src/edge/request-classes.js';

/** An object's prototypes, nearest first. */
function prototypesOf(value: object): object[] {
  const chain: object[] = [];
  for (
    let proto = Object.getPrototypeOf(value) as object | null;
    proto;
    proto = Object.getPrototypeOf(proto) as object | null
  )
    chain.push(proto);
  return chain;
}

interface Observed {
  /** The request's and response's prototypes as the server made them, before the app ran. */
  bornRequest: object;
  bornResponse: object;
  /** Their prototype chains as the app's handler sees them. */
  request: object[];
  response: object[];
  requestConstructor: unknown;
  responseConstructor: unknown;
  answer: { status: number; body: unknown };
}

async function observe(app: Express, classes: boolean): Promise<Observed> {
  const observed: Partial<Observed> = {};
  app.get('/thing', (req, res) => {
    observed.request = prototypesOf(req);
    observed.response = prototypesOf(res);
    observed.requestConstructor = req.constructor;
    observed.responseConstructor = res.constructor;
    res.status(202).json({ path: req.path, query: req.query, accepts: req.accepts('json') });
  });
  const server = classes ? http.createServer(requestClassesOf(app), app) : http.createServer(app);
  server.prependListener('request', (req, res) => {
    observed.bornRequest = Object.getPrototypeOf(req) as object;
    observed.bornResponse = Object.getPrototypeOf(res) as object;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/thing?a=1`, {
      headers: { accept: 'application/json' },
    });
    observed.answer = { status: res.status, body: await res.json() };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return observed as Observed;
}

describe('requests born with the app prototypes (request-classes.ts)', () => {
  it("gives a request and a response the app's prototypes when they are made", async () => {
    const app = express();
    const observed = await observe(app, true);
    expect(observed.bornRequest).to.equal(app.request);
    expect(observed.bornResponse).to.equal(app.response);
  });

  it('leaves what the app sees as it was: prototype chains, their properties, constructors, answers', async () => {
    const plainApp = express();
    const plain = await observe(plainApp, false);
    const app = express();
    const born = await observe(app, true);
    // Without the classes, a request is made an IncomingMessage and given the app's prototype on arrival.
    expect(plain.bornRequest).to.equal(http.IncomingMessage.prototype);
    expect(born.request[0]).to.equal(app.request);
    expect(plain.request[0]).to.equal(plainApp.request);
    // Past each app's own prototype, the same objects: Express's request and response, then Node's.
    expect(born.request.slice(1)).to.deep.equal(plain.request.slice(1));
    expect(born.response.slice(1)).to.deep.equal(plain.response.slice(1));
    expect(born.request[1]).to.equal(express.request);
    expect(born.response[1]).to.equal(express.response);
    // The app's prototypes hold what they held (`app`), and no constructor of their own.
    expect(Reflect.ownKeys(app.request)).to.deep.equal(Reflect.ownKeys(plainApp.request));
    expect(Reflect.ownKeys(app.response)).to.deep.equal(Reflect.ownKeys(plainApp.response));
    expect((app.request as { app?: unknown }).app).to.equal(app);
    expect(born.requestConstructor).to.equal(http.IncomingMessage);
    expect(born.responseConstructor).to.equal(http.ServerResponse);
    expect(born.answer).to.deep.equal(plain.answer);
    expect(born.answer.status).to.equal(202);
  });

  it('makes the classes once per app, for each of its servers', () => {
    const app = express();
    const classes = requestClassesOf(app);
    const prototype = app.request;
    expect(requestClassesOf(app)).to.equal(classes);
    expect(app.request).to.equal(prototype);
    expect(requestClassesOf(express())).not.to.equal(classes);
  });
});
