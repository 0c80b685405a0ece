/**
 * Expansion, as the widely used payments API does it: `expand[]=customer` answers with the
 * customer object where the response would hold its id; `expand[]=data.customer` does it for
 * every object of a list page; `charge.customer` expands within an expanded object.
 *
 * Guarantees: the paths are checked before the operation runs, so a path that cannot be expanded
 * is a 400 naming it and changes nothing; expanded objects are read with the caller's account
 * scope (in the request's transaction for a change), one statement per expanded field for a whole
 * page; a field that holds no id (`null`) stays as it is; expanding needs the scope that reading
 * the expanded objects needs (403 `insufficient_scope` otherwise).
 */
import { ApiError } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import { assertGranted, type Scope } from '../../operations/scopes.js';

/** A field holding an id that can be replaced by the object it names. */
export interface ExpandableField {
  /** The scope that reading the expanded objects needs (`customers:read`): expanding is reading them. */
  readonly scope: Scope;
  /** The objects of these ids that the account can see, by id. */
  load(ctx: RequestContext, ids: readonly string[]): Promise<ReadonlyMap<string, object>>;
  /** What an id expands to when its object no longer exists (a deleted customer); without it, the id stays. */
  missing?(id: string): object;
  /** The fields of the loaded object that can be expanded in turn. */
  readonly fields: ExpandableFields;
}

/** A field holding an object (not an id) some of whose own fields can be expanded: a customer's `invoice_settings`. */
export interface NestedExpandable {
  readonly nested: ExpandableFields;
}

/** The expandable fields of one kind of object, by field name. */
export type ExpandableFields = Readonly<Record<string, ExpandableField | NestedExpandable>>;

function isNested(field: ExpandableField | NestedExpandable): field is NestedExpandable {
  return 'nested' in field;
}

/** Applies the expansions a request asked for to the object it answers with (a copy; the same type). */
export type ObjectExpansion = <T extends object>(ctx: RequestContext, object: T) => Promise<T>;

/** Applies the expansions a request asked for to every object of the list page it answers with. */
export type ListExpansion = <L extends { data: object[] }>(ctx: RequestContext, list: L) => Promise<L>;

/** The deepest expansion accepted, `data` of a list included (`data.charge.customer` is 3). */
const MAX_DEPTH = 4;

/** Which fields to expand at one level, and what below each of them. */
type ExpansionTree = Map<string, ExpansionTree>;

/**
 * Checks the `expand` paths of a request for one object whose expandable fields are `fields`,
 * and returns what expands the operation's result. Throws 400 `parameter_invalid` naming the
 * first path that cannot be expanded.
 */
export function objectExpansion(fields: ExpandableFields, paths: readonly string[] | undefined): ObjectExpansion {
  const tree = parsePaths(fields, paths, []);
  if (tree.size === 0) return async (_ctx, object) => object;
  // The copy differs only where the spec's unions allow (an id or its object), so it keeps the type.
  return async <T extends object>(ctx: RequestContext, object: T) => (await expandAll(ctx, [object], fields, tree))[0] as T;
}

/** As `objectExpansion`, for a list page: every path starts with `data.`, which names the listed objects. */
export function listExpansion(fields: ExpandableFields, paths: readonly string[] | undefined): ListExpansion {
  const tree = parsePaths(fields, paths, ['data']);
  if (tree.size === 0) return async (_ctx, list) => list;
  return async <L extends { data: object[] }>(ctx: RequestContext, list: L) => ({
    ...list,
    data: (await expandAll(ctx, list.data, fields, tree)) as L['data'],
  });
}

/**
 * The id an expandable field refers to, whether or not it was expanded: services and the GraphQL
 * resolvers work on ids, and this keeps them correct if they are ever handed an expanded object.
 */
export function expandableId(field: string | { id: string }): string {
  return typeof field === 'string' ? field : field.id;
}

/** Merges the paths into one tree of fields to expand, checking each against `fields` below `prefix`. */
function parsePaths(fields: ExpandableFields, paths: readonly string[] | undefined, prefix: readonly string[]): ExpansionTree {
  const root: ExpansionTree = new Map();
  (paths ?? []).forEach((path, index) => {
    const segments = path.split('.');
    const refuse = (message: string) => new ApiError('parameter_invalid', message, { param: `expand[${index}]` });
    if (segments.length > MAX_DEPTH) throw refuse(`You cannot expand more than ${MAX_DEPTH} levels of a property (${path}).`);
    const prefixed = segments.length > prefix.length && prefix.every((name, i) => segments[i] === name);
    if (!prefixed) throw refuse(`This property cannot be expanded (${path}).`);
    let level = root;
    let levelFields = fields;
    for (const name of segments.slice(prefix.length)) {
      // Own properties only: `expand[]=constructor` must not find Object's.
      const field = Object.hasOwn(levelFields, name) ? levelFields[name] : undefined;
      if (!field) throw refuse(`This property cannot be expanded (${path}).`);
      if (!level.has(name)) level.set(name, new Map());
      level = level.get(name)!;
      levelFields = isNested(field) ? field.nested : field.fields;
    }
  });
  return root;
}

/**
 * Expands the same fields of several objects: one load per field for all of them, then the next
 * level on the loaded objects. Returns copies; the objects given are not changed.
 */
async function expandAll(
  ctx: RequestContext,
  objects: readonly object[],
  fields: ExpandableFields,
  tree: ExpansionTree,
): Promise<object[]> {
  const copies = objects.map((object) => ({ ...object }) as Record<string, unknown>);
  for (const [name, subtree] of tree) {
    const field = fields[name];
    if (isNested(field)) {
      await expandNested(ctx, copies, name, field, subtree);
      continue;
    }
    assertGranted(ctx.grant, field.scope);
    const ids = new Set(copies.map((copy) => copy[name]).filter((value) => typeof value === 'string'));
    if (ids.size === 0) continue;
    const loaded = await field.load(ctx, [...ids]);
    const objectsById = subtree.size === 0 ? loaded : await expandEach(ctx, loaded, field.fields, subtree);
    for (const copy of copies) {
      const id = copy[name];
      if (typeof id === 'string') copy[name] = objectsById.get(id) ?? field.missing?.(id) ?? id;
    }
  }
  return copies;
}

/** Expands within the object each copy holds at `name` (copies that hold none are left as they are). */
async function expandNested(
  ctx: RequestContext,
  copies: Array<Record<string, unknown>>,
  name: string,
  field: NestedExpandable,
  tree: ExpansionTree,
): Promise<void> {
  const holders = copies.filter((copy) => typeof copy[name] === 'object' && copy[name] !== null);
  const expanded = await expandAll(ctx, holders.map((copy) => copy[name] as object), field.nested, tree);
  holders.forEach((copy, i) => (copy[name] = expanded[i]));
}

/** The next level: the loaded objects, expanded in turn, still by id. */
async function expandEach(
  ctx: RequestContext,
  loaded: ReadonlyMap<string, object>,
  fields: ExpandableFields,
  tree: ExpansionTree,
): Promise<ReadonlyMap<string, object>> {
  const expanded = await expandAll(ctx, [...loaded.values()], fields, tree);
  return new Map([...loaded.keys()].map((id, i) => [id, expanded[i]]));
}
