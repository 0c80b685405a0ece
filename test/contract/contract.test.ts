import { expect } from 'chai';
import { ERROR_CATALOG } from '../../src/domain/errors.js';
import { handlers } from '../../src/resources/handlers.js';
import { routeOperations } from '../../src/operations/routes.js';
import { loadSpec } from '../../src/operations/spec.js';

const spec = loadSpec();
const schemas = spec.components.schemas as Record<string, { enum?: string[]; description?: string }>;

describe('contract', () => {
  it('binds a handler to every operation of the spec, and to nothing else', () => {
    const operationIds = routeOperations().map((route) => route.operationId);
    expect(Object.keys(handlers).sort()).to.deep.equal([...operationIds].sort());
  });

  it('has the same error codes in the spec and in the catalog, with the documented status and type', () => {
    expect(Object.keys(ERROR_CATALOG).sort()).to.deep.equal([...schemas.ErrorCode.enum!].sort());
    const documented = new Map<string, { status: number; type: string }>();
    for (const match of schemas.ErrorCode.description!.matchAll(/^\| `(\w+)` \| (\d{3}) \| (\w+) \|$/gm)) {
      documented.set(match[1], { status: Number(match[2]), type: match[3] });
    }
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      expect(documented.get(code), `spec table row for ${code}`).to.deep.equal(entry);
    }
  });

  it('puts every code in exactly one kind of error (AnyError), whose type is the catalog\'s, and answers each status with the kinds of its codes', () => {
    type ObjectSchema = { properties: Record<string, { const?: string; enum?: string[] }> };
    const refName = (ref: { $ref: string }) => ref.$ref.split('/').pop()!;
    const kinds = (spec.components.schemas.AnyError as { oneOf: { $ref: string }[] }).oneOf.map(refName);
    const codesOf = (kind: string) => {
      const code = (spec.components.schemas[kind] as ObjectSchema).properties.code;
      return code.enum ?? [code.const!];
    };
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      const holders = kinds.filter((kind) => codesOf(kind).includes(code));
      expect(holders, `kinds holding ${code}`).to.have.length(1);
      expect((spec.components.schemas[holders[0]] as ObjectSchema).properties.type.const, code).to.equal(entry.type);
    }
    // The response declared for a status admits exactly the kinds whose codes have that status.
    const responses = spec.components.responses as Record<string, { content: { 'application/json': { schema: { $ref: string } } } }>;
    const STATUS_OF: Record<string, number> = {
      BadRequest: 400, Unauthorized: 401, CardDeclined: 402, PaymentDeclined: 402, Forbidden: 403, NotFound: 404,
      Conflict: 409, TooManyRequests: 429, ServerError: 500,
    };
    for (const [response, status] of Object.entries(STATUS_OF)) {
      const envelope = spec.components.schemas[refName(responses[response].content['application/json'].schema)] as {
        properties: { error: { $ref?: string; oneOf?: { $ref: string }[] } };
      };
      const error = envelope.properties.error;
      const declared = (error.oneOf ?? [error as { $ref: string }]).map(refName).sort();
      const expected = kinds.filter((kind) => codesOf(kind).some((code) => ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status === status));
      expect(declared, `kinds of a ${status} (${response})`).to.deep.equal(expected.sort());
    }
  });

  /** The paths outside /v1 and /admin, each with the credentials it takes (OAuth's own endpoints). */
  const OAUTH_PATHS: Record<string, string[]> = { '/oauth/token': ['oauthClientBasic'], '/.well-known/jwks.json': [] };
  const ACCOUNT_SCHEMES = ['apiKey', 'apiKeyBasic', 'oauth2', 'httpSignature', 'mutualTLS'];

  it('declares security for every operation: every account credential on /v1, the admin Basic on /admin, the client on /oauth/token', () => {
    const globalSecurity = spec.security as Array<Record<string, string[]>>;
    for (const route of routeOperations()) {
      const operation = spec.paths[route.specPath][route.method] as { security?: Array<Record<string, string[]>> };
      const security = operation.security ?? globalSecurity;
      const schemes = security.flatMap((requirement) => Object.keys(requirement));
      const expected = [...(route.specPath.startsWith('/admin/') ? ['adminBasic'] : (OAUTH_PATHS[route.specPath] ?? ACCOUNT_SCHEMES))];
      // The publishable key, last, where the operation takes it (with no scope: see operations/publishable-keys.ts).
      if (route.publishable) expected.push('publishableKey');
      expect(schemes, route.operationId).to.deep.equal(expected);
    }
  });

  it('names one scope per /v1 operation, from the Scope enum: read for GET, write for changes; none on /admin and on OAuth\'s endpoints', () => {
    const known = (spec.components.schemas as Record<string, { enum: string[] }>).Scope.enum;
    for (const route of routeOperations()) {
      const operation = spec.paths[route.specPath][route.method] as { security?: Array<Record<string, string[]>> };
      const scopes = (operation.security ?? (spec.security as Array<Record<string, string[]>>))
        .filter((requirement) => !('publishableKey' in requirement))
        .map((requirement) => Object.values(requirement).flat());
      if (route.specPath.startsWith('/admin/') || route.specPath in OAUTH_PATHS) {
        expect(scopes.flat(), route.operationId).to.deep.equal([]);
        continue;
      }
      const [first] = scopes;
      expect(first, route.operationId).to.have.length(1);
      expect(scopes, `${route.operationId}: every requirement names the same scope`).to.deep.equal(scopes.map(() => first));
      expect(known, route.operationId).to.include(first[0]);
      expect(first[0].endsWith(route.method === 'get' ? ':read' : ':write'), `${route.operationId} ${first[0]}`).to.equal(true);
      expect(route.scope, route.operationId).to.equal(first[0]);
    }
  });

  it('accepts JSON and form bodies with the same schema on every operation that takes a body', () => {
    for (const route of routeOperations()) {
      const operation = spec.paths[route.specPath][route.method] as {
        requestBody?: { content: Record<string, { schema: unknown }> };
      };
      // The token endpoint takes a form, as RFC 6749 §4.4.2 defines it.
      if (!operation.requestBody || route.operationId === 'createAccessToken') continue;
      const content = operation.requestBody.content;
      expect(Object.keys(content).sort(), route.operationId).to.deep.equal([
        'application/json',
        'application/x-www-form-urlencoded',
      ]);
      expect(content['application/json'].schema).to.deep.equal(content['application/x-www-form-urlencoded'].schema);
    }
  });
});
