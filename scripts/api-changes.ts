/**
 * One difference found by api-smart-diff, said the way a reader of the contract needs it: the
 * operation it reaches, where in that operation, what changed, and the JSON pointer of the edit.
 *
 * The library's own descriptions are not used: for a $ref compared once and reused at every place
 * that refers to it, they come out as "[Removed] annotation (1)". They are rebuilt here from the
 * diff's path, which is always right.
 */
import type { Diff, DiffType } from 'api-smart-diff';

/** A parsed OpenAPI document. */
export type OpenApiDocument = Record<string, unknown>;

/** A difference between two versions of the contract, classified and located. */
export interface Change {
  type: DiffType;
  /** What changed, in words: "removed field `amount`", "added enum value `pending`". */
  what: string;
  /**
   * What it reaches: an operation ("createCharge (POST /v1/charges)"), a webhook ("webhook
   * customer.created"), "components" (a schema only the SDK's types show) or "document".
   */
  scope: string;
  /** Where in the operation: "request body", "response 200", "query parameter `status`". */
  location?: string;
  /** The field inside that body or parameter: "data[].status". */
  field?: string;
  /** Where the change shows in the compared document, as a JSON pointer (RFC 6901). */
  pointer: string;
  /** Where it was made: the pointer reached by following each `$ref` on the way there. */
  origin: string;
}

type Segment = string | number;
type Located = Pick<Change, 'what' | 'location' | 'field'>;

const VERB = { add: 'added', remove: 'removed', replace: 'changed', rename: 'renamed' } as const;
const COMBINERS = new Set(['allOf', 'anyOf', 'oneOf']);
/** Schema keywords that document and do not constrain: their old and new text is not worth quoting. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', '$comment', 'externalDocs']);

/** A JSON pointer (RFC 6901) from path segments. */
export function toPointer(segments: readonly Segment[]): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The segments of a local reference (`#/components/schemas/Charge`). */
export function fromPointer(ref: string): string[] {
  return ref.slice(2).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The node at these segments of the document, if any. */
export function at(document: unknown, segments: readonly Segment[]): unknown {
  let node = document;
  for (const segment of segments) node = isObject(node) ? node[segment] : undefined;
  return node;
}

interface Step {
  node: unknown;
  origin: Segment[];
}

/** Follows local `$ref`s until the node is one that holds its own keys. */
function resolve(document: unknown, step: Step): Step {
  const seen = new Set<string>();
  let { node, origin } = step;
  while (isObject(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#/') && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    origin = fromPointer(node.$ref);
    node = at(document, origin);
  }
  return { node, origin };
}

function hasRefSiblings(node: Record<string, unknown>): boolean {
  return typeof node.$ref === 'string' && Object.keys(node).length > 1;
}

/**
 * Whether a path going on with `allOf/<index>` from this step is one of the library's rewrites
 * of a schema rather than an `allOf` of the document: `{$ref, ...siblings}` becomes
 * `{allOf: [{$ref}, siblings]}`, `{allOf: [...], ...siblings}` gains the siblings as a last
 * entry, and each entry of `{anyOf: [...], ...siblings}` becomes `{allOf: [entry, siblings]}`.
 */
function isRewritten(document: unknown, step: Step, index: number): boolean {
  if (!isObject(step.node)) return false;
  if (hasRefSiblings(step.node)) return true;
  const target = resolve(document, step).node;
  return !(isObject(target) && Array.isArray(target.allOf) && index < target.allOf.length);
}

/** Where entry `index` of a rewritten `allOf` (see isRewritten) is in the document. */
function unrewrite(document: unknown, trail: readonly Step[], index: number): Step {
  const here = trail[trail.length - 1];
  const node = here.node as Record<string, unknown>;
  if (hasRefSiblings(node)) return index === 0 ? resolve(document, { node: { $ref: node.$ref }, origin: here.origin }) : here;
  const inCombiner = COMBINERS.has(String(here.origin.at(-2))) && trail.length >= 3;
  // The siblings of an anyOf/oneOf are on the object that holds it, two steps up.
  return inCombiner && index > 0 ? trail[trail.length - 3] : here;
}

/**
 * The entry of an `allOf` that holds `segment` (and `next` inside it, when given), for a path the
 * library wrote after merging the `allOf` into one schema: it does so when the composition has
 * keywords of its own (`unevaluatedProperties`, `examples`), and its path then goes on with the
 * merged `properties` as if the composition had them.
 */
function mergedEntry(document: unknown, step: Step, segment: Segment, next: Segment | undefined): Step | undefined {
  const node = step.node as Record<string, unknown>;
  if (!Array.isArray(node.allOf)) return undefined;
  const entries = node.allOf.map((entry, index) => resolve(document, { node: entry, origin: [...step.origin, 'allOf', index] }));
  const holding = entries.filter((entry) => isObject(entry.node) && segment in entry.node);
  const inner = (entry: Step) => (entry.node as Record<string, unknown>)[segment];
  return holding.find((entry) => next === undefined || (isObject(inner(entry)) && next in (inner(entry) as object))) ?? holding[0];
}

/**
 * The pointer where a change was made: walks the path through the document and, each time the
 * next key is behind a local `$ref`, goes on from the referenced place. Where the library's path
 * leaves the document in a way not undone here, the rest of the path is kept as it is.
 */
export function originOf(document: unknown, path: readonly Segment[]): string {
  const trail: Step[] = [{ node: document, origin: [] }];
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const next = path[i + 1];
    let here = trail[trail.length - 1];
    if (segment === 'allOf' && typeof next === 'number' && isRewritten(document, here, next)) {
      const entry = unrewrite(document, trail, next);
      // One step for `allOf` and one for its index keep the trail as deep as the path.
      trail.push(entry, entry);
      i++;
      continue;
    }
    if (isObject(here.node) && !(segment in here.node)) here = resolve(document, here);
    if (isObject(here.node) && !(segment in here.node)) here = mergedEntry(document, here, segment, next) ?? here;
    if (!isObject(here.node) || !(segment in here.node)) return toPointer([...here.origin, ...path.slice(i)]);
    trail.push({ node: here.node[segment], origin: [...here.origin, segment] });
  }
  return toPointer(trail[trail.length - 1].origin);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The dotted field a schema path leads to: `properties/data/items/properties/status` → `data[].status`. */
function fieldOf(segments: readonly Segment[]): string | undefined {
  let field = '';
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment === 'properties' && i + 1 < segments.length) field += `${field ? '.' : ''}${segments[++i]}`;
    else if (segment === 'items') field += '[]';
    else if (segment === 'additionalProperties') field += '{}';
    else if (COMBINERS.has(String(segment))) i++;
  }
  return field || undefined;
}

