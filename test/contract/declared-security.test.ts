/**
 * Every operation's declared `security`, enforced as the spec says, for every operation of the spec
 * (walked, not listed): each scheme's credential is accepted where the operation names the scheme
 * and refused where it does not, and each scope is checked. The validator's own security step is
 * off (src/http/spec-validator.ts); this is what proves the server's step in its place.
 */
import { expect } from 'chai';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { forEachDatabase } from '../helpers/databases.js';
import { send, signRequest } from '../helpers/message-signer.js';
import { useTestCertificates } from '../helpers/test-certificates.js';
import {
  ADMIN_AUTHORIZATION,
  basicAuthorization,
  useTestServer,
  type TestServer,
} from '../helpers/test-server.js';
import { TlsClient } from '../helpers/tls-client.js';
import { routeOperations, type RouteOperation } from '../../src/operations/routes.js';
import {
  loadSpec,
  type SecurityRequirement,
  type SpecOperation,
} from '../../src/operations/spec.js';

const spec = loadSpec();
const ADMIN_HEADERS = { Authorization: ADMIN_AUTHORIZATION };
/** An id of the right form that names nothing: an accepted request answers 404 (or 400), never runs on a real object. */
const NO_SUCH_ID = 'zz_contract0000000000000';

/** A request on an operation, with one credential: how it is sent differs by scheme. */
type Sender = (
  method: string,
  path: string,
  body?: { body: string; type: string },
) => Promise<ApiResponse>;

function securityOf(route: RouteOperation): SecurityRequirement[] {
  const operation = spec.paths[route.specPath][route.method] as SpecOperation;
  return operation.security ?? spec.security ?? [];
}

/** The path of an operation with every parameter an id that names nothing. */
function pathOf(route: RouteOperation): string {
  return route.specPath.replace(/\{[^}]+\}/g, NO_SUCH_ID);
}

/**
 * Whether the request got past its credential and scope checks: not a 401, nor the 403 of a scope
 * or of a publishable key (`insufficient_scope` naming no parameter: one naming `scopes` is an
 * operation's own rule about the keys it makes).
 */
function passedSecurity(res: ApiResponse): boolean {
  const error = res.body?.error;
  return (
    res.status !== 401 &&
    !(res.status === 403 && error?.code === 'insufficient_scope' && error.param === undefined)
  );
}

/**
 * A body the operation's first declared media type takes, if it takes one: `{}` as JSON, or the
 * schema's first example as a form (the token endpoint's grant, which it reads before its client).
 */
function bodyOf(route: RouteOperation): { body: string; type: string } | undefined {
  const content = (spec.paths[route.specPath][route.method] as SpecOperation).requestBody
    ?.content as Record<string, { schema?: { $ref?: string } }> | undefined;
  if (!content) return undefined;
  const type = Object.keys(content)[0];
  if (type === 'application/json') return { body: '{}', type };
  const ref = content[type].schema?.$ref?.split('/').pop();
  const example = ref
    ? (spec.components.schemas[ref] as { examples?: Array<Record<string, string>> }).examples?.[0]
    : undefined;
  return { body: new URLSearchParams(example ?? {}).toString(), type };
}

/** Whether the operation may be called without credentials (a requirement `{}`, or none). */
function isOpen(route: RouteOperation): boolean {
  const security = securityOf(route);
  return (
    security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0)
  );
}

const ROUTES = routeOperations();

/** A request on every operation of the spec with `sender`'s credential: the answer to each. */
async function sendToEveryOperation(sender: Sender): Promise<Map<RouteOperation, ApiResponse>> {
  const answers = new Map<RouteOperation, ApiResponse>();
  // One at a time: the server shares this process's event loop, and an operation's first request
  // compiles its schemas synchronously, for seconds on a loaded machine. Requests waiting beside
  // it would see their sockets time out or closed as idle, which no real client of a server in
  // another process meets.
  for (const route of ROUTES) {
    const res = await sender(route.method.toUpperCase(), pathOf(route), bodyOf(route));
    expect(res.status, `${route.operationId}: ${JSON.stringify(res.body)}`).to.be.below(500);
    answers.set(route, res);
  }
  return answers;
}

/** A sender of plain HTTP requests with an `Authorization` header (none when undefined). */
function withAuthorization(server: TestServer, authorization: string | undefined): Sender {
  return async (method, path, body) => {
    const headers: Record<string, string> =
      authorization === undefined ? {} : { Authorization: authorization };
    if (body !== undefined) headers['Content-Type'] = body.type;
    const response = await fetch(server.url + path, { method, headers, body: body?.body });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? JSON.parse(text) : undefined,
      headers: response.headers,
    };
  };
}

