import { BREAK, Kind, visit, type DocumentNode, type ValueNode } from 'graphql';
import { hasNul } from '../domain/nul-guard.js';

/**
 * The first string literal of a document holding U+0000 (written `\u0000` or `\u{0}`), as a path
 * from its argument or variable: `['input', 'metadata', 'k']` for
 * `createCustomer(input: {metadata: {k: "\u0000"}})`. Undefined when there is none. Variables are
 * checked with the other request parameters (request-params.ts); a raw NUL in the document is
 * refused there too, so only an escape can put one here: `source` without `\u` is skipped.
 */
export function findNulLiteral(document: DocumentNode, source: string): string[] | undefined {
  if (!source.includes('\\u')) return undefined;
  let found: string[] | undefined;
  visit(document, {
    Argument(node) {
      found = inValue(node.value, [node.name.value]);
      return found ? BREAK : false;
    },
    VariableDefinition(node) {
      found = node.defaultValue && inValue(node.defaultValue, [node.variable.name.value]);
      return found ? BREAK : false;
    },
  });
  return found;
}

function inValue(value: ValueNode, path: string[]): string[] | undefined {
  switch (value.kind) {
    case Kind.STRING:
      return hasNul(value.value) ? path : undefined;
    case Kind.LIST:
      for (let i = 0; i < value.values.length; i++) {
        const found = inValue(value.values[i], [...path, String(i)]);
        if (found) return found;
      }
      return undefined;
    case Kind.OBJECT:
      for (const field of value.fields) {
        const found = inValue(field.value, [...path, field.name.value]);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}
