/**
 * Spectral function: the target carries an example, so that the reference (/docs) shows a
 * true-to-life value and test/contract/spec-examples.test.ts has something to validate.
 *
 * `of` says what the target is:
 * - `schema`: a component schema; it has `examples` (or `example`) itself, or is only a `$ref` to
 *   a schema that has one.
 * - `media`: a media type object; it has `example`/`examples`, or its schema has one, directly,
 *   through its `$ref`, or in every branch of its `oneOf`/`anyOf`.
 * - `parameter`: a parameter object, the same way as a media type; a `$ref` to a component
 *   parameter is skipped (the component is checked where it is declared).
 * - `response`: a response (its `$ref` followed); each of its JSON media types, as `media`.
 *
 * Spectral's own oas3-valid-*-example rules validate the examples that exist; none of them asks
 * for one to exist.
 */
export default function hasExample(target, options, context) {
  if (target === null || typeof target !== 'object') return [];
  const document = context.document.data;
  switch (options.of) {
    case 'schema':
      return hasOwnExample(target) || (typeof target.$ref === 'string' && exemplified(document, target))
        ? []
        : [{ message: 'Schema has no example: give it `examples: [<a value as the server sends it>]`.' }];
    case 'parameter':
      if (typeof target.$ref === 'string') return [];
      return mediaOrParameterExemplified(document, target)
        ? []
        : [{ message: `Parameter "${target.name}" has no example: give its schema \`examples: [...]\`.` }];
    case 'media':
      return mediaOrParameterExemplified(document, target)
        ? []
        : [{ message: 'Media type has no example, neither its own nor its schema\'s.' }];
    case 'response': {
      const response = follow(document, target);
      const content = response && typeof response === 'object' ? (response.content ?? {}) : {};
      return Object.entries(content)
        .filter(([mediaType, media]) => /json/.test(mediaType) && !mediaOrParameterExemplified(document, media))
        .map(([mediaType]) => ({
          message: `Success response "${mediaType}" has no example, neither its own nor its schema's.`,
          path: [...context.path, 'content', mediaType],
        }));
    }
    default:
      throw new Error(`has-example: unknown "of": ${options.of}`);
  }
}

function hasOwnExample(node) {
  return (Array.isArray(node.examples) && node.examples.length > 0) || node.example !== undefined;
}

function mediaOrParameterExemplified(document, node) {
  if (node === null || typeof node !== 'object') return false;
  if (node.example !== undefined) return true;
  // A media type's or parameter's `examples` is a map of Example Objects.
  if (node.examples && typeof node.examples === 'object' && Object.keys(node.examples).length > 0) return true;
  return exemplified(document, node.schema);
}

/** Whether a schema shows an example: its own, its `$ref` target's, or one in each `oneOf`/`anyOf` branch. */
function exemplified(document, schema, seen = new Set()) {
  if (schema === null || typeof schema !== 'object') return false;
  if (hasOwnExample(schema)) return true;
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return false;
    seen.add(schema.$ref);
    return exemplified(document, follow(document, schema), seen);
  }
  const branches = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(branches) || branches.length === 0) return false;
  // `null` needs no example of its own.
  return branches.every((branch) => branch?.type === 'null' || exemplified(document, branch, new Set(seen)));
}

/** The node a local `$ref` (`#/components/...`) points to, or the node itself. */
function follow(document, node) {
  if (typeof node?.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  return node.$ref
    .slice(2)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((current, segment) => (current === null || typeof current !== 'object' ? undefined : current[segment]), document);
}
