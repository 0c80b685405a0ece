/**
 * api-smart-diff's OpenAPI 3 rules, corrected for how this contract is written.
 *
 * The library picks request or response rules for a body schema from where the schema sits in
 * the document (`paths/…/responses/…/schema`). A response written as
 * `$ref: '#/components/responses/BadRequest'` is compared at its component's path, so its schema
 * got the request rules: every error body was classified backwards (a narrowed enum in it
 * "breaking", a removed field "non-breaking"). Here the direction follows the node instead: a
 * response's content is always a response, a request body's always a request.
 *
 * The library also has no rules for OpenAPI 3.1's `webhooks`: a removed webhook came out
 * "unclassified" and payload changes were not looked at. A webhook is an operation the server
 * calls, so its request body is what the server sends (response rules) and its responses are
 * what the receiver answers (request rules).
 *
 * And an operationId is more than an annotation here: it names the SDK's function for the
 * operation, so changing or removing one breaks the SDK's users. The document's `tags`, which only
 * group operations in the docs, are annotations: the library left a tag added to the list
 * unclassified, which counted as breaking.
 *
 * And the alternatives of a `oneOf` or `anyOf` named by the same `$ref` are paired with each other
 * (scripts/api-diff-combiners.ts).
 */
import { addNonBreaking, allAnnotation, allBreaking, openapi3Rules, openApiSchemaRules, type CompareRules } from 'api-smart-diff';
import { withRefFirstCombiners } from './api-diff-combiners.js';

/** The OpenAPI versions the library tells apart (it reads JSON Schema 2020-12 for 3.1). */
export type OpenApiVersion = '3.0.x' | '3.1.x';

/**
 * One rule set's child, which must be a plain object: a function in its place means the library's
 * rules changed shape, and the corrections below would silently stop applying.
 */
function child(rules: CompareRules, key: `/${string}`): CompareRules {
  const value = (rules as Record<string, unknown>)[key];
  if (typeof value !== 'object' || value === null) {
    throw new Error(`api-smart-diff's OpenAPI rules have no object at ${key}: review scripts/api-diff-rules.ts for this version`);
  }
  return value as CompareRules;
}

/** Media-type rules (`content`) whose `schema` is always compared with `schemaRules`. */
function contentWith(content: CompareRules, schemaRules: CompareRules): CompareRules {
  return { ...content, '/*': { ...child(content, '/*'), '/schema': schemaRules } };
}

/** A request body's rules and a responses map's rules, each with its content in the given direction. */
function bodies(operation: CompareRules, request: CompareRules, response: CompareRules) {
  const requestBody = child(operation, '/requestBody');
  const responses = child(operation, '/responses');
  const oneResponse = child(responses, '/*');
  return {
    requestBody: { ...requestBody, '/content': contentWith(child(requestBody, '/content'), request) },
    responses: { ...responses, '/*': { ...oneResponse, '/content': contentWith(child(oneResponse, '/content'), response) } },
  };
}

/** The rules for comparing two versions of an OpenAPI 3 document with api-smart-diff. */
export function contractRules(version: OpenApiVersion): CompareRules {
  const base = openapi3Rules({ version });
  // One instance per direction: the library caches the comparison of each $ref inside a rule set.
  const request = { ...openApiSchemaRules({ version }), $: allBreaking };
  const response = { ...openApiSchemaRules({ version, response: true }), $: allBreaking };

  const paths = child(base, '/paths');
  const pathItem = child(paths, '/*');
  const operation = child(pathItem, '/*');
  const forward = bodies(operation, request, response);
  const reversed = bodies(operation, response, request);
  const operationId = { ...child(operation, '/*'), $: addNonBreaking };

  const components = child(base, '/components');
  return withRefFirstCombiners({
    ...base,
    '/tags': { $: allAnnotation, '/*': { $: allAnnotation, '/*': { $: allAnnotation } } },
    '/paths': {
      ...paths,
      '/*': { ...pathItem, '/*': { ...operation, '/operationId': operationId, '/requestBody': forward.requestBody, '/responses': forward.responses } },
    },
    '/webhooks': {
      ...paths,
      '/*': { ...pathItem, '/*': { ...operation, '/requestBody': reversed.requestBody, '/responses': reversed.responses } },
    },
    '/components': {
      ...components,
      '/requestBodies': { ...child(components, '/requestBodies'), '/*': forward.requestBody },
      '/responses': { ...child(components, '/responses'), '/*': forward.responses },
    },
  } as CompareRules);
}
