import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { httpbis } from 'http-message-signatures';
import { ApiClient, toForm, type RequestOptions } from '../helpers/api-client.js';
import { startApiProcessesInTurn, type ApiProcess } from '../helpers/api-process.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import {
  contentDigest,
  send,
  signRequest,
  type OutgoingRequest,
  type SignatureOptions,
  type SignedResponse,
} from '../helpers/message-signer.js';
import { ADMIN, ADMIN_AUTHORIZATION, useTestServer } from '../helpers/test-server.js';
import { requireProcesses } from '../helpers/fast-run.js';
import {
  purgeSeenSignatures,
  recordSeenSignatures,
} from '../../src/resources/signing-keys/seen-signatures.repo.js';

const ADMIN_HEADERS = { Authorization: ADMIN_AUTHORIZATION };
const NO_ACCOUNT = 'acct_000000000000000000000000';
/** A found key is trusted for a second: a revoked key is refused within that, plus slack for a loaded machine. */
const REVOCATION_BOUND_MS = 1500;

/** A signing key as the operator's create answers it. */
interface IssuedKey {
  id: string;
  secret: string;
}

/** The operator's requests on the signing-key endpoints of the server at `url`. */
function adminOf(url: string) {
  const client = new ApiClient(url);
  const withAdmin = (options: RequestOptions = {}) => ({
    ...options,
    headers: { ...ADMIN_HEADERS, ...options.headers },
  });
  return {
    createKey: (accountId: string, body?: unknown, options?: RequestOptions) =>
      client.post(`/admin/accounts/${accountId}/signing_keys`, body, withAdmin(options)),
    listKeys: (accountId: string, query = '') =>
      client.get(`/admin/accounts/${accountId}/signing_keys${query}`, withAdmin()),
    revokeKey: (accountId: string, keyId: string) =>
      client.delete(`/admin/accounts/${accountId}/signing_keys/${keyId}`, withAdmin()),
    /** A new key of `accountId` (every scope unless `scopes`). */
    async issue(accountId: string, scopes?: string[]): Promise<IssuedKey> {
      const res = await client.post(
        `/admin/accounts/${accountId}/signing_keys`,
        scopes ? { scopes } : undefined,
        withAdmin(),
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    },
  };
}

/** A JSON body as a request carries it. */
function json(body: unknown): { body: string; headers: Record<string, string> } {
  return { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
}

/** A form body as a request carries it. */
function form(body: Record<string, unknown>): { body: string; headers: Record<string, string> } {
  return { body: toForm(body), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

/** The 401 every refused signature gets, its message matching `reason`. */
function expectRefused(res: SignedResponse, reason?: RegExp): void {
  const error = expectError(res, 401, 'signature_invalid');
  expect(error.type).to.equal('authentication_error');
  if (reason) expect(error.message).to.match(reason);
}

forEachDatabase('message signatures', (engine) => {
  const server = useTestServer(engine);
  const admin = () => adminOf(server.url);
  const now = () => Math.floor(server.clock.nowMs() / 1000);

  /** A request to the test server, signed with `key` now (unless `options` say otherwise). */
  function signed(
    key: IssuedKey,
    method: string,
    path: string,
    content?: { body: string; headers: Record<string, string> },
    options: Partial<SignatureOptions> = {},
  ): OutgoingRequest {
    const request = { method, url: server.url + path, headers: { ...content?.headers }, body: content?.body };
    return signRequest(request, { keyId: key.id, secret: key.secret, created: now(), ...options });
  }

  describe('signing keys (admin)', () => {
    it('issues a key: its secret once, its id as the keyid, and never the secret again', async () => {
      const res = await admin().createKey(server.accountIds.first);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const { secret, ...key } = res.body;
      expect(secret).to.match(/^hmsec_[0-9A-Za-z]{32}$/);
      expect(key).to.deep.equal({
        id: key.id,
        object: 'signing_key',
        algorithm: 'hmac-sha256',
        scopes: null,
        created: now(),
        revoked: null,
      });
      expect(key.id).to.match(/^hmk_[0-9A-Za-z]{24}$/);

      const listed = await admin().listKeys(server.accountIds.first);
      expect(listed.body).to.deep.include({
        object: 'list',
        has_more: false,
        url: `/admin/accounts/${server.accountIds.first}/signing_keys`,
      });
      expect(listed.body.data).to.deep.equal([key]);
      expect(JSON.stringify(listed.body)).to.not.include(secret);
    });

    it('issues a key with scopes, from JSON or a form', async () => {
      const fromJson = await admin().createKey(server.accountIds.first, { scopes: ['customers:read'] });
      const fromForm = await admin().createKey(
        server.accountIds.first,
        { scopes: ['customers:read', 'charges:write'] },
        { form: true },
      );
      expect(fromJson.body.scopes).to.deep.equal(['customers:read']);
      expect(fromForm.body.scopes).to.deep.equal(['customers:read', 'charges:write']);
    });

    it('lists newest first, revoked keys included, and pages by cursor', async () => {
      const first = await admin().issue(server.accountIds.first);
      const second = await admin().issue(server.accountIds.first);
      await admin().revokeKey(server.accountIds.first, first.id);
      const page = await admin().listKeys(server.accountIds.first, '?limit=1');
      expect(page.body.data.map((k: { id: string }) => k.id)).to.deep.equal([second.id]);
      expect(page.body.has_more).to.equal(true);
      const next = await admin().listKeys(server.accountIds.first, `?limit=1&starting_after=${second.id}`);
      expect(next.body.data[0]).to.deep.include({ id: first.id, revoked: now() });
      expect((await admin().listKeys(server.accountIds.second)).body.data).to.deep.equal([]);
    });

    it('revokes a key once: the key with revoked set, then 404', async () => {
      const key = await admin().issue(server.accountIds.first);
      server.clock.advance(5000);
      const revoked = await admin().revokeKey(server.accountIds.first, key.id);
      expect(revoked.status).to.equal(200);
      expect(revoked.body).to.deep.include({ id: key.id, object: 'signing_key', revoked: now() });
      expect(revoked.body).to.not.have.property('secret');
      expectError(await admin().revokeKey(server.accountIds.first, key.id), 404, 'resource_missing', 'key_id');
      // Another account's key is no key of this one.
      const other = await admin().issue(server.accountIds.second);
      expectError(await admin().revokeKey(server.accountIds.first, other.id), 404, 'resource_missing', 'key_id');
    });

    it("answers 404 for an unknown account and 401 without the operator's credentials", async () => {
      expectError(await admin().createKey(NO_ACCOUNT), 404, 'resource_missing', 'id');
      expectError(await admin().listKeys(NO_ACCOUNT), 404, 'resource_missing', 'id');
      const res = await server.api.post(`/admin/accounts/${server.accountIds.first}/signing_keys`, {});
      expectError(res, 401, 'admin_credentials_invalid');
      expect((await admin().listKeys(server.accountIds.first)).body.data).to.deep.equal([]);
    });
  });

  describe('a signed request', () => {
    it("GET: authenticates the key's account, the query string covered too", async () => {
      const key = await admin().issue(server.accountIds.first);
      const mine = await aCustomer(server.api);
      await aCustomer(server.otherApi);
      const res = await send(signed(key, 'GET', '/v1/customers?limit=5'));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.map((c: { id: string }) => c.id)).to.deep.equal([mine.id]);
      expect((await send(signed(key, 'GET', `/v1/customers/${mine.id}`))).body.id).to.equal(mine.id);
    });

    it("POST with a JSON body: creates for the key's account", async () => {
      const key = await admin().issue(server.accountIds.first);
      const res = await send(
        signed(key, 'POST', '/v1/customers', json({ email: 'signed@example.com', metadata: { via: 'json' } })),
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({ object: 'customer', email: 'signed@example.com' });
      expect((await server.api.get(`/v1/customers/${res.body.id}`)).body.metadata).to.deep.equal({ via: 'json' });
      expectError(await server.otherApi.get(`/v1/customers/${res.body.id}`), 404, 'resource_missing');
    });

    it('POST with a form body', async () => {
      const key = await admin().issue(server.accountIds.first);
      const res = await send(
        signed(key, 'POST', '/v1/customers', form({ email: 'form@example.com', metadata: { order: '6735' } })),
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.include({ email: 'form@example.com', metadata: { order: '6735' } });
    });

    it('with a nonce, expires, another label and the components in another order', async () => {
      const key = await admin().issue(server.accountIds.first);
      const options = {
        nonce: 'n-1',
        expires: now() + 60,
        label: 'payments',
        components: ['content-digest', '@target-uri', '@method'],
      };
      const res = await send(signed(key, 'POST', '/v1/customers', json({ name: 'Ordered' }), options));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    it('without alg (the key decides it)', async () => {
      const key = await admin().issue(server.accountIds.first);
      expect((await send(signed(key, 'GET', '/v1/customers', undefined, { alg: null }))).status).to.equal(200);
    });

    it('on an unprefixed path versioned by Accept: @target-uri is the URL as sent', async () => {
      const key = await admin().issue(server.accountIds.first);
      const content = {
        body: JSON.stringify({ name: 'Versioned' }),
        headers: { 'content-type': 'application/json', accept: 'application/vnd.api.v1+json' },
      };
      const res = await send(signed(key, 'POST', '/customers', content));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.name).to.equal('Versioned');
    });

    it('signed by the http-message-signatures library', async () => {
      const key = await admin().issue(server.accountIds.first);
      const body = JSON.stringify({ name: 'Library' });
      const message = {
        method: 'POST',
        url: `${server.url}/v1/customers`,
        headers: { 'content-type': 'application/json', 'content-digest': contentDigest(body) } as Record<
          string,
          string
        >,
      };
      const hmac = {
        id: key.id,
        alg: 'hmac-sha256',
        sign: async (data: Buffer) => createHmac('sha256', key.secret).update(data).digest(),
      };
      const { headers } = await httpbis.signMessage(
        {
          key: hmac,
          fields: ['@method', '@target-uri', 'content-digest'],
          params: ['created', 'keyid', 'alg'],
          paramValues: { created: new Date(server.clock.nowMs()) },
        },
        message,
      );
      const res = await send({ method: 'POST', url: message.url, headers: headers as Record<string, string>, body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.name).to.equal('Library');
    });

    it('of a scoped key: 403 outside its scopes, naming the scope', async () => {
      const key = await admin().issue(server.accountIds.first, ['customers:read']);
      expect((await send(signed(key, 'GET', '/v1/customers'))).status).to.equal(200);
      const denied = await send(signed(key, 'POST', '/v1/customers', json({ name: 'No' })));
      expect(expectError(denied, 403, 'insufficient_scope').message).to.include('customers:write');
      expectError(await send(signed(key, 'GET', '/v1/charges')), 403, 'insufficient_scope');
    });

    it('on /graphql: a query and a mutation', async () => {
      const key = await admin().issue(server.accountIds.first);
      const mutation = { query: 'mutation { createCustomer(input: {name: "Graph"}) { id name } }' };
      const created = await send(signed(key, 'POST', '/graphql', json(mutation)));
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      const id = created.body.data.createCustomer.id;
      const query = { query: `{ customer(id: "${id}") { name } }` };
      const read = await send(signed(key, 'POST', '/graphql', json(query)));
      expect(read.body).to.deep.equal({ data: { customer: { name: 'Graph' } } });
      expect((await server.api.get(`/v1/customers/${id}`)).body.name).to.equal('Graph');
    });
  });

  describe('refused (401 signature_invalid)', () => {
    it('a body changed in transit, over JSON and forms, before anything is created', async () => {
      const key = await admin().issue(server.accountIds.first);
      const tampered = signed(key, 'POST', '/v1/customers', json({ name: 'Signed' }));
      tampered.body = JSON.stringify({ name: 'Changed' });
      expectRefused(await send(tampered), /body does not match its Content-Digest/);
      const garbled = signed(key, 'POST', '/v1/customers', json({ name: 'Garbled' }));
      garbled.body = '{"name": "Garb';
      expectRefused(await send(garbled), /body does not match its Content-Digest/);
      const tamperedForm = signed(key, 'POST', '/v1/customers', form({ name: 'Signed' }));
      tamperedForm.body = toForm({ name: 'Other' });
      expectRefused(await send(tamperedForm), /body does not match its Content-Digest/);
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });

    it('a body and its Content-Digest both changed (the digest is covered)', async () => {
      const key = await admin().issue(server.accountIds.first);
      const request = signed(key, 'POST', '/v1/customers', json({ name: 'Signed' }));
      request.body = JSON.stringify({ name: 'Changed' });
      request.headers['content-digest'] = contentDigest(request.body);
      expectRefused(await send(request), /does not match the request/);
    });

    it("a changed body on /graphql, in GraphQL's shape", async () => {
      const key = await admin().issue(server.accountIds.first);
      const request = signed(key, 'POST', '/graphql', json({ query: '{ customer(id: "cus_1") { id } }' }));
      request.body = JSON.stringify({ query: 'mutation { createCustomer(input: {name: "X"}) { id } }' });
      const res = await send(request);
      expect(res.status).to.equal(401);
      expect(res.body.errors[0].message).to.match(/body does not match its Content-Digest/);
      expect(res.body.errors[0].extensions).to.deep.include({ code: 'UNAUTHENTICATED', reason: 'signature_invalid' });
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });

    it('a missing covered component', async () => {
      const key = await admin().issue(server.accountIds.first);
      expectRefused(
        await send(signed(key, 'GET', '/v1/customers', undefined, { components: ['@method'] })),
        /must cover "@method" "@target-uri"/,
      );
      const noDigest = signed(key, 'POST', '/v1/customers', json({ name: 'X' }), {
        components: ['@method', '@target-uri'],
      });
      expectRefused(await send(noDigest), /must cover "@method" "@target-uri" "content-digest"/);
      const digestDropped = signed(key, 'POST', '/v1/customers', json({ name: 'X' }));
      delete digestDropped.headers['content-digest'];
      expectRefused(await send(digestDropped), /content-digest/);
    });

    it('a Content-Digest without sha-256', async () => {
      const key = await admin().issue(server.accountIds.first);
      // Signed over the header as it is (sha-512 only), then sent with the body: only the missing sha-256 is wrong.
      const headers = { 'content-type': 'application/json', 'content-digest': 'sha-512=:AAAA:' };
      const components = ['@method', '@target-uri', 'content-digest'];
      const request = signRequest(
        { method: 'POST', url: `${server.url}/v1/customers`, headers },
        { keyId: key.id, secret: key.secret, created: now(), components },
      );
      expectRefused(await send({ ...request, body: '{}' }), /sha-256/);
    });

    it('a created more than 300 s old or more than 30 s ahead; an expires that has passed', async () => {
      const key = await admin().issue(server.accountIds.first);
      expect((await send(signed(key, 'GET', '/v1/customers', undefined, { created: now() - 300 }))).status).to.equal(
        200,
      );
      expectRefused(
        await send(signed(key, 'GET', '/v1/customers', undefined, { created: now() - 301 })),
        /more than 300 seconds ago/,
      );
      expect((await send(signed(key, 'GET', '/v1/customers', undefined, { created: now() + 30 }))).status).to.equal(
        200,
      );
      expectRefused(await send(signed(key, 'GET', '/v1/customers', undefined, { created: now() + 31 })), /future/);
      expectRefused(await send(signed(key, 'GET', '/v1/customers', undefined, { expires: now() - 1 })), /expired/);
      const request = signed(key, 'GET', '/v1/customers', undefined, { nonce: 'late' });
      server.clock.advance(301_000);
      expectRefused(await send(request), /more than 300 seconds ago/);
    });

    it('a replayed request: the same headers twice, or a nonce used again', async () => {
      const key = await admin().issue(server.accountIds.first);
      const request = signed(key, 'POST', '/v1/customers', json({ name: 'Once' }));
      expect((await send(request)).status).to.equal(200);
      expectRefused(await send(request), /already used/);
      const get = signed(key, 'GET', '/v1/customers');
      expect((await send(get)).status).to.equal(200);
      expectRefused(await send(get), /already used/);
      expect((await server.api.get('/v1/customers')).body.data).to.have.length(1);

      expect((await send(signed(key, 'GET', '/v1/customers', undefined, { nonce: 'abc' }))).status).to.equal(200);
      server.clock.advance(1000);
      expectRefused(
        await send(signed(key, 'GET', '/v1/customers?limit=3', undefined, { nonce: 'abc' })),
        /already used/,
      );
      // Another key's nonce is its own.
      const other = await admin().issue(server.accountIds.first);
      expect((await send(signed(other, 'GET', '/v1/customers', undefined, { nonce: 'abc' }))).status).to.equal(200);
    });

    it('a refused request does not use up its signature', async () => {
      const key = await admin().issue(server.accountIds.first);
      const request = signed(key, 'GET', '/v1/customers', undefined, { nonce: 'keep' });
      const wrongAuthority = { ...request, headers: { ...request.headers, host: 'elsewhere.example' } };
      expectRefused(await send(wrongAuthority), /does not match the request/);
      expect((await send(request)).status).to.equal(200);
    });

    it('a key that is unknown, revoked, or another secret', async () => {
      const key = await admin().issue(server.accountIds.first);
      expectRefused(
        await send(signed({ ...key, id: 'hmk_000000000000000000000000' }, 'GET', '/v1/customers')),
        /No such signing key: 'hmk_0+'/,
      );
      expectRefused(
        await send(signed({ ...key, secret: 'hmsec_wrong' }, 'GET', '/v1/customers')),
        /does not match the request/,
      );
      const other = await admin().issue(server.accountIds.second);
      expectRefused(await send(signed({ ...key, id: other.id }, 'GET', '/v1/customers')), /does not match the request/);

      expect((await send(signed(key, 'GET', '/v1/customers'))).status).to.equal(200);
      expect((await admin().revokeKey(server.accountIds.first, key.id)).status).to.equal(200);
      await eventually(async () => {
        expectRefused(await send(signed(key, 'GET', '/v1/customers')), /No such signing key/);
      }, REVOCATION_BOUND_MS);
    });

    it('an alg other than hmac-sha256', async () => {
      const key = await admin().issue(server.accountIds.first);
      for (const alg of ['hmac-sha512', 'ed25519', 'none']) {
        expectRefused(await send(signed(key, 'GET', '/v1/customers', undefined, { alg })), /Unsupported alg/);
      }
    });

    it('a method or target changed after signing', async () => {
      const key = await admin().issue(server.accountIds.first);
      const request = signed(key, 'GET', '/v1/customers?limit=1');
      expectRefused(
        await send({ ...request, url: `${server.url}/v1/customers?limit=2` }),
        /does not match the request/,
      );
      expectRefused(
        await send({ ...request, method: 'DELETE', url: `${server.url}/v1/customers/cus_000000000000000000000000` }),
        /does not match/,
      );
    });

    it('more than one signature', async () => {
      const key = await admin().issue(server.accountIds.first);
      const one = signed(key, 'GET', '/v1/customers');
      const two = signed(key, 'GET', '/v1/customers', undefined, { label: 'sig2', nonce: 'second' });
      const headers = {
        'signature-input': `${one.headers['signature-input']}, ${two.headers['signature-input']}`,
        signature: `${one.headers.signature}, ${two.headers.signature}`,
      };
      expectRefused(await send({ ...one, headers }), /exactly one signature/);
    });

    it('malformed Signature-Input and Signature fields, with or without a body: never a 500', async () => {
      const key = await admin().issue(server.accountIds.first);
      const good = signed(key, 'GET', '/v1/customers');
      const created = now();
      const inputs = [
        '',
        'sig1',
        'sig1=',
        'sig1=(',
        'sig1=("@method" "@target-uri")',
        'sig1=("@method" "@target-uri");created=abc;keyid="k"',
        `sig1=("@method" "@target-uri");created=${created};keyid=hmk_token`,
        `sig1=("@method" "@target-uri");created=${created};keyid=:AAAA:`,
        `sig1=("@method" "@target-uri");created=${created}.5;keyid="${key.id}"`,
        `sig1=("@method" "@target-uri");created=${created};keyid="${key.id}";expires="soon"`,
        `sig1=("@method" "@target-uri");created=${created};keyid="${key.id}";nonce=?1`,
        `sig1=("@method" "@target-uri" "@query-param");created=${created};keyid="${key.id}"`,
        `sig1=("@method" "@target-uri" "@status");created=${created};keyid="${key.id}"`,
        `sig1=("@method" "@target-uri" "x-missing";sf);created=${created};keyid="${key.id}"`,
        `sig1=("@method" "@target-uri" "@nonsense");created=${created};keyid="${key.id}"`,
        `sig1="@method";created=${created};keyid="${key.id}"`,
        `sig2=("@method" "@target-uri");created=${created};keyid="${key.id}"`,
        `sig1=("@method" "@target-uri");created=99999999999999999999;keyid="${key.id}"`,
        'sig1=("\u00e9")',
        'sig1=(\t"@method")',
        'a'.repeat(8000),
      ];
      const signatures = [good.headers.signature, 'sig1=:not base64!:', 'sig1="text"', 'sig1=', 'sig1=:AAAA:'];
      for (const input of inputs) {
        for (const signature of signatures.slice(0, 2)) {
          expectRefused(await send({ ...good, headers: { 'signature-input': input, signature } }));
        }
        const withBody = signed(key, 'POST', '/v1/customers', json({ name: 'Fuzz' }));
        expectRefused(await send({ ...withBody, headers: { ...withBody.headers, 'signature-input': input } }));
      }
      for (const signature of signatures.slice(1))
        expectRefused(await send({ ...good, headers: { ...good.headers, signature } }));
      expectRefused(await send({ ...good, headers: { signature: good.headers.signature } }));
      expectRefused(await send({ ...good, headers: { 'signature-input': good.headers['signature-input'] } }));
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });
  });

  describe('seen signatures', () => {
    it('are forgotten once too old to be accepted anyway', async () => {
      const key = await admin().issue(server.accountIds.first);
      expect((await send(signed(key, 'GET', '/v1/customers'))).status).to.equal(200);
      const count = async () =>
        Number((await server.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM seen_signatures'))!.n);
      expect(await purgeSeenSignatures(server.db, now())).to.equal(0);
      expect(await count()).to.equal(1);
      server.clock.advance(331_000);
      await purgeSeenSignatures(server.db, now());
      expect(await count()).to.equal(0);
    });

    it('are recorded many to a statement, each new one answered as new and a recorded one as used', async () => {
      const expires = now() + 330;
      const first = await recordSeenSignatures(server.db, [
        { digest: 'a'.repeat(64), expires },
        { digest: 'b'.repeat(64), expires },
      ]);
      expect([...first].sort()).to.deep.equal(['a'.repeat(64), 'b'.repeat(64)]);
      const second = await recordSeenSignatures(server.db, [
        { digest: 'b'.repeat(64), expires },
        { digest: 'c'.repeat(64), expires },
      ]);
      expect([...second]).to.deep.equal(['c'.repeat(64)]);
    });

    it('the same request sent many times at once: one is answered, the others refused', async () => {
      const key = await admin().issue(server.accountIds.first);
      for (const request of [
        signed(key, 'POST', '/v1/customers', json({ name: 'Raced' })),
        signed(key, 'GET', '/v1/customers', undefined, { nonce: 'raced' }),
      ]) {
        const answers = await Promise.all(Array.from({ length: 12 }, () => send(request)));
        expect(answers.filter((res) => res.status === 200)).to.have.length(1);
        for (const res of answers.filter((res) => res.status !== 200)) expectRefused(res, /already used/);
      }
      // Signatures verified together, each once, are all answered.
      const fresh = await Promise.all(
        Array.from({ length: 12 }, (_, i) => send(signed(key, 'GET', '/v1/customers', undefined, { nonce: `n${i}` }))),
      );
      expect(fresh.map((res) => res.status)).to.deep.equal(fresh.map(() => 200));
      expect((await server.api.get('/v1/customers')).body.data).to.have.length(1);
    });
  });

  // A signature is committed to the database before its request is answered: an API process that
  // is killed right after an answer has nothing to forget, and the next one refuses the replay.
  describe('across a restart', () => {
    const BOOTSTRAP_KEY = 'sk_test_signaturesrestart';
    let database: TestDatabase;
    const processes: ApiProcess[] = [];
    afterEach(async () => {
      await Promise.all(processes.splice(0).map((p) => p.stop()));
      await database?.drop();
    });

    it('a request replayed to the next process, after the first was killed right after answering, is refused', async function () {
      requireProcesses(this);
      this.timeout(90_000);
      database = await createDatabase(engine);
      const env = { BOOTSTRAP_API_KEY: BOOTSTRAP_KEY, ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password };
      const [first] = await startApiProcessesInTurn(database.target, env, 1, processes);
      const account = await new ApiClient(first.url).post(
        '/admin/accounts',
        { name: 'Restarted', email: 'restarted@example.com' },
        { headers: ADMIN_HEADERS },
      );
      const key = await adminOf(first.url).issue(account.body.id);
      // The processes run on the real clock.
      const requests = Array.from({ length: 8 }, (_, i) =>
        signRequest(
          { method: 'GET', url: `${first.url}/v1/customers`, headers: {} },
          { keyId: key.id, secret: key.secret, created: Math.floor(Date.now() / 1000), nonce: `restart${i}` },
        ),
      );
      // Answered together (their signatures recorded by one statement), then SIGKILL: no shutdown.
      const answers = await Promise.all(requests.map((request) => send(request)));
      expect(answers.map((res) => res.status)).to.deep.equal(requests.map(() => 200));
      await first.crash();

      const [next] = await startApiProcessesInTurn(database.target, env, 1, processes);
      for (const request of requests) expectRefused(await send(request, next.url), /already used/);
      const fresh = signRequest(
        { method: 'GET', url: `${first.url}/v1/customers`, headers: {} },
        { keyId: key.id, secret: key.secret, created: Math.floor(Date.now() / 1000), nonce: 'after' },
      );
      expect((await send(fresh, next.url)).status).to.equal(200);
    });
  });

  // Over Postgres any number of API processes share one database, so a signature used on one is used on all.
  if (engine === 'postgres') {
    describe('across API processes', () => {
      const BOOTSTRAP_KEY = 'sk_test_signaturesscaleout';
      let database: TestDatabase;
      const processes: ApiProcess[] = [];
      afterEach(async () => {
        await Promise.all(processes.splice(0).map((p) => p.stop()));
        await database?.drop();
      });

      /** Two API processes over a new database, and an account with a signing key, made through the first. */
      async function twoProcessesAndAKey(name: string) {
        database = await createDatabase('postgres');
        const env = { BOOTSTRAP_API_KEY: BOOTSTRAP_KEY, ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password };
        const [a, b] = await startApiProcessesInTurn(database.target, env, 2, processes);
        const account = await new ApiClient(a.url).post(
          '/admin/accounts',
          { name, email: `${name.toLowerCase()}@example.com` },
          { headers: ADMIN_HEADERS },
        );
        const key = await adminOf(a.url).issue(account.body.id);
        return { a, b, account, key };
      }

      it('a request replayed to another process is refused there', async function () {
        this.timeout(90_000);
        const { a, b, account, key } = await twoProcessesAndAKey('Scaled');
        // The processes run on the real clock.
        const sign = (nonce?: string) =>
          signRequest(
            {
              method: 'POST',
              url: `${a.url}/v1/customers`,
              headers: { 'content-type': 'application/json' },
              body: '{"name":"Scaled"}',
            },
            { keyId: key.id, secret: key.secret, created: Math.floor(Date.now() / 1000), nonce },
          );
        const request = sign();
        expect((await send(request)).status).to.equal(200);
        // The same request, Host and all, as a load balancer would hand it to the other process.
        expectRefused(await send(request, b.url), /already used/);
        // A fresh signature (a nonce of its own, should the second be the same) is welcome on either.
        expect((await send(sign('fresh'), b.url)).status).to.equal(200);
        const customers = await new ApiClient(a.url, account.body.api_key).get('/v1/customers');
        expect(customers.body.data).to.have.length(2);
      });

      it('the same request sent to two processes at once is answered by one of them only', async function () {
        this.timeout(90_000);
        const { a, b, account, key } = await twoProcessesAndAKey('Raced');
        const request = signRequest(
          {
            method: 'POST',
            url: `${a.url}/v1/customers`,
            headers: { 'content-type': 'application/json' },
            body: '{"name":"Raced"}',
          },
          { keyId: key.id, secret: key.secret, created: Math.floor(Date.now() / 1000) },
        );
        const answers = await Promise.all(
          Array.from({ length: 16 }, (_, i) => send(request, i % 2 === 0 ? a.url : b.url)),
        );
        expect(answers.filter((res) => res.status === 200)).to.have.length(1);
        for (const res of answers.filter((res) => res.status !== 200)) expectRefused(res, /already used/);
        const customers = await new ApiClient(b.url, account.body.api_key).get('/v1/customers');
        expect(customers.body.data).to.have.length(1);
      });
    });
  }
});

forEachDatabase('message signatures under rate limits', (engine) => {
  const server = useTestServer(engine, { rateLimit: { points: 3, durationSeconds: 60 } });

  it("counts every signature of one signing key against the key's one allowance", async () => {
    const key = await adminOf(server.url).issue(server.accountIds.first);
    const otherKey = await adminOf(server.url).issue(server.accountIds.first);
    const created = Math.floor(server.clock.nowMs() / 1000);
    const request = (nonce: string, { id, secret } = key) =>
      send(
        signRequest(
          { method: 'GET', url: `${server.url}/v1/customers`, headers: {} },
          { keyId: id, secret, created, nonce },
        ),
      );
    for (const remaining of [2, 1, 0]) {
      const res = await request(`n${remaining}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.headers.get('ratelimit-remaining')).to.equal(String(remaining));
    }
    expectError(await request('over'), 429, 'rate_limited');
    // The account's other signing key and its API key are other credentials, with allowances of their own.
    expect((await request('other', otherKey)).headers.get('ratelimit-remaining')).to.equal('2');
    expect((await server.api.get('/v1/customers')).status).to.equal(200);
  });
});
