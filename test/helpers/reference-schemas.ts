import fs from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * The response schemas of the widely used payments API, as extracted from one published version of
 * its OpenAPI spec by scripts/extract-reference-schemas.ts, compiled into validators.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The extract: where it comes from, the reference's operations, and the schemas of the shared ones. */
export interface ReferenceFile {
  origin: { repository: string; commit: string; path: string; version: string };
  dropped_expansions: string[];
  reference_operations: string[];
  operations: Record<string, { path: string; schema: Json }>;
  schemas: Record<string, Json>;
}

export const REFERENCE_FILE = 'test/contract/reference/stripe-openapi.json';

/** `get /v1/charges/{id}` → `get /v1/charges/{}`: the key of an operation in the extract. */
export const operationKey = (method: string, path: string): string =>
  `${method.toLowerCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

/**
 * OpenAPI 3.0's `nullable` as JSON Schema, and, where `extras` names fields for a schema, those
 * fields admitted with any value; every other object that lists its properties is closed, so that
 * a field the reference does not have is found, not let through.
 */
function toJsonSchema(schema: Json, extras: Record<string, string[]>, name?: string): Json {
  if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, extras));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as JsonObject).map(([k, v]) => [k, toJsonSchema(v, extras)]),
          )
        : toJsonSchema(value, extras);
  }
  if (out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
    for (const field of (name && extras[name]) ?? []) (out.properties as JsonObject)[field] = {};
  }
  if (schema.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

/** A validator per shared operation of the reference, each compiled on first use and kept. */
export class ReferenceValidators {
  readonly file: ReferenceFile;
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  /** `extras`: fields our objects carry that the reference lacks, by schema name, admitted deliberately. */
  constructor(extras: Record<string, string[]> = {}) {
    this.file = JSON.parse(fs.readFileSync(REFERENCE_FILE, 'utf8')) as ReferenceFile;
    this.ajv = new Ajv({
      allErrors: true,
      // Each component compiled once, shared by every operation that reaches it.
      inlineRefs: false,
      strict: false,
      formats: {
        'unix-time': { type: 'number', validate: (n: number) => Number.isInteger(n) },
        decimal: /^-?\d+(\.\d+)?$/,
      },
    });
    const schemas = Object.fromEntries(
      Object.entries(this.file.schemas).map(([name, schema]) => [
        name,
        toJsonSchema(schema, extras, name),
      ]),
    );
    // One document, so that the `#/components/schemas/…` references resolve as in the spec.
    const operations = Object.fromEntries(
      Object.entries(this.file.operations).map(([key, { schema }]) => [
        anchor(key),
        toJsonSchema(schema, extras),
      ]),
    );
    this.ajv.addSchema({ $id: 'reference', components: { schemas }, operations });
  }

  /** The errors of `body` as the response of the reference's operation `key`; empty when it conforms. */
  errors(key: string, body: unknown): ErrorObject[] {
    if (!this.file.operations[key])
      throw new Error(`${key} is not a shared operation of the reference`);
    return this.run(`operations/${anchor(key)}`, body);
  }

  /**
   * The errors of `object` as the reference's object of that name (`charge`), for what the
   * reference leaves open, such as an event's `data.object`.
   */
  objectErrors(name: string, object: unknown): ErrorObject[] {
    if (!this.file.schemas[name]) throw new Error(`${name} is not an object of the extract`);
    return this.run(`components/schemas/${name}`, object);
  }

  private run(pointer: string, body: unknown): ErrorObject[] {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`reference#/${pointer}`)!;
      this.compiled.set(pointer, validate);
    }
    return validate(body) ? [] : (validate.errors ?? []);
  }
}

/** An operation key as a JSON pointer segment. */
const anchor = (key: string) => key.replace(/\//g, '.').replace(/ /g, '-').replace(/\{\}/g, 'ID');
