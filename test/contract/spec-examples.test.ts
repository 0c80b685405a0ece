/**
 * Every example in the spec is a value its schema accepts, with the ids the server makes: /docs
 * shows them as what the API sends and takes, so an example that drifted from its schema would
 * teach integrators a shape the server refuses.
 *
 * Examples are collected from the whole document (a schema's `examples` and `example`, a media
 * type's or a parameter's `example` and `examples`) and validated with Ajv's JSON Schema 2020-12
 * against the schema they belong to, `$ref`s resolved against the whole document, so that a closed
 * schema (`additionalProperties: false`, `unevaluatedProperties: false`) refuses a stray property.
 * Spectral's own example rules do not read a 3.1 schema's `examples`; `npm run lint:spec`
 * (spectral/functions/has-example.js) asks that every schema, request body, parameter and success
 * response have one.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { ID_PREFIX } from '../../src/domain/ids.js';
import { loadSpec } from '../../src/operations/spec.js';

type Json = Record<string, unknown>;

/** One example, where it is in the document, and the schema it must satisfy. */
interface ExampleSite {
  /** The example's JSON pointer, e.g. `/components/schemas/Charge/examples/0`. */
  pointer: string;
  /** The JSON pointer of the schema it belongs to. */
  schemaPointer: string;
  value: unknown;
}

/** Keywords whose values are data, not schemas: the walk never looks for examples inside them. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'enum', 'const', 'default']);

/** Objects whose keys are names (a property called `example`, a response called `default`), not keywords. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas', 'schemas', 'parameters',
  'responses', 'headers', 'content', 'paths', 'webhooks', 'requestBodies', 'securitySchemes']);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const escapeSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every example of the document, in document order. */
function collectExamples(spec: Json): ExampleSite[] {
  const sites: ExampleSite[] = [];
  const walk = (node: unknown, pointer: string, namesOnly = false): void => {
    if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${pointer}/${index}`));
    if (!isObject(node)) return;
    if (namesOnly) {
      for (const [name, child] of Object.entries(node)) walk(child, `${pointer}/${escapeSegment(name)}`);
      return;
    }
    // A schema's `examples` is an array of values; a media type's or a parameter's, a map of Example Objects.
    const ownSchema = 'schema' in node ? `${pointer}/schema` : pointer;
    if (Array.isArray(node.examples)) {
      node.examples.forEach((value, index) => sites.push({ pointer: `${pointer}/examples/${index}`, schemaPointer: pointer, value }));
    } else if (isObject(node.examples) && 'schema' in node) {
      for (const [name, example] of Object.entries(node.examples)) {
        if (isObject(example) && 'value' in example) {
          sites.push({ pointer: `${pointer}/examples/${escapeSegment(name)}/value`, schemaPointer: ownSchema, value: example.value });
        }
      }
    }
    if (node.example !== undefined) sites.push({ pointer: `${pointer}/example`, schemaPointer: ownSchema, value: node.example });
    for (const [key, child] of Object.entries(node)) {
      if (!DATA_KEYWORDS.has(key)) walk(child, `${pointer}/${escapeSegment(key)}`, NAME_MAPS.has(key));
    }
  };
  walk(spec, '');
  return sites;
}

/** Ajv for the spec's schemas: 2020-12, the formats the spec uses, the whole document as `spec`. */
function specValidator(spec: Json): (schemaPointer: string) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addSchema({ components: spec.components, paths: spec.paths, webhooks: spec.webhooks }, 'spec');
  const compiled = new Map<string, ValidateFunction>();
  return (schemaPointer) => {
    const fragment = schemaPointer.split('/').map(encodeURIComponent).join('/');
    if (!compiled.has(schemaPointer)) compiled.set(schemaPointer, ajv.compile({ $ref: `spec#${fragment}` }));
    return compiled.get(schemaPointer)!;
  };
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(the example)';
  const name = error.params.additionalProperty ?? error.params.unevaluatedProperty;
  return `${where} ${error.message}${name === undefined ? '' : ` (${String(name)})`}`;
}

