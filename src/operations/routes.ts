import { loadSpec, type SpecOperation } from './spec.js';
import type { OperationId } from './operations.js';
import type { Scope } from './scopes.js';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** One operation of the spec. */
export interface RouteOperation {
  operationId: OperationId;
  method: (typeof METHODS)[number];
  specPath: string;
  /** The schema of the form-encoded body, when the operation accepts one. */
  formSchema?: unknown;
  /** The scope its `security` requirements name (every requirement names the same one), if any. */
  scope?: Scope;
  /** Its `security` names the scheme `publishableKey` (see publishable-keys.ts). */
  publishable: boolean;
}

/** Every operation in `paths`, in spec order. */
export function routeOperations(): RouteOperation[] {
  const spec = loadSpec();
  const routes: RouteOperation[] = [];
  for (const [specPath, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as SpecOperation | undefined;
      if (!operation) continue;
      routes.push({
        operationId: operation.operationId as OperationId,
        method,
        specPath,
        formSchema: operation.requestBody?.content?.['application/x-www-form-urlencoded']?.schema,
        scope: (operation.security ?? spec.security)?.flatMap((requirement) => Object.values(requirement).flat())[0] as Scope | undefined,
        publishable: (operation.security ?? spec.security ?? []).some((requirement) => 'publishableKey' in requirement),
      });
    }
  }
  return routes;
}

let scopes: Map<OperationId, Scope | undefined> | undefined;

/** The scope an operation needs, as its `security` requirements name it (none on /admin). */
export function scopeOf(operationId: OperationId): Scope | undefined {
  scopes ??= new Map(routeOperations().map((route) => [route.operationId, route.scope]));
  return scopes.get(operationId);
}
