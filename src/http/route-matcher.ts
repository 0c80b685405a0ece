import type { RouteOperation } from '../operations/routes.js';

/** An operation matched by method and path, with its path parameters as sent (still percent-encoded). */
export interface MatchedRoute<T extends RouteOperation> {
  route: T;
  pathParams: Record<string, string>;
}

/**
 * Finds the operation of a request before the validator does (the steps that read input ahead of
 * it need the operation's schemas). Paths with fewer parameters are tried first, so that a fixed
 * segment wins over a parameter, as in the validator.
 */
export function createRouteMatcher<T extends RouteOperation>(
  routes: readonly T[],
): (method: string, path: string) => MatchedRoute<T> | undefined {
  const compiled = routes
    .map((route) => {
      const names = Array.from(route.specPath.matchAll(/\{([^}]+)\}/g), (m) => m[1]);
      const pattern = new RegExp(`^${route.specPath.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
      return { route, method: route.method.toUpperCase(), names, pattern };
    })
    .sort((a, b) => a.names.length - b.names.length);
  return (method, path) => {
    for (const candidate of compiled) {
      if (candidate.method !== method) continue;
      const match = candidate.pattern.exec(path);
      if (!match) continue;
      const pathParams: Record<string, string> = {};
      candidate.names.forEach((name, i) => (pathParams[name] = match[i + 1]));
      return { route: candidate.route, pathParams };
    }
    return undefined;
  };
}
