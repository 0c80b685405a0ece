/**
 * Gives the two versions of the contract the same schema shapes before api-smart-diff compares
 * them.
 *
 * The library rewrites a schema whose `$ref`, `allOf`, `anyOf` or `oneOf` has sibling keywords
 * (`{$ref, description}` becomes `{allOf: [{$ref}, {description}]}`, and each `anyOf` entry gains
 * the siblings), and leaves one without siblings as it is. So adding a mere `description` or
 * `example` next to a `$ref` compared two different shapes, and the whole referenced schema was
 * reported removed ("removed type", breaking). Where one version has siblings at a place and the
 * other has none, a marker sibling is added to the bare one, so that the library rewrites both
 * alike and only the real difference remains. Places whose shapes already agree are left alone.
 *
 * The library also reads the `examples` beside a combiner as part of the combined schema: an
 * example's own keys (`type`, `data`) came out as fields removed from the schema, breaking. The
 * examples of a combiner are documentation, so the later version is compared with the earlier
 * one's there (a change of them is not reported; everywhere else it is, as "changed examples").
 */
import type { OpenApiDocument } from './api-changes.js';

/** The sibling added to a bare `$ref` or combiner: an extension keyword, which schemas ignore. */
export const SHAPE_MARKER = 'x-contract-diff-shape';

/** Keywords the library does not count as siblings. */
const NOT_SIBLINGS = new Set(['$ref', 'allOf', 'anyOf', 'oneOf', '$defs', 'definitions', '$schema', '$id']);

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRewritable(node: Node): boolean {
  return typeof node.$ref === 'string' || ['allOf', 'anyOf', 'oneOf'].some((key) => Array.isArray(node[key]));
}

function hasSiblings(node: Node): boolean {
  return Object.keys(node).some((key) => !NOT_SIBLINGS.has(key));
}

/** Annotation keywords whose values the library mistakes for schemas beside a combiner. */
const COMBINER_EXAMPLES = ['examples', 'example'];

/** Whether `node` is bare where `other`, at the same place, has siblings. */
function needsMarker(node: Node, other: Node): boolean {
  return isRewritable(node) && isRewritable(other) && !hasSiblings(node) && hasSiblings(other);
}

/** Copies of `a` and `b` with each place they share aligned (see above). */
function align(a: unknown, b: unknown): [unknown, unknown] {
  if (Array.isArray(a) && Array.isArray(b)) {
    const pairs = a.map((item, i) => (i < b.length ? align(item, b[i]) : [item, undefined]));
    return [pairs.map(([x]) => x), [...pairs.slice(0, b.length).map(([, y]) => y), ...b.slice(a.length)]];
  }
  if (!isNode(a) || !isNode(b)) return [a, b];
  const [x, y]: [Node, Node] = [{ ...a }, { ...b }];
  for (const key of Object.keys(a)) if (key in b) [x[key], y[key]] = align(a[key], b[key]);
  if (needsMarker(x, y)) x[SHAPE_MARKER] = true;
  if (needsMarker(y, x)) y[SHAPE_MARKER] = true;
  if (isRewritable(x) && isRewritable(y)) {
    for (const key of COMBINER_EXAMPLES) if (key in x && key in y) y[key] = x[key];
  }
  return [x, y];
}

/** The two documents with the same shape wherever a `$ref` or combiner gained or lost siblings. */
export function withAlignedShapes(before: OpenApiDocument, after: OpenApiDocument): [OpenApiDocument, OpenApiDocument] {
  return align(before, after) as [OpenApiDocument, OpenApiDocument];
}
