/**
 * How the alternatives of a `oneOf` or `anyOf` are paired between the two versions.
 *
 * api-smart-diff pairs them by fewest differences: each alternative of one version is compared
 * with each of the other, and the pairs with the fewest differences win. Two alternatives named by
 * `$ref` whose targets both reach a changed schema were crossed: with a field added to Customer,
 * `PaymentIntentStateError` (which reaches Customer in many places) differed from itself more than
 * from `SetupIntentStateError` (one difference: the `$ref`), so the 400 error's alternatives came
 * out as two "changed $ref" (unclassified, counted as breaking) between documents that name the
 * same alternatives. Here an alternative named by the same `$ref` in both versions is the same
 * alternative; the others are paired as the library pairs them.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  combinaryCompareResolver,
  compare,
  createChildContext,
  createMergeMeta,
  diffFactory,
  DIFF_META_KEY,
  type CompareResolver,
  type CompareRules,
  type Diff,
} from 'api-smart-diff';

type JsonPath = Array<string | number>;

/** The `$ref` an alternative is, when it is nothing else. */
function refOf(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const keys = Object.keys(item);
  const ref = (item as Record<string, unknown>).$ref;
  return keys.length === 1 && typeof ref === 'string' ? ref : undefined;
}

/** The rules of the combiner's items (the library's lookup of the `/*` child rule). */
function itemRules(rules: CompareRules, path: JsonPath, value: unknown): CompareRules {
  const node = rules as Record<string, unknown>;
  const resolve = (rule: unknown) =>
    typeof rule === 'function' ? (rule as (n: object) => unknown)({ key: '*', path, value }) : rule;
  const deep = resolve(node['/**']) as Record<string, unknown> | undefined;
  const own = (resolve(node['/*']) ?? {}) as Record<string, unknown>;
  return (deep ? { '/**': node['/**'], ...deep, ...own } : own) as CompareRules;
}

/** The library's combiner comparison, with alternatives of the same `$ref` paired first. */
export const refFirstCombinerResolver: CompareResolver = (ctx) => {
  const { before, after, options } = ctx;
  if (!Array.isArray(before.value) || !Array.isArray(after.value))
    return combinaryCompareResolver(ctx);
  const was: unknown[] = before.value;
  const is: unknown[] = after.value;
  const rules = itemRules(ctx.rules, before.path as JsonPath, was);
  const compareItems = (b: number, a: number) =>
    compare(
      was[b],
      is[a],
      { ...options, rules },
      {
        before: { jsonPath: [...(before.path as JsonPath), b], source: before.root },
        after: { jsonPath: [...(after.path as JsonPath), a], source: after.root },
      },
    );
  const beforeLeft = new Set(was.keys());
  const afterLeft = new Set(is.keys());
  const merged: unknown[] = [];
  const diffs: Diff[] = [];
  const pair = (b: number, a: number, result: { diffs: Diff[]; merged: unknown }) => {
    beforeLeft.delete(b);
    afterLeft.delete(a);
    merged[a] = result.diffs.length > 0 ? result.merged : is[a];
    diffs.push(...result.diffs);
  };

  // The same `$ref` on both sides is the same alternative, whatever changed in its target; so is
  // an alternative written the same way in both.
  for (const b of was.keys()) {
    const ref = refOf(was[b]);
    const a =
      ref === undefined
        ? [...afterLeft].find((index) => isDeepStrictEqual(was[b], is[index]))
        : [...afterLeft].find((index) => refOf(is[index]) === ref);
    if (a !== undefined) pair(b, a, compareItems(b, a));
  }

  // The rest as the library pairs them: equal ones, then by fewest differences.
  const candidates: Array<{ b: number; a: number; result: { diffs: Diff[]; merged: unknown } }> =
    [];
  for (const b of [...beforeLeft]) {
    for (const a of [...afterLeft]) {
      const result = compareItems(b, a);
      if (result.diffs.length === 0) {
        pair(b, a, result);
        break;
      }
      candidates.push({ b, a, result });
    }
  }
  candidates.sort((x, y) => x.result.diffs.length - y.result.diffs.length);
  for (const { b, a, result } of candidates)
    if (beforeLeft.has(b) && afterLeft.has(a)) pair(b, a, result);

  const unpaired: Diff[] = [];
  for (const b of beforeLeft) {
    const removed = diffFactory.removed(
      [...(before.path as JsonPath), merged.length],
      was[b],
      createChildContext(ctx, b, ''),
    );
    merged.push(was[b]);
    unpaired.push(removed);
  }
  for (const a of afterLeft) {
    merged[a] = is[a];
    unpaired.push(
      diffFactory.added([...(after.path as JsonPath), a], is[a], createChildContext(ctx, '', a)),
    );
  }
  diffs.push(...unpaired);
  const meta = createMergeMeta(unpaired);
  if (options.arrayMeta)
    (merged as unknown as Record<string | symbol, unknown>)[options.metaKey ?? DIFF_META_KEY] =
      meta;
  return {
    diffs,
    merged,
    ...(!options.arrayMeta && Object.keys(meta).length > 0
      ? { rootMergeMeta: { array: meta } }
      : {}),
  };
};

/**
 * The rules with every combiner compared by {@link refFirstCombinerResolver}. The library's own
 * transformer deep-copies each rule set a rule function returns, on every node compared; this one
 * copies each rule object once and wraps each rule function once.
 */
export function withRefFirstCombiners(rules: CompareRules): CompareRules {
  const objects = new WeakMap<object, object>();
  const functions = new WeakMap<object, unknown>();
  const rule = (value: unknown): unknown => {
    if (typeof value === 'function') {
      let wrapped = functions.get(value);
      if (!wrapped) {
        wrapped = (...args: unknown[]) => rule((value as (...a: unknown[]) => unknown)(...args));
        functions.set(value, wrapped);
      }
      return wrapped;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const done = objects.get(value);
    if (done) return done;
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    objects.set(value, copy);
    for (const key of Object.keys(copy)) if (key.startsWith('/')) copy[key] = rule(copy[key]);
    if (copy.compare === combinaryCompareResolver) copy.compare = refFirstCombinerResolver;
    return copy;
  };
  return rule(rules) as CompareRules;
}