/** `paymentIntent` → `payment_intent`: an object's `object` field from its kind in ID_PREFIX. */
const snakeCase = (kind: string) => kind.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The id prefix of each kind of object, by its `object` field (`payment_intent` → `pi_`). */
const PREFIX_OF_OBJECT: Record<string, string> = Object.fromEntries(
  Object.entries(ID_PREFIX).map(([kind, prefix]) => [snakeCase(kind), `${prefix}_`]),
);

/** Fields (and query parameters) that hold the id of an object of another kind. */
const REFERENCES: Record<string, string> = {
  customer: 'customer',
  charge: 'charge',
  latest_charge: 'charge',
  payment_intent: 'payment_intent',
  user: 'user',
  event: 'event',
  endpoint: 'webhook_endpoint',
};

/** Where an example value is not what the server makes: an id without its kind's prefix, an uppercase currency. */
function unrealisticValues(value: unknown, at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => unrealisticValues(item, `${at}/${index}`));
  if (!isObject(value)) return [];
  const problems: string[] = [];
  const prefix = typeof value.object === 'string' ? PREFIX_OF_OBJECT[value.object] : undefined;
  if (prefix && typeof value.id === 'string' && !value.id.startsWith(prefix)) {
    problems.push(`${at}/id ${value.id} is not a ${String(value.object)} id (${prefix}…)`);
  }
  for (const [field, kind] of Object.entries(REFERENCES)) {
    const id = value[field];
    if (typeof id === 'string' && !id.startsWith(PREFIX_OF_OBJECT[kind])) {
      problems.push(`${at}/${field} ${id} is not a ${kind} id (${PREFIX_OF_OBJECT[kind]}…)`);
    }
  }
  if (typeof value.currency === 'string' && !/^[a-z]{3}$/.test(value.currency)) {
    problems.push(`${at}/currency ${value.currency} is not a lowercase ISO 4217 code`);
  }
  for (const [key, child] of Object.entries(value)) problems.push(...unrealisticValues(child, `${at}/${escapeSegment(key)}`));
  return problems;
}

/**
 * The prefix a parameter's examples must have: the one its description names (``(`cus_…`)``),
 * or, for a query filter named after a reference field (`customer`), that kind's.
 */
function parameterPrefix(parameter: Json): string | undefined {
  const described = /\(`([a-z]+_)…`\)/.exec(String(parameter.description ?? ''))?.[1];
  if (described) return described;
  const kind = parameter.in === 'query' ? REFERENCES[String(parameter.name)] : undefined;
  return kind ? PREFIX_OF_OBJECT[kind] : undefined;
}

/** Each parameter object of the document (components and inline), with its JSON pointer. */
function parameters(spec: Json): Array<{ pointer: string; parameter: Json }> {
  const found: Array<{ pointer: string; parameter: Json }> = [];
  const add = (list: unknown, pointer: string) => {
    if (Array.isArray(list)) list.forEach((p, index) => isObject(p) && !('$ref' in p) && found.push({ pointer: `${pointer}/${index}`, parameter: p }));
    else if (isObject(list)) for (const [name, p] of Object.entries(list)) if (isObject(p)) found.push({ pointer: `${pointer}/${escapeSegment(name)}`, parameter: p });
  };
  add((spec.components as Json | undefined)?.parameters, '/components/parameters');
  for (const section of ['paths', 'webhooks']) {
    for (const [path, item] of Object.entries((spec[section] ?? {}) as Record<string, Json>)) {
      const at = `/${section}/${escapeSegment(path)}`;
      add(item.parameters, `${at}/parameters`);
      for (const [method, operation] of Object.entries(item)) if (isObject(operation)) add(operation.parameters, `${at}/${method}/parameters`);
    }
  }
  return found;
}

/** Everything wrong with the examples of a spec, each problem naming the example's JSON pointer. */
function exampleProblems(spec: Json): string[] {
  const validatorOf = specValidator(spec);
  const problems: string[] = [];
  for (const site of collectExamples(spec)) {
    const validate = validatorOf(site.schemaPointer);
    if (!validate(site.value)) problems.push(...(validate.errors ?? []).map((error) => `${site.pointer}: ${describeError(error)}`));
    problems.push(...unrealisticValues(site.value, site.pointer));
  }
  for (const { pointer, parameter } of parameters(spec)) {
    const prefix = parameterPrefix(parameter);
    const schema = parameter.schema as Json | undefined;
    const values = [parameter.example, ...((Array.isArray(schema?.examples) ? schema.examples : []) as unknown[])];
    for (const value of values) {
      if (prefix && typeof value === 'string' && !value.startsWith(prefix)) problems.push(`${pointer}: example ${value} is not a ${prefix}… id`);
    }
  }
  return problems;
}

