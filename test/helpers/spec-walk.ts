/**
 * Walks the OpenAPI document for the request-fields contract test: every operation with a request
 * body, the properties its body schema declares, a value for each built from the schema, and the
 * check that each property sent is either reflected in the response or declared `writeOnly`.
 *
 * Everything here is a function of the spec (a plain parsed document), so the checker can be
 * unit-tested on a synthetic spec where a property is dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** A JSON Schema object as it appears in the spec (refs unresolved). */
export type Schema = Record<string, any>;

/** The parsed OpenAPI document. */
export type Spec = Record<string, any>;

const SPEC_FILE = path.resolve(import.meta.dirname, '../../openapi/openapi.yaml');

/** The project's spec, parsed (a fresh copy each call, safe to modify). */
export function loadSpec(): Spec {
  return parse(fs.readFileSync(SPEC_FILE, 'utf8')) as Spec;
}

/** Follows local `$ref`s (`#/components/...`) until a schema without one; sibling keywords win. */
export function deref(spec: Spec, schema: Schema): Schema {
  let current = schema;
  const seen = new Set<string>();
  while (current && typeof current.$ref === 'string') {
    const ref: string = current.$ref;
    if (seen.has(ref)) throw new Error(`circular $ref ${ref}`);
    seen.add(ref);
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
    if (!target) throw new Error(`unresolved $ref ${ref}`);
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

/** One property of a request body schema. */
export interface RequestProperty {
  name: string;
  schema: Schema;
  /** `writeOnly: true` on the property: accepted, never shown back. */
  writeOnly: boolean;
}

/** The properties of an object schema (its `allOf` parts merged), excluding `readOnly` ones. */
export function requestProperties(spec: Spec, schema: Schema): RequestProperty[] {
  const resolved = deref(spec, schema);
  const parts = [
    resolved,
    ...((resolved.allOf ?? []) as Schema[]).map((part) => deref(spec, part)),
  ];
  const properties: RequestProperty[] = [];
  for (const part of parts) {
    for (const [name, property] of Object.entries(
      (part.properties ?? {}) as Record<string, Schema>,
    )) {
      const full = deref(spec, property);
      if (full.readOnly === true) continue;
      properties.push({ name, schema: property, writeOnly: full.writeOnly === true });
    }
  }
  return properties;
}

/** An operation that takes a request body (a create, update, replace or action). */
export interface BodyOperation {
  operationId: string;
  method: 'post' | 'put' | 'patch';
  /** The path template, e.g. `/v1/customers/{id}`. */
  path: string;
  /** Path parameters as the spec declares them: name and the component it references, if any. */
  pathParams: Array<{ name: string; component?: string }>;
  /** The request body schema, JSON's if declared (unresolved). */
  requestSchema: Schema;
  /** The JSON schema of the 200 response (unresolved). */
  responseSchema: Schema;
  /** The security schemes the operation accepts. */
  security: string[];
}

/** Every operation under `paths` with a request body (the 3.1 `webhooks` are not ours to call). */
export function bodyOperations(spec: Spec): BodyOperation[] {
  const operations: BodyOperation[] = [];
  for (const [template, item] of Object.entries((spec.paths ?? {}) as Record<string, any>)) {
    for (const method of ['post', 'put', 'patch'] as const) {
      const operation = item[method];
      const content = operation?.requestBody && deref(spec, operation.requestBody).content;
      // JSON and form bodies share one schema here; a body in any media type counts.
      const requestSchema =
        content && (content['application/json'] ?? Object.values(content)[0])?.schema;
      if (!requestSchema) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])] as Schema[];
      const pathParams = parameters
        .map((parameter) => ({
          resolved: deref(spec, parameter),
          ref: parameter.$ref as string | undefined,
        }))
        .filter(({ resolved }) => resolved.in === 'path')
        .map(({ resolved, ref }) => ({
          name: resolved.name as string,
          component: ref?.split('/').at(-1),
        }));
      const ok = operation.responses?.['200'] && deref(spec, operation.responses['200']);
      operations.push({
        operationId: operation.operationId,
        method,
        path: template,
        pathParams,
        requestSchema,
        responseSchema: ok?.content?.['application/json']?.schema ?? {},
        security: (
          (operation.security ?? spec.security ?? []) as Array<Record<string, unknown>>
        ).flatMap(Object.keys),
      });
    }
  }
  return operations;
}

/** The response fields the spec marks expandable (`x-expansionResources`): what `expand` may name. */
export function expandableFields(spec: Spec, responseSchema: Schema): string[] {
  const resolved = deref(spec, responseSchema);
  return Object.entries((resolved.properties ?? {}) as Record<string, Schema>)
    .filter(([, property]) => property['x-expansionResources'] !== undefined)
    .map(([name]) => name);
}

/**
 * A valid value for a schema, different for each `seed` wherever the schema allows (enums cycle,
 * numbers and strings carry the seed, booleans alternate), so that two requests with consecutive
 * seeds never both match a server-side default. Prefers the schema's own `examples`/`example`;
 * never builds `null`. Throws, naming the property, when a `pattern` leaves it no way to build
 * one: give that schema `examples`.
 */
