/**
 * Leaves out of both versions of the contract what cannot show a difference, before api-smart-diff
 * compares them: it walks and rewrites every operation and schema it is given (about a second of
 * CPU for this spec), and nearly all of them are the same on both sides.
 *
 * An operation (a path item, a webhook) is left out when it is the same in both versions and
 * reaches, through its `$ref`s, no component that differs: the library would find nothing there.
 * A component used through `$ref`s (a schema, a parameter, a response…) is left out when it is the
 * same in both and nothing kept reaches it. Everything else (info, servers, security, the security
 * schemes) is compared as it is. So the differences found are those of the whole documents:
 * test/contract/api-breaking.test.ts compares both ways.
 */
import { isDeepStrictEqual } from 'node:util';
import type { OpenApiDocument } from './api-changes.js';

type Node = Record<string, unknown>;

/** The kinds of component that are used through a `$ref` (security schemes are named instead). */
const BY_REFERENCE =
  /^(schemas|responses|parameters|examples|requestBodies|headers|links|callbacks|pathItems)\//;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null;
}

/** The components a node refers to, as `kind/name` (`schemas/Charge`), through `$ref`s inside it. */
function referencedComponents(node: unknown, found = new Set<string>()): Set<string> {
  if (!isNode(node)) return found;
  if (Array.isArray(node)) {
    for (const item of node) referencedComponents(item, found);
    return found;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      const [, kind, name] = /^#\/components\/([^/]+)\/([^/]+)/.exec(value) ?? [];
      if (kind) found.add(`${kind}/${name}`);
    } else referencedComponents(value, found);
  }
  return found;
}

/** Every component of a document, by `kind/name`. */
function componentsOf(document: OpenApiDocument): Map<string, unknown> {
  const all = new Map<string, unknown>();
  for (const [kind, entries] of Object.entries((document.components ?? {}) as Node))
    if (isNode(entries))
      for (const [name, component] of Object.entries(entries))
        all.set(`${kind}/${name}`, component);
  return all;
}

/** The keys of an object member of both documents (`paths`, `webhooks`), each once. */
function keysOfBoth(a: unknown, b: unknown): string[] {
  return [...new Set([...Object.keys(isNode(a) ? a : {}), ...Object.keys(isNode(b) ? b : {})])];
}

/**
 * Copies of both documents without the operations and components that are the same in both
 * and reach no difference (see above). The copies share their remaining parts with the originals.
 */
export function withoutUnchanged(
  before: OpenApiDocument,
  after: OpenApiDocument,
): [OpenApiDocument, OpenApiDocument] {
  const [componentsBefore, componentsAfter] = [componentsOf(before), componentsOf(after)];
  const names = [...new Set([...componentsBefore.keys(), ...componentsAfter.keys()])];
  const refsOf = new Map(
    names.map((name) => [
      name,
      referencedComponents(
        componentsAfter.get(name),
        referencedComponents(componentsBefore.get(name)),
      ),
    ]),
  );
  const changed = new Set(
    names.filter(
      (name) => !isDeepStrictEqual(componentsBefore.get(name), componentsAfter.get(name)),
    ),
  );
  // A component reaching a changed one shows the change too: spread until nothing is added.
  const reachesChange = new Set(changed);
  for (let grew = true; grew;) {
    grew = false;
    for (const name of names)
      if (
        !reachesChange.has(name) &&
        [...refsOf.get(name)!].some((ref) => reachesChange.has(ref))
      ) {
        reachesChange.add(name);
        grew = true;
      }
  }
  const showsDifference = (a: unknown, b: unknown) =>
    !isDeepStrictEqual(a, b) ||
    [...referencedComponents(b, referencedComponents(a))].some((ref) => reachesChange.has(ref));

  const keptMembers = (member: 'paths' | 'webhooks') =>
    keysOfBoth(before[member], after[member]).filter((key) =>
      showsDifference(
        (before[member] as Node | undefined)?.[key],
        (after[member] as Node | undefined)?.[key],
      ),
    );
  const kept = { paths: keptMembers('paths'), webhooks: keptMembers('webhooks') };

  // What to keep: whatever a kept operation, a security scheme or a changed component reaches.
  const keptComponents = new Set<string>();
  const keep = (ref: string) => {
    if (keptComponents.has(ref)) return;
    keptComponents.add(ref);
    for (const next of refsOf.get(ref) ?? []) keep(next);
  };
  for (const document of [before, after]) {
    for (const member of ['paths', 'webhooks'] as const)
      for (const key of kept[member])
        referencedComponents((document[member] as Node | undefined)?.[key]).forEach(keep);
  }
  for (const name of names) if (!BY_REFERENCE.test(name) || changed.has(name)) keep(name);

  const pruned = (document: OpenApiDocument): OpenApiDocument => {
    const copy: Node = { ...document };
    for (const member of ['paths', 'webhooks'] as const) {
      const entries = document[member];
      if (isNode(entries))
        copy[member] = Object.fromEntries(
          kept[member].filter((key) => key in entries).map((key) => [key, entries[key]]),
        );
    }
    const components = document.components;
    if (isNode(components))
      copy.components = Object.fromEntries(
        Object.entries(components).map(([kind, entries]) => [
          kind,
          isNode(entries)
            ? Object.fromEntries(
                Object.entries(entries).filter(([name]) => keptComponents.has(`${kind}/${name}`)),
              )
            : entries,
        ]),
      );
    return copy;
  };
  return [pruned(before), pruned(after)];
}
