import { createRequire } from 'node:module';

/**
 * express-openapi-validator 5.6.2 compiles an operation's request and response schemas the first
 * time the operation is called, each as a root schema that carries a copy of the whole spec
 * (`paths` and `components`, for specs split over several files). Ajv then walks that whole copy
 * for every root (to collect its `$id`s and anchors), and resolves each `$ref` inside the root
 * against that root's own base, so every operation compiles its own copy of Customer, Charge and
 * every schema they reach: about half a second of CPU per operation, in every process that calls
 * it.
 *
 * The validator also registers every component schema with each of its Ajv instances under its
 * pointer (`#/components/schemas/Customer`). A root compiled with an empty base resolves
 * `#/components/schemas/…` to those registered schemas, which Ajv compiles once per instance and
 * shares. So the root is compiled without the copy (and cached by the validator's own key, as it
 * caches it); a root with a reference elsewhere (another file, a component that is not a schema)
 * goes to the validator's own code. The same schemas check the same values:
 * test/unit/validator-shared-components.test.ts compares both ways' verdicts and errors.
 * Remove once the validator compiles operations against its registered components.
 */
export function compileOperationsOverSharedComponents(): void {
  const util = validatorUtil();
  originalUseAjvCache ??= util.useAjvCache;
  util.useAjvCache = useAjvCacheOverSharedComponents;
}

/** Puts the validator's own compile back (for the test that compares both ways). */
export function restoreOperationCompile(): void {
  if (originalUseAjvCache) validatorUtil().useAjvCache = originalUseAjvCache;
}

/** The part of an Ajv instance used here. */
export interface AjvLike {
  compile(schema: object): ValidateFunction;
}

export type ValidateFunction = ((data: unknown) => boolean) & { errors?: unknown };
type UseAjvCache = (ajv: AjvLike, schema: Record<string, unknown>, key: string) => ValidateFunction;

let originalUseAjvCache: UseAjvCache | undefined;

/** Validators compiled here, per Ajv instance and the validator's cache key. */
const compiled = new WeakMap<AjvLike, Map<string, ValidateFunction>>();

function useAjvCacheOverSharedComponents(
  ajv: AjvLike,
  schema: Record<string, unknown>,
  key: string,
): ValidateFunction {
  let byKey = compiled.get(ajv);
  if (!byKey) compiled.set(ajv, (byKey = new Map()));
  const found = byKey.get(key);
  if (found) return found;
  const validator = compileWithoutSpecCopy(ajv, schema);
  // A reference the registered component schemas cannot answer: the validator's own way.
  if (!validator) return originalUseAjvCache!(ajv, schema, key);
  byKey.set(key, validator);
  return validator;
}

/**
 * The operation's root schema compiled without its copy of the spec, with an empty base (no key,
 * no `$id`), so that `#/components/schemas/…` is the schema registered with this Ajv; undefined
 * when a reference needs the copy.
 */
export function compileWithoutSpecCopy(
  ajv: AjvLike,
  schema: Record<string, unknown>,
): ValidateFunction | undefined {
  const { paths: _paths, components: _components, ...own } = schema;
  try {
    return ajv.compile(own);
  } catch {
    return undefined;
  }
}

/** The validator's own helpers module, as its middlewares load it (one instance per process). */
function validatorUtil(): { useAjvCache: UseAjvCache } {
  const validatorRequire = createRequire(
    createRequire(import.meta.url).resolve('express-openapi-validator'),
  );
  return validatorRequire('./middlewares/util') as { useAjvCache: UseAjvCache };
}
