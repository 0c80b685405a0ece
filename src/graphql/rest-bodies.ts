import { toRestEnum } from './enums.js';

/**
 * How the fields of a GraphQL input are named in the REST body (`paymentMethod` is
 * `payment_method`), and which of them, by REST name, hold an enum value to spell as REST does.
 */
export interface RestFields {
  renames?: Readonly<Record<string, string>>;
  enums?: readonly string[];
}

/**
 * A GraphQL input object as a REST body: explicit nulls are kept (they unset, or REST refuses them
 * naming the parameter), absent fields are left out, names and enum values are REST's.
 */
export function restBody(input: object, fields: RestFields = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const restName = fields.renames?.[name] ?? name;
    body[restName] = typeof value === 'string' && fields.enums?.includes(restName) ? toRestEnum(value) : value;
  }
  return body;
}
