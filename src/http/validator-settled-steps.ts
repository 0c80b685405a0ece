import type { RequestHandler } from 'express';

/** The part of express-openapi-validator's instance (`OpenApiValidator`) used here. */
export interface ValidatorInstance {
  installPathParams(app: unknown, context: unknown): void;
  multipartMiddleware(apiDoc: unknown): RequestHandler;
  requestValidationMiddleware(apiDoc: unknown): RequestHandler;
}

/**
 * express-openapi-validator 5.6.2 wraps each of its steps in a wait for the spec it loads at
 * start (`pContext.then(() => step(req, res, next)).catch(next)`), on every request: two promises,
 * their closures and a turn of the microtask queue per step, for three steps a request (path
 * parameters, multipart bodies, request validation). The wait stops waiting once the spec has
 * loaded, but the promises are made every time.
 *
 * Once a step has run for the first time (the spec loaded, the step built), its replacement here
 * calls what the wrapper would call a microtask later, directly: the step the validator built, the
 * same function (held when the validator's instance builds it), or for the path parameters, once
 * installed, `next()`. Until then, and if the spec failed to load, the request goes through the
 * wrapper. An error the step throws goes to `next(error)`, as the wrapper's `catch` sends it (the
 * step chain catches it). Every request is validated by the validator's own step, as before:
 * test/unit/validator-settled-steps.test.ts compares both ways' answers to valid and invalid
 * requests. Remove once the validator builds its steps once its spec is loaded.
 *
 * `validator` is the instance that made `middleware` (the validator's `middleware._oav`).
 */
export function callSettledSteps(
  validator: ValidatorInstance,
  middleware: readonly RequestHandler[],
): RequestHandler[] {
  const built = holdBuiltSteps(validator);
  return middleware.map((wrapper) => {
    switch (wrapper.name) {
      case 'pathParamsMiddleware':
        return (req, res, next) => (built.pathParamsInstalled ? next() : wrapper(req, res, next));
      case 'multipartMiddleware':
        return (req, res, next) => (built.multipart ?? wrapper)(req, res, next);
      case 'requestMiddleware':
        return (req, res, next) => (built.request ?? wrapper)(req, res, next);
      default:
        return wrapper;
    }
  });
}

/** What the validator has built so far, recorded as it builds it (once: its wrappers keep it too). */
interface BuiltSteps {
  pathParamsInstalled: boolean;
  multipart?: RequestHandler;
  request?: RequestHandler;
}

function holdBuiltSteps(validator: ValidatorInstance): BuiltSteps {
  const built: BuiltSteps = { pathParamsInstalled: false };
  const { installPathParams, multipartMiddleware, requestValidationMiddleware } = validator;
  // Own properties of this instance: its wrappers call them through `self`.
  validator.installPathParams = function (app, context) {
    installPathParams.call(this, app, context);
    built.pathParamsInstalled = true;
  };
  validator.multipartMiddleware = function (apiDoc) {
    return (built.multipart = multipartMiddleware.call(this, apiDoc));
  };
  validator.requestValidationMiddleware = function (apiDoc) {
    return (built.request = requestValidationMiddleware.call(this, apiDoc));
  };
  return built;
}
