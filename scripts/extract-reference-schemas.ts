/**
 * Extracts, from one pinned version of the widely used payments API's published OpenAPI spec, the
 * response schemas of the operations this server shares with it (same method, same path up to the
 * names of its parameters) and the components they reference, transitively, into
 * test/contract/reference/stripe-openapi.json, which test/contract/reference-responses.test.ts
 * validates our responses against. The whole spec is megabytes; the extract is what the test reads.
 *
 * `npx tsx scripts/extract-reference-schemas.ts [<git dir> [<commit> [<path>]]]`; the defaults are
 * the version the file was last made from, read from a mirror of github.com/stripe/openapi.
 *
 * What the extract leaves out, so that it stays small, changes no answer the test gives:
 * annotations (`description`, `title`, `x-…`), and the branches of an expandable field that
 * expand to an object this server does not have (an account, an invoice, …): such a field
 * here can only hold the object's id, the other branch, so the file records those it dropped.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { parse } from 'yaml';
import { loadSpec } from '../src/operations/spec.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
/** What the script reads of an operation of the reference. */
interface ReferenceOperation {
  responses: Record<string, { content: Record<string, { schema: Json }> }>;
}

const [
  gitDir = '/work/.mirror/stripe+openapi/repo',
  commit = '63a674638635c68de26b9f3add13e58198f4df44',
  specPath = 'openapi/spec3.yaml',
] = process.argv.slice(2);
const OUTPUT = 'test/contract/reference/stripe-openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** The objects this server has: an expandable field keeps its branch to these. */
const SHARED_OBJECTS = new Set([
  'charge',
  'customer',
  'deleted_customer',
  'deleted_webhook_endpoint',
  'event',
  'payment_intent',
  'payment_method',
  'refund',
  'setup_intent',
  'webhook_endpoint',
]);

/** `/v1/charges/{id}` and `/v1/charges/{charge}` are one path. */
const operationKey = (method: string, path: string) =>
  `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;
const refName = (ref: string) => ref.replace('#/components/schemas/', '');

const reference = parse(
  execFileSync('git', ['--git-dir', gitDir, 'show', `${commit}:${specPath}`], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }),
) as {
  info: { version: string };
  paths: Record<string, Record<string, ReferenceOperation>>;
  components: { schemas: Record<string, Json> };
};

const referenceOperations = new Map<
  string,
  { path: string; method: string; operation: ReferenceOperation }
>();
for (const [path, item] of Object.entries(reference.paths))
  for (const method of METHODS)
    if (item[method])
      referenceOperations.set(operationKey(method, path), {
        path,
        method,
        operation: item[method],
      });

const ours = loadSpec() as unknown as { paths: Record<string, Record<string, unknown>> };
const shared = Object.entries(ours.paths)
  .flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => operationKey(method, path)),
  )
  .filter((key) => referenceOperations.has(key))
  .sort();

const dropped = new Set<string>();

/** The schema without annotations and without expansions to objects this server lacks. */
function trim(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(trim);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' || key === 'title' || key.startsWith('x-')) continue;
    // Inside `properties`, every key is a field name, never an annotation.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, trim(v)]))
        : trim(value);
  }
  if (schema['x-expansionResources'] && Array.isArray(out.anyOf)) {
    out.anyOf = out.anyOf.filter((branch) => {
      const ref = (branch as JsonObject).$ref;
      if (typeof ref !== 'string' || SHARED_OBJECTS.has(refName(ref))) return true;
      dropped.add(refName(ref));
      return false;
    });
  }
  return out;
}

const schemas: Record<string, Json> = {};
const pending: string[] = [];
function collect(schema: Json): void {
  if (Array.isArray(schema)) return schema.forEach(collect);
  if (schema === null || typeof schema !== 'object') return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') {
      const name = refName(value);
      if (!(name in schemas) && !pending.includes(name)) pending.push(name);
    } else collect(value);
  }
}

const operations: Record<string, { path: string; schema: Json }> = {};
for (const key of shared) {
  const { path, operation } = referenceOperations.get(key)!;
  const schema = trim(operation.responses['200'].content['application/json'].schema);
  operations[key] = { path, schema };
  collect(schema);
}
while (pending.length) {
  const name = pending.shift()!;
  schemas[name] = trim(reference.components.schemas[name]);
  collect(schemas[name]);
}

const sorted = <T>(record: Record<string, T>) =>
  Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, record[k]]),
  );
const header = {
  origin: {
    repository: 'https://github.com/stripe/openapi',
    commit,
    path: specPath,
    version: reference.info.version,
  },
  made_by: 'scripts/extract-reference-schemas.ts',
  dropped_expansions: [...dropped].sort(),
  reference_operations: [...referenceOperations.keys()].sort(),
};
// One schema a line: a new version of the reference shows as a readable diff.
const lines = (record: Record<string, unknown>) =>
  Object.entries(record)
    .map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(',\n');
fs.mkdirSync('test/contract/reference', { recursive: true });
fs.writeFileSync(
  OUTPUT,
  `${JSON.stringify(header, null, 2).slice(0, -2)},\n  "operations": {\n${lines(operations)}\n  },\n  "schemas": {\n${lines(sorted(schemas))}\n  }\n}\n`,
);
console.log(
  `${OUTPUT}: ${shared.length} operations, ${Object.keys(schemas).length} schemas from ${commit.slice(0, 7)}`,
);