export function sampleValue(spec: Spec, schema: Schema, seed: number, name: string): unknown {
  const s = deref(spec, schema);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.examples) && s.examples.length > 0)
    return s.examples[seed % s.examples.length];
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.enum)) return s.enum[seed % s.enum.length];
  const variants = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (variants) {
    const usable = variants.filter((variant) => deref(spec, variant).type !== 'null');
    return sampleValue(spec, usable[0], seed, name);
  }
  if (s.allOf)
    return sampleValue(
      spec,
      Object.assign({}, ...(s.allOf as Schema[]).map((part) => deref(spec, part))),
      seed,
      name,
    );
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return sampleString(s, seed, name);
    case 'integer':
    case 'number': {
      const low = s.minimum ?? 0;
      const high = s.maximum ?? low + 1_000_000;
      return low + 100 + seed <= high ? low + 100 + seed : low + (seed % (high - low + 1));
    }
    case 'boolean':
      return seed % 2 === 0;
    case 'array': {
      const count = Math.max(s.minItems ?? 1, 1);
      return Array.from({ length: count }, (_, i) =>
        sampleValue(spec, s.items ?? {}, seed + i, name),
      );
    }
    case 'object': {
      if (s.properties) {
        const properties = Object.entries(s.properties as Record<string, Schema>);
        return Object.fromEntries(
          properties.map(([key, property]) => [key, sampleValue(spec, property, seed, key)]),
        );
      }
      // A map (metadata): one entry, its key and value carrying the seed.
      const values =
        typeof s.additionalProperties === 'object' ? s.additionalProperties : { type: 'string' };
      return { [`${name}_key_${seed}`]: sampleValue(spec, values, seed, `${name} value`) };
    }
    default:
      throw new Error(
        `cannot build a value for ${name}: schema without a type (${JSON.stringify(s)})`,
      );
  }
}

function sampleString(s: Schema, seed: number, name: string): string {
  let value: string;
  if (s.format === 'email') value = `${name}.${seed}@example.com`;
  else if (s.format === 'uri' || s.format === 'url') value = `https://example.com/${name}/${seed}`;
  else value = `${name} ${seed}`;
  const max = s.maxLength ?? Infinity;
  if (value.length > max) value = `${seed}`.padStart(Math.min(max, 8), 'x').slice(-max);
  if (value.length < (s.minLength ?? 0)) value = value.padEnd(s.minLength, 'x');
  if (s.pattern && !new RegExp(s.pattern, 'u').test(value)) {
    throw new Error(
      `cannot build a value for ${name} matching ${s.pattern}: give its schema \`examples\``,
    );
  }
  return value;
}

/** One request and what the server answered. */
export interface Observation {
  operationId: string;
  /** The body sent, as built (before any form encoding). */
  sent: Record<string, unknown>;
  /** The 200 response body. */
  received: Record<string, unknown>;
}

/**
 * The properties that the spec lets a client send and that the server neither shows back nor
 * declares `writeOnly`, one line each, `operationId: property (why)`; also each property of an
 * operation that no observation sent, and each body operation never observed. Empty when all is
 * well.
 *
 * Reflected means: the response has a field of that name whose value equals what was sent; an
 * object sent (a metadata map) is reflected when each of its entries is (an update merges it into
 * what was there); an id sent is reflected by the object it names when the response expanded it;
 * `expand` is reflected when every path it named holds an object in the response.
 */
export function unreflectedProperties(
  spec: Spec,
  observations: readonly Observation[],
  /** Check only these operations (default: every operation with a body). */
  only?: readonly string[],
): string[] {
  const problems: string[] = [];
  for (const operation of bodyOperations(spec)) {
    if (only && !only.includes(operation.operationId)) continue;
    const mine = observations.filter(
      (observation) => observation.operationId === operation.operationId,
    );
    if (mine.length === 0) {
      problems.push(`${operation.operationId}: never called`);
      continue;
    }
    for (const property of requestProperties(spec, operation.requestSchema)) {
      const sentIn = mine.filter((observation) => Object.hasOwn(observation.sent, property.name));
      if (sentIn.length === 0) {
        problems.push(`${operation.operationId}: ${property.name} (never sent)`);
        continue;
      }
      if (property.writeOnly) continue;
      for (const { sent, received } of sentIn) {
        const why = notReflected(property.name, sent[property.name], received);
        if (why) {
          const hint = 'mark it writeOnly in the spec if it is never shown';
          problems.push(`${operation.operationId}: ${property.name} (${why}; ${hint})`);
          break;
        }
      }
    }
  }
  return problems;
}

/** Why a sent value is not in the response, or undefined when it is. */
function notReflected(
  name: string,
  sent: unknown,
  received: Record<string, unknown>,
): string | undefined {
  if (name === 'expand') {
    const unexpanded = (sent as string[]).filter((fieldPath) => !isObject(at(received, fieldPath)));
    return unexpanded.length > 0
      ? `sent ${JSON.stringify(sent)}, not expanded: ${unexpanded.join(', ')}`
      : undefined;
  }
  if (!Object.hasOwn(received, name))
    return `sent ${JSON.stringify(sent)}, the response has no field ${name}`;
  return reflects(sent, received[name])
    ? undefined
    : `sent ${JSON.stringify(sent)}, got ${JSON.stringify(received[name])}`;
}

function reflects(sent: unknown, got: unknown): boolean {
  if (typeof sent === 'string' && isObject(got) && got.id === sent) return true;
  if (isObject(sent) && isObject(got)) {
    return Object.entries(sent).every(
      ([key, value]) => Object.hasOwn(got, key) && reflects(value, got[key]),
    );
  }
  return JSON.stringify(sent) === JSON.stringify(got);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(object: unknown, fieldPath: string): unknown {
  return fieldPath
    .split('.')
    .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), object);
}