/** The project's spec, parsed afresh (the shared parse must not be changed). */
const specCopy = () => structuredClone(loadSpec()) as Json;

/** The node at a JSON pointer of a parsed document. */
function at(document: Json, pointer: string): Json {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<Json>((node, segment) => node[segment] as Json, document);
}

describe('examples in the spec', function () {
  // Each check compiles every schema that has an example: about a second apiece.
  this.timeout(30_000);

  it('are valid against their schemas, with the ids and currencies the server makes', () => {
    expect(exampleProblems(specCopy())).to.deep.equal([]);
  });

  it('are found in schemas, parameters and nested compositions', () => {
    const pointers = collectExamples(specCopy()).map((site) => site.pointer);
    expect(pointers).to.include.members([
      '/components/schemas/Charge/examples/0',
      '/components/schemas/ChargeList/examples/0',
      '/components/schemas/ChargeSucceededEvent/examples/0',
      '/components/parameters/CustomerId/schema/examples/0',
    ]);
  });

  describe('in a copy of the spec spoilt on purpose', () => {
    /** The problems a spoilt copy has that the spec itself has not. */
    let problemsOf: (spoil: (spec: Json) => void) => string[];
    before(() => {
      const existing = new Set(exampleProblems(specCopy()));
      problemsOf = (spoil) => {
        const spec = specCopy();
        spoil(spec);
        return exampleProblems(spec).filter((problem) => !existing.has(problem));
      };
    });

    it('names a stray property of a closed object, and a value its schema refuses', () => {
      const problems = problemsOf((spec) => {
        const schema = at(spec, '/components/schemas/Charge');
        schema.examples = [{ ...(schema.examples as Json[])[0], currency: 'US1', nickname: 'x' }];
      });
      expect(problems).to.have.members([
        '/components/schemas/Charge/examples/0: (the example) must NOT have additional properties (nickname)',
        '/components/schemas/Charge/examples/0: /currency must match pattern "^[A-Za-z]{3}$"',
        '/components/schemas/Charge/examples/0/currency US1 is not a lowercase ISO 4217 code',
      ]);
    });

    it('names a stray property of an event, closed by unevaluatedProperties over its allOf', () => {
      const problems = problemsOf((spec) => {
        const schema = at(spec, '/components/schemas/CustomerCreatedEvent');
        schema.examples = [{ ...(schema.examples as Json[])[0], stray: true }];
      });
      expect(problems).to.deep.equal([
        '/components/schemas/CustomerCreatedEvent/examples/0: (the example) must NOT have unevaluated properties (stray)',
      ]);
    });

    it("names a media type's example and an id with another kind's prefix", () => {
      const problems = problemsOf((spec) => {
        at(spec, '/paths/~1v1~1refunds/post/requestBody/content/application~1json').example = {
          charge: 'cus_D0e4AGBrgVjbtsKZu2euAbcm',
          amount: 0,
        };
      });
      expect(problems).to.have.members([
        '/paths/~1v1~1refunds/post/requestBody/content/application~1json/example: /amount must be >= 1',
        '/paths/~1v1~1refunds/post/requestBody/content/application~1json/example/charge cus_D0e4AGBrgVjbtsKZu2euAbcm is not a charge id (ch_…)',
      ]);
    });

    it('names a parameter whose example is not the id its description promises', () => {
      const problems = problemsOf((spec) => {
        at(spec, '/components/parameters/CustomerId/schema').examples = ['ch_IAOdl7ghvLJacrJqZmiTDF4z'];
      });
      expect(problems).to.deep.equal(['/components/parameters/CustomerId: example ch_IAOdl7ghvLJacrJqZmiTDF4z is not a cus_… id']);
    });
  });
});
