import { createRequire } from 'node:module';

/**
 * express-openapi-validator 5.6.2 compiles a path-to-regexp pattern for every spec path it scans,
 * on every request (upstream: cdimascio/express-openapi-validator#1217), which measured ~4% of a
 * GET's CPU here. The compiled pattern depends only on its arguments, so this memoizes
 * `pathToRegexp` in the module instance the validator loads. Remove once the upstream fix ships.
 */
export function cacheValidatorRoutePatterns(): void {
  const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const pathToRegexpModule = validatorRequire('path-to-regexp') as {
    pathToRegexp: (path: string, options?: { sensitive?: boolean; strict?: boolean }) => unknown;
    __memoized?: true;
  };
  if (pathToRegexpModule.__memoized) return;
  const compile = pathToRegexpModule.pathToRegexp;
  const cache = new Map<string, unknown>();
  pathToRegexpModule.pathToRegexp = (path, options = {}) => {
    const key = `${options.sensitive ? 1 : 0}${options.strict ? 1 : 0}${path}`;
    let compiled = cache.get(key);
    if (compiled === undefined) {
      compiled = compile(path, options);
      cache.set(key, compiled);
    }
    return compiled;
  };
  pathToRegexpModule.__memoized = true;
}
