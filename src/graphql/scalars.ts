import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

/** Up to 50 keys of at most 40 characters; values strings of at most 500 (the REST rule, checked by the spec's schema). */
function asMetadata(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GraphQLError('Metadata must be an object of string values.', { extensions: { code: 'BAD_USER_INPUT' } });
  }
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') {
      throw new GraphQLError(`Metadata value of "${key}" must be a string.`, { extensions: { code: 'BAD_USER_INPUT' } });
    }
  }
  return value as Record<string, string>;
}

function literalValue(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literalValue(field.value)]));
    case Kind.LIST:
      return node.values.map(literalValue);
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.INT:
      return Number.parseInt(node.value, 10);
    case Kind.FLOAT:
      return Number.parseFloat(node.value);
    case Kind.BOOLEAN:
      return node.value;
    default:
      return null;
  }
}

/** `metadata`: a string→string map, as in REST. */
export const metadataScalar = new GraphQLScalarType({
  name: 'Metadata',
  serialize: (value) => value,
  parseValue: asMetadata,
  parseLiteral: (node) => asMetadata(literalValue(node)),
});

/** Any JSON value: an event's object, as the REST event carries it. */
export const jsonScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node) => literalValue(node),
});