forEachDatabase('declared security of every operation', (engine) => {
  const certificates = useTestCertificates();
  const server = useTestServer(engine, { tls: certificates.listener }, { per: 'suite' });
  const admin = () => new ApiClient(server.url);
  const adminPost = async (path: string, body?: unknown) => {
    const res = await admin().post(`/admin/accounts/${server.accountIds.first}${path}`, body, {
      headers: ADMIN_HEADERS,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  let oauthClient: { id: string; secret: string };

  /** Each scheme's credential of the first test account (the operator's for `adminBasic`), as a sender. */
  const senders: Record<string, () => Promise<Sender>> = {
    apiKey: async () => withAuthorization(server, `Bearer ${server.apiKeys.first}`),
    apiKeyBasic: async () =>
      withAuthorization(server, basicAuthorization(server.apiKeys.first, '')),
    publishableKey: async () => {
      const keys = (await server.api.get('/v1/api_keys')).body.data as Array<{
        type: string;
        key: string;
      }>;
      return withAuthorization(
        server,
        `Bearer ${keys.find((key) => key.type === 'publishable')!.key}`,
      );
    },
    oauth2: async () => {
      const res = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: {
          Authorization: basicAuthorization(oauthClient.id, oauthClient.secret),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const token = (await res.json()) as { access_token: string };
      return withAuthorization(server, `Bearer ${token.access_token}`);
    },
    httpSignature: async () => {
      const key = (await adminPost('/signing_keys')) as { id: string; secret: string };
      return (method, path, body) => {
        const headers: Record<string, string> =
          body === undefined ? {} : { 'content-type': body.type };
        const created = Math.floor(server.clock.nowMs() / 1000);
        const request = { method, url: server.url + path, headers, body: body?.body };
        return send(signRequest(request, { keyId: key.id, secret: key.secret, created }));
      };
    },
    mutualTLS: async () => {
      await adminPost('/client_certificates', { certificate: certificates.client('alice').cert });
      const client = new TlsClient(server.tlsUrl!, certificates.ca, certificates.client('alice'));
      return (method, path, body) =>
        client.request(
          method,
          path,
          body?.body,
          body === undefined ? {} : { 'Content-Type': body.type },
        );
    },
    adminBasic: async () => withAuthorization(server, ADMIN_AUTHORIZATION),
    oauthClientBasic: async () =>
      withAuthorization(server, basicAuthorization(oauthClient.id, oauthClient.secret)),
  };

  before(async () => {
    const created = await adminPost('/oauth_clients');
    oauthClient = { id: created.id, secret: created.client_secret };
  });

  it('declares only schemes this test sends a credential of', () => {
    const declared = new Set(
      ROUTES.flatMap((route) =>
        securityOf(route).flatMap((requirement) => Object.keys(requirement)),
      ),
    );
    expect([...declared].filter((scheme) => !(scheme in senders))).to.deep.equal([]);
  });

  for (const scheme of Object.keys(senders)) {
    it(`accepts ${scheme} exactly on the operations whose security names it, and refuses it on every other`, async function () {
      // The first requests of each operation compile its schemas in the validator.
      this.timeout(120_000);
      const answers = await sendToEveryOperation(await senders[scheme]());
      for (const [route, res] of answers) {
        const declared = securityOf(route).some((requirement) => scheme in requirement);
        const label = `${scheme} on ${route.operationId}: ${res.status} ${JSON.stringify(res.body)}`;
        // An open operation (the token endpoint, the token keys) is past the security step for anyone:
        // what it answers other credentials is its own (RFC 6749's invalid_client).
        if (isOpen(route) && !declared) continue;
        expect(passedSecurity(res), label).to.equal(declared);
        if (declared) continue;
        // Refused: 401 in the error envelope, or a publishable key's 403 naming what it may do.
        if (res.status === 403) expect(scheme, label).to.equal('publishableKey');
        else expect(res.body.error.type, label).to.equal('authentication_error');
      }
    });
  }

  it('answers 401 to a request without credentials on every operation that declares any', async function () {
    this.timeout(120_000);
    const answers = await sendToEveryOperation(withAuthorization(server, undefined));
    for (const [route, res] of answers) {
      if (isOpen(route)) continue;
      expect(res.status, `${route.operationId}: ${JSON.stringify(res.body)}`).to.equal(401);
      expect(res.body.error.type, route.operationId).to.equal('authentication_error');
    }
  });

  it("checks each operation's scope: a key holding one scope passes the operations of that scope and is refused 403 naming the scope by every other", async function () {
    this.timeout(300_000);
    const scoped = ROUTES.filter((route) => route.scope !== undefined);
    for (const scope of new Set(scoped.map((route) => route.scope!))) {
      const key = (await adminPost('/api_keys', { scopes: [scope] })) as { secret: string };
      const answers = await sendToEveryOperation(withAuthorization(server, `Bearer ${key.secret}`));
      for (const route of scoped) {
        const res = answers.get(route)!;
        const label = `${route.operationId} (${route.scope}) with a key of ${scope}: ${res.status} ${JSON.stringify(res.body)}`;
        expect(passedSecurity(res), label).to.equal(route.scope === scope);
        if (route.scope === scope) continue;
        expect(res.status, label).to.equal(403);
        expect(res.body.error.code, label).to.equal('insufficient_scope');
        expect(res.headers.get('www-authenticate'), label).to.equal(
          `Bearer error="insufficient_scope", scope="${route.scope}"`,
        );
      }
    }
  });
});
