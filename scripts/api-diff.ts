/**
 * Compares two versions of the REST contract with api-smart-diff and gathers its differences into
 * changes: one per edit and kind, with every operation it reaches.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiCompare, type DiffType } from 'api-smart-diff';
import { parse } from 'yaml';
import { at, describeDiff, fromPointer, toPointer, type Change, type OpenApiDocument } from './api-changes.js';
import { applyPolicy } from './api-diff-policy.js';
import { contractRules } from './api-diff-rules.js';
import { SHAPE_MARKER, withAlignedShapes } from './api-diff-shapes.js';
import { withoutUnchanged } from './api-diff-unchanged.js';

/** One edit of the contract: what changed, where it was made, and each place it shows. */
export interface ChangeGroup {
  type: DiffType;
  what: string;
  /** The JSON pointer where the edit was made (after following `$ref`s). */
  origin: string;
  /** Each operation, webhook or schema where it shows, in document order. */
  uses: Change[];
}

/** The difference between two versions of the contract. */
export interface ContractDiff {
  /** Breaking first, then non-breaking, deprecated, annotation; by origin within each. */
  groups: ChangeGroup[];
  /** How many groups of each type. */
  counts: Record<DiffType, number>;
}

/** The contract being edited, and the copy released to clients that it must stay compatible with. */
export const CONTRACT_FILES = {
  current: fileURLToPath(new URL('../openapi/openapi.yaml', import.meta.url)),
  published: fileURLToPath(new URL('../openapi/openapi.published.yaml', import.meta.url)),
};

/** Types in the order a reader needs them; unclassified sits with breaking (see isBreaking). */
const TYPE_ORDER: readonly DiffType[] = ['breaking', 'unclassified', 'non-breaking', 'deprecated', 'annotation'];

/**
 * Whether a change of this type breaks clients. What the library cannot classify counts as
 * breaking: a person decides, by releasing it as a major version or by changing the spec back.
 */
export function isBreaking(type: DiffType): boolean {
  return type === 'breaking' || type === 'unclassified';
}

/** Reads a contract file (YAML or JSON). */
export function readContract(file: string): OpenApiDocument {
  return parse(fs.readFileSync(file, 'utf8')) as OpenApiDocument;
}

function versionOf(...documents: OpenApiDocument[]): '3.0.x' | '3.1.x' {
  return documents.some((d) => String(d.openapi).startsWith('3.1')) ? '3.1.x' : '3.0.x';
}

/** Gathers changes into groups by type, wording and origin. */
function group(changes: readonly Change[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const change of changes) {
    const key = JSON.stringify([change.type, change.what, change.origin]);
    const found = groups.get(key);
    if (found) found.uses.push(change);
    else groups.set(key, { type: change.type, what: change.what, origin: change.origin, uses: [change] });
  }
  return [...groups.values()];
}

/** The schemas an operation or webhook uses, directly or through other components. */
function schemasInUse(document: OpenApiDocument): Set<string> {
  const seen = new Set<string>();
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$ref' || typeof value !== 'string') visit(value);
      else if (value.startsWith('#/components/') && !seen.has(value)) {
        seen.add(value);
        const segments = fromPointer(value);
        if (segments[1] === 'schemas') names.add(segments[2]);
        visit(at(document, segments));
      }
    }
  };
  visit(document.paths);
  visit(document.webhooks);
  return names;
}

/**
 * The changes worth a line. The library reports a component's change both in `components` and at
 * each operation that uses it: one is kept under "components" only for a schema that no operation
 * or webhook uses (only the SDK's types carry it); other components (parameters, responses,
 * headers) are not in the SDK and reach clients only through operations. And a field removed
 * from a schema is not also reported as no longer required.
 */
function worthReporting(changes: readonly Change[], inUse: ReadonlySet<string>): Change[] {
  const removedFields = new Set(changes.filter((c) => c.what.startsWith('removed field ')).map((c) => c.origin));
  return changes.filter((c) => {
    if (c.scope === 'components') {
      const [, kind, name] = fromPointer(`#${c.pointer}`);
      if (kind !== 'schemas' || inUse.has(name)) return false;
    }
    const optional = /^made field `(.+)` optional$/.exec(c.what);
    return !optional || !removedFields.has(c.origin.replace(/\/required\/\d+$/, toPointer(['properties', optional[1]])));
  });
}

/**
 * The differences between two versions of the contract. `whole` compares every operation and
 * schema, including those that are the same on both sides (for the test that compares both ways).
 */
export function compareContracts(published: OpenApiDocument, current: OpenApiDocument, { whole = false } = {}): ContractDiff {
  // The aligned copies have the same pointers as the files, so changes are located in them.
  const [before, after] = withAlignedShapes(published, current);
  const [compared, comparedTo] = whole ? [before, after] : withoutUnchanged(before, after);
  // The library writes its rewritten schemas into the documents it is given: it gets copies, so
  // that changes are located in the documents as written.
  const { diffs } = apiCompare(structuredClone(compared), structuredClone(comparedTo), { rules: contractRules(versionOf(before, after)) });
  const real = applyPolicy(diffs.filter((diff) => !diff.path.includes(SHAPE_MARKER)));
  const inUse = new Set([...schemasInUse(before), ...schemasInUse(after)]);
  const changes = worthReporting(real.map((diff) => describeDiff(diff, before, after)), inUse);
  const groups = group(changes).sort(
    (a, b) => TYPE_ORDER.indexOf(a.type) - TYPE_ORDER.indexOf(b.type) || a.origin.localeCompare(b.origin) || a.what.localeCompare(b.what),
  );
  const counts = Object.fromEntries(TYPE_ORDER.map((type) => [type, groups.filter((g) => g.type === type).length]));
  return { groups, counts: counts as Record<DiffType, number> };
}

/** The differences from the published contract file to the current one. */
export function compareContractFiles(published: string, current: string): ContractDiff {
  return compareContracts(readContract(published), readContract(current));
}

/** Whether any change breaks clients. */
export function hasBreaking(diff: ContractDiff): boolean {
  return diff.groups.some((g) => isBreaking(g.type));
}