/** What changed inside a schema; `segments` runs from the schema's root to the changed node. */
function describeSchema(diff: Diff, segments: readonly Segment[]): Located {
  const verb = VERB[diff.action];
  const [last, parent] = [segments.at(-1), segments.at(-2)];
  if (parent === 'properties') return { what: `${verb} field \`${last}\``, field: fieldOf(segments) };
  const field = fieldOf(segments.slice(0, -2)) ?? fieldOf(segments.slice(0, -1));
  // An index after `required`, `enum` or `type` is an entry of that list, not a property so named.
  const listEntry = typeof last === 'number';
  if (listEntry && parent === 'required') {
    if (diff.action === 'add') return { what: `made field \`${diff.after}\` required`, field };
    if (diff.action === 'remove') return { what: `made field \`${diff.before}\` optional`, field };
    return { what: `changed required field ${show(diff.before)} to ${show(diff.after)}`, field };
  }
  if (listEntry && (parent === 'enum' || parent === 'type')) {
    const noun = parent === 'enum' ? 'enum value' : 'type';
    if (diff.action === 'replace') return { what: `replaced ${noun} ${show(diff.before)} with ${show(diff.after)}`, field };
    return { what: `${verb} ${noun} ${show(diff.action === 'add' ? diff.after : diff.before)}`, field };
  }
  if (parent !== undefined && COMBINERS.has(String(parent))) return { what: `${verb} a variant of ${parent}`, field };
  const ownField = fieldOf(segments.slice(0, -1));
  if (last === undefined) return { what: `${verb} schema` };
  if (last === 'deprecated') {
    const leaf = ownField?.split('.').at(-1);
    return { what: `${diff.after === true ? 'deprecated' : 'no longer deprecated'}${leaf ? ` field \`${leaf}\`` : ' schema'}`, field: ownField };
  }
  if (ANNOTATIONS.has(String(last)) || String(last).startsWith('x-')) return { what: `${verb} ${last}`, field: ownField };
  if (diff.action === 'replace') return { what: `changed ${last} from ${show(diff.before)} to ${show(diff.after)}`, field: ownField };
  const value = isObject(diff.after ?? diff.before) ? '' : ` ${show(diff.action === 'add' ? diff.after : diff.before)}`;
  return { what: `${verb} ${last}${value}`, field: ownField };
}

/** A parameter's `in` and `name`, following its `$ref`. */
function parameterName(document: OpenApiDocument, path: readonly Segment[]): string {
  let node = at(document, path);
  if (isObject(node) && typeof node.$ref === 'string') node = at(document, fromPointer(node.$ref));
  return isObject(node) ? `${node.in} parameter \`${node.name}\`` : 'parameter';
}

/**
 * The path of a change in the document itself. The library appends a path item's own parameters
 * to each of its operations' (`transformPathItems`), so an index past the operation's parameters
 * is one of the path item's.
 */
function documentPath(document: OpenApiDocument, path: readonly Segment[]): Segment[] {
  const [root, name, method, key, index] = path;
  if (root !== 'paths' || key !== 'parameters' || typeof index !== 'number') return [...path];
  const own = at(document, ['paths', name, method, 'parameters']);
  const count = Array.isArray(own) ? own.length : 0;
  if (index < count) return [...path];
  return ['paths', name, 'parameters', index - count, ...path.slice(5)];
}

/** Where in a body, a parameter or a response: `rest` follows `requestBody`, `parameters/<i>`, `responses/<code>`. */
function describeInPart(diff: Diff, location: string, rest: readonly Segment[]): Located {
  const verb = VERB[diff.action];
  if (rest.length === 0) return { what: `${verb} ${location}`, location };
  const [key, contentType, schema] = rest;
  if (key === 'schema') return { ...describeSchema(diff, rest.slice(1)), location };
  if (key === 'content' && rest.length === 2) return { what: `${verb} content type ${contentType}`, location };
  if (key === 'content' && schema === 'schema') return { ...describeSchema(diff, rest.slice(3)), location };
  if (key === 'headers' && rest.length === 2) return { what: `${verb} header \`${contentType}\``, location };
  if (key === 'required' && diff.action !== 'remove' && diff.after === true) return { what: `made ${location} required`, location };
  if (key === 'required') return { what: `made ${location} optional`, location };
  return { what: `${verb} ${rest.join('.')}`, location };
}

/** What changed in one operation or webhook; `rest` is the path below its method. */
function describeInOperation(diff: Diff, document: OpenApiDocument, operationPath: readonly Segment[], isWebhook: boolean): Located {
  const rest = diff.path.slice(operationPath.length);
  const [key, index] = rest;
  if (rest.length === 0) return { what: `${VERB[diff.action]} ${isWebhook ? 'webhook' : 'operation'}` };
  if (key === 'requestBody') return describeInPart(diff, isWebhook ? 'payload' : 'request body', rest.slice(1));
  if (key === 'responses' && index !== undefined) return describeInPart(diff, `response ${index}`, rest.slice(2));
  if (key === 'parameters' && index !== undefined) {
    const location = parameterName(document, documentPath(document, diff.path.slice(0, operationPath.length + 2)));
    return describeInPart(diff, location, rest.slice(2));
  }
  if (key === 'security') return { what: 'changed security requirements' };
  if (key === 'deprecated') return { what: diff.after === true ? 'deprecated operation' : 'operation no longer deprecated' };
  if (key === 'operationId') return { what: `changed operationId from ${show(diff.before)} to ${show(diff.after)}` };
  return { what: `${VERB[diff.action]} ${rest.join('.')}` };
}

/** The name of what a path reaches, and the path of its operation when it is one. */
function scopeOf(path: readonly Segment[], document: OpenApiDocument): { scope: string; operationPath?: Segment[] } {
  const [root, name, method] = path;
  if ((root === 'paths' || root === 'webhooks') && method === undefined) return { scope: `${root === 'webhooks' ? 'webhook ' : ''}${name}` };
  if (root === 'webhooks') return { scope: `webhook ${name}`, operationPath: path.slice(0, 3) };
  if (root === 'paths') {
    const operationId = at(document, ['paths', name, method, 'operationId']);
    const route = `${String(method).toUpperCase()} ${name}`;
    return { scope: typeof operationId === 'string' ? `${operationId} (${route})` : route, operationPath: path.slice(0, 3) };
  }
  return { scope: root === 'components' ? 'components' : 'document' };
}

/** One api-smart-diff difference between `before` and `after`, described and located. */
export function describeDiff(diff: Diff, before: OpenApiDocument, after: OpenApiDocument): Change {
  // An addition's path leads into the new document; every other change's into the old one.
  const document = diff.action === 'add' ? after : before;
  const { scope, operationPath } = scopeOf(diff.path, document);
  let located: Located;
  if (operationPath) located = describeInOperation(diff, document, operationPath, diff.path[0] === 'webhooks');
  else if (diff.path[0] === 'components' && diff.path[1] === 'schemas') {
    located = { ...describeSchema(diff, diff.path.slice(3)), location: `schema ${diff.path[2]}` };
  } else located = { what: `${VERB[diff.action]} ${diff.path.join('.')}` };
  const path = documentPath(document, diff.path);
  return { type: diff.type, ...located, scope, pointer: toPointer(path), origin: originOf(document, path) };
}
