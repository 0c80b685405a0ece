import { ApiError } from '../domain/errors.js';
import { formNotation } from '../domain/nul-guard.js';
import type { SpecDocument } from '../operations/spec.js';
import type { FormValue } from './form-parser.js';

/** The parts of a JSON Schema this step reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
}

/** Plain decimal digits: no `0x10`, `1e3`, `+100`, ` 100` or `1.0`, which `Number()` would take. */
const INTEGER = /^-?[0-9]+$/;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;
/** Any letter case: some payment SDKs send `True`. */
const BOOLEAN = /^(true|false)$/i;

/** How a value may stand for another shape. */
export interface CoercionOptions {
  /** A single value stands for a one-item list (a query's `expand=customer`, OpenAPI's form style). */
  singleAsList?: boolean;
}

/**
 * Turns form values (strings, lists, objects) into the types their schema declares, strictly: an
 * integer is plain decimal digits and a safe integer, a number a plain decimal, a boolean `true` or
 * `false` in any case; a value where an object or list is wanted, or the reverse, is refused. Each
 * refusal is a 400 `parameter_invalid` naming the field in form notation. What the schema does
 * not describe (an unknown field) is left as sent, for the validator to refuse by name; bounds,
 * patterns and required fields are the validator's too.
 */
export class FormCoercion {
  constructor(private readonly spec: SpecDocument) {}

  coerce(value: FormValue | null, schema: Schema | undefined, path: string[], options: CoercionOptions = {}): unknown {
    const types = this.typesOf(schema);
    // null: an empty value that unsets a nullable field (see form-bodies.ts).
    if (types.size === 0 || value === null) return value;
    if (typeof value === 'string') return this.scalar(value, schema, types, path, options);
    if (Array.isArray(value)) {
      if (!types.has('array')) throw invalid(path, 'must be a single value (it was sent more than once, or as a list)');
      const items = this.itemsOf(schema);
      return value.map((item, i) => this.coerce(item, items, [...path, String(i)]));
    }
    if (types.has('object')) {
      const object: Record<string, unknown> = Object.create(null);
      for (const [name, item] of Object.entries(value))
        object[name] = this.coerce(item, this.propertyOf(schema, name), [...path, name]);
      return object;
    }
    // `expand[0]=customer&expand[1]=charge`: numbered fields of a list, in their numeric order.
    const indexes = Object.keys(value);
    if (types.has('array') && indexes.every((index) => /^(0|[1-9][0-9]{0,5})$/.test(index))) {
      const list = indexes.sort((a, b) => Number(a) - Number(b)).map((index) => value[index]);
      return this.coerce(list, schema, path, options);
    }
    throw invalid(path, types.has('array') ? 'must be a list (name[]=value)' : 'must be a single value, not an object');
  }

  private scalar(
    value: string,
    schema: Schema | undefined,
    types: Set<string>,
    path: string[],
    options: CoercionOptions,
  ): unknown {
    if (types.has('string')) return value;
    if (types.has('integer') && INTEGER.test(value)) {
      const integer = Number(value);
      if (!Number.isSafeInteger(integer)) throw invalid(path, 'is too large');
      return integer;
    }
    if (types.has('number') && DECIMAL.test(value)) return Number(value);
    if (types.has('boolean') && BOOLEAN.test(value)) return value.toLowerCase() === 'true';
    if (types.has('array') && options.singleAsList) return [this.coerce(value, this.itemsOf(schema), [...path, '0'])];
    throw invalid(path, expectation(types));
  }

  /** Every type a schema admits, through `$ref`, type lists and `oneOf`/`anyOf`/`allOf`. */
  private typesOf(schema: Schema | undefined): Set<string> {
    const types = new Set<string>();
    for (const s of this.branches(schema)) {
      if (typeof s.type === 'string') types.add(s.type);
      else if (Array.isArray(s.type)) for (const type of s.type) types.add(type);
    }
    return types;
  }

  private propertyOf(schema: Schema | undefined, name: string): Schema | undefined {
    for (const s of this.branches(schema)) {
      const property = s.properties && Object.hasOwn(s.properties, name) ? s.properties[name] : undefined;
      if (property) return property;
      if (typeof s.additionalProperties === 'object') return s.additionalProperties;
    }
    return undefined;
  }

  private itemsOf(schema: Schema | undefined): Schema | undefined {
    return this.branches(schema).find((s) => s.items)?.items;
  }

  /** The schema and its `oneOf`/`anyOf`/`allOf` branches, each resolved. */
  private branches(schema: Schema | undefined): Schema[] {
    const resolved = this.resolve(schema);
    if (!resolved) return [];
    const nested = [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.allOf ?? [])];
    return [resolved, ...nested.flatMap((branch) => this.branches(branch))];
  }

  /** Follows `$ref`s (`#/components/schemas/Amount`) within the spec. */
  resolve(schema: Schema | undefined): Schema | undefined {
    let current = schema;
    while (current?.$ref) {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], this.spec) as Schema | undefined;
    }
    return current;
  }
}

function expectation(types: Set<string>): string {
  if (types.has('integer')) return 'must be an integer in plain decimal digits';
  if (types.has('number')) return 'must be a number in plain decimal digits';
  if (types.has('boolean')) return 'must be true or false';
  if (types.has('object')) return 'must be an object, sent in bracket notation (name[key]=value)';
  if (types.has('array')) return 'must be a list (name[]=value)';
  return 'is invalid';
}

function invalid(path: string[], problem: string): ApiError {
  const param = formNotation(path);
  return new ApiError('parameter_invalid', `Invalid ${param}: ${problem}.`, { param });
}
