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
 * And a change of a value's type is classified here by which way the value travels (see
 * typeChange).
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

/** Which way a value at this path travels: sent by clients, read by clients, or unknown (a shared schema). */
function direction(path: Diff['path']): 'request' | 'response' | undefined {
  const [root, , third, fourth] = path;
  if (root === 'paths') {
    if (third === 'parameters' || fourth === 'parameters' || fourth === 'requestBody') return 'request';
    return fourth === 'responses' ? 'response' : undefined;
  }
  // A webhook's payload is what the server sends; its responses are what the receiver answers.
  if (root === 'webhooks') return fourth === 'requestBody' ? 'response' : fourth === 'responses' ? 'request' : undefined;
  if (root === 'components') return path[1] === 'responses' ? 'response' : ['requestBodies', 'parameters'].includes(String(path[1])) ? 'request' : undefined;
  return undefined;
}

/**
 * The class of a change of a schema's `type` (`string` to `[string, 'null']`, an entry of a type
 * list added, removed or replaced), or undefined for any other change. The library's verdicts on
 * types were unreliable (a response's `integer` becoming `[integer, 'null']` came out
 * non-breaking): here a widened type breaks readers of responses, a narrowed one senders of
 * requests, and a type replaced by another both.
 */
function typeChange(diff: Diff): Diff['type'] | undefined {
  const [last, parent, grandparent] = [diff.path.at(-1), diff.path.at(-2), diff.path.at(-3)];
  const types = (value: unknown) => new Set([value].flat().filter((v) => v !== undefined).map(String));
  let before: Set<string>;
  let after: Set<string>;
  // A property named `type` is a name, not the keyword.
  if (last === 'type' && parent !== 'properties' && diff.action === 'replace') [before, after] = [types(diff.before), types(diff.after)];
  else if (parent === 'type' && typeof last === 'number' && grandparent !== 'properties') {
    if (diff.action === 'replace') return 'breaking';
    [before, after] = diff.action === 'add' ? [new Set<string>(), types(diff.after)] : [types(diff.before), new Set<string>()];
  } else return undefined;
  const within = (a: Set<string>, b: Set<string>) => [...a].every((type) => b.has(type));
  const widened = within(before, after);
  const narrowed = within(after, before);
  if (widened && narrowed) return 'annotation';
  if (!widened && !narrowed) return 'breaking';
  const side = direction(diff.path);
  if (side === undefined) return diff.type;
  return (side === 'request') === widened ? 'non-breaking' : 'breaking';
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
      result.push({ ...diff, type: typeChange(diff) ?? diff.type });
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
