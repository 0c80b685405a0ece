/**
 * The project's policy on what breaks a client (docs/conventions.md, "Breaking changes"), applied
 * over api-smart-diff's classification.
 *
 * Annotations never break a client: neither the wire nor the SDK's types change with them. The
 * library classifies an annotation keyword itself (`description: …` changed), but not what is
 * inside one: a field added to a schema's `examples` came out "unclassified", which counts as
 * breaking, so that adding a response field with the example the lint requires failed the gate.
 * Here every change at or inside an annotation keyword is an annotation, reported once at the
 * keyword ("changed examples") rather than once per value inside it.
 *
 * And a value's type replaced by another (`string` to `integer`) breaks in either direction: a
 * client can neither send nor read the new type as it did the old one. The library took such a
 * change in a response for a relaxation.
 */
import type { Diff } from 'api-smart-diff';

/** Keywords that document and never constrain; `x-…` documentation extensions too. */
const ANNOTATION_KEYWORDS = new Set(['description', 'summary', 'title', 'example', 'examples', 'externalDocs', '$comment']);

/** Keywords whose children are names (of properties, paths, status codes, media types, …), not keywords. */
const NAME_MAPS = new Set([
  'paths',
  'webhooks',
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
  'schemas',
  'responses',
  'parameters',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'content',
  'encoding',
  'variables',
  'mapping',
  'scopes',
]);

/** Keywords whose values are data (a property named `description` in a default is no annotation). */
const DATA = new Set(['enum', 'const', 'default', 'required', 'security', 'tags']);

/** Whether a segment in keyword position is an annotation keyword. */
function isAnnotationKeyword(segment: string | number): boolean {
  return typeof segment === 'string' && (ANNOTATION_KEYWORDS.has(segment) || segment.startsWith('x-'));
}

/**
 * How long the part of `path` up to and including its first annotation keyword is, or 0 when the
 * path reaches none. A segment right after a map of names is a name, whatever it spells.
 */
export function annotationDepth(path: Diff['path']): number {
  let isName = false;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    if (!isName && typeof segment === 'string') {
      if (isAnnotationKeyword(segment)) return i + 1;
      if (DATA.has(segment)) return 0;
    }
    // `components` and the document hold keywords; a map's entries are names; an array's are nodes.
    isName = !isName && typeof segment === 'string' && NAME_MAPS.has(segment);
  }
  return 0;
}

/** Whether a diff replaces a schema's type (`type: string`, or an entry of `type: [string, 'null']`) by another. */
function replacesType(diff: Diff): boolean {
  if (diff.action !== 'replace') return false;
  const [last, parent, grandparent] = [diff.path.at(-1), diff.path.at(-2), diff.path.at(-3)];
  // A property named `type` is a name, not the keyword.
  if (last === 'type') return parent !== 'properties';
  return parent === 'type' && typeof last === 'number' && grandparent !== 'properties';
}

/**
 * The library's differences with the policy applied: each one inside an annotation becomes one
 * `annotation` change of that keyword (`replace`: the keyword is on both sides, only its content
 * differs), each keyword reported once.
 */
export function applyPolicy(diffs: readonly Diff[]): Diff[] {
  const seen = new Set<string>();
  const result: Diff[] = [];
  for (const diff of diffs) {
    const depth = annotationDepth(diff.path);
    if (depth === 0) {
      result.push(replacesType(diff) ? { ...diff, type: 'breaking' } : diff);
      continue;
    }
    const path = diff.path.slice(0, depth);
    const key = JSON.stringify(path);
    if (seen.has(key)) continue;
    seen.add(key);
    if (depth === diff.path.length) result.push({ ...diff, type: 'annotation' });
    else result.push({ path, action: 'replace', type: 'annotation' });
  }
  return result;
}
