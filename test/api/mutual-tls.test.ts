import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { runMain } from '../helpers/run-main.js';
import { useTestCertificates, type ClientCertificateName } from '../helpers/test-certificates.js';
import { ADMIN_AUTHORIZATION, useTestServer, type TestServer } from '../helpers/test-server.js';
import { TlsClient } from '../helpers/tls-client.js';

const ADMIN_HEADERS = { Authorization: ADMIN_AUTHORIZATION };
const NO_ACCOUNT = 'acct_000000000000000000000000';
/** A found registration is trusted for a second: a revoked certificate is refused within that, plus slack for a loaded machine. */
const REVOCATION_BOUND_MS = 1500;

/** The SHA-256 of a PEM certificate's DER encoding, as the API shows it. */
function fingerprintOf(pem: string): string {
  return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}

/** A 401 in the error envelope (the status decides the class), with its code. */
function expectRefused(res: ApiResponse, code: 'client_certificate_missing' | 'client_certificate_invalid'): { message: string } {
  const error = expectError(res, 401, code);
  expect(error.type).to.equal('authentication_error');
  return error;
}

forEachDatabase('mutual TLS', (engine) => {
  const certificates = useTestCertificates();
  const server = useTestServer(engine, { tls: certificates.listener });

  /** The operator's requests on the certificate endpoints, over plain HTTP. */
  const admin = () => {
    const client = new ApiClient(server.url);
    return {
      register: (accountId: string, body: unknown, options: { form?: boolean } = {}) =>
        client.post(`/admin/accounts/${accountId}/client_certificates`, body, { ...options, headers: ADMIN_HEADERS }),
      list: (accountId: string, query = '') => client.get(`/admin/accounts/${accountId}/client_certificates${query}`, { headers: ADMIN_HEADERS }),
      revoke: (accountId: string, id: string) => client.delete(`/admin/accounts/${accountId}/client_certificates/${id}`, { headers: ADMIN_HEADERS }),
    };
  };

  /** Registers a test certificate to an account (the first test account by default) and returns the registration. */
  async function registered(name: ClientCertificateName, accountId = server.accountIds.first, scopes?: string[]) {
    const res = await admin().register(accountId, { certificate: certificates.client(name).cert, ...(scopes && { scopes }) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  }

  /** A client of the TLS listener presenting the named certificate, or none. */
  const tls = (name?: ClientCertificateName) =>
    new TlsClient(server.tlsUrl!, certificates.ca, name === undefined ? undefined : certificates.client(name));

  describe('createAccountClientCertificate', () => {
    it('registers a certificate: its SHA-256 fingerprint, names and validity, every scope; listed the same', async () => {
      const pem = certificates.client('alice').cert;
      const res = await admin().register(server.accountIds.first, { certificate: pem });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const parsed = new X509Certificate(pem);
      expect(res.body).to.deep.include({
        object: 'client_certificate',
        fingerprint_sha256: fingerprintOf(pem),
        subject: 'CN=alice, O=Payments Tests',
        issuer: 'CN=Payments Test Client CA',
        not_before: Date.parse(parsed.validFrom) / 1000,
        not_after: Date.parse(parsed.validTo) / 1000,
        scopes: null,
        revoked: null,
      });
      expect(res.body.id).to.match(/^cert_[0-9A-Za-z]{24}$/);
      expect(res.body.created).to.equal(Math.floor(server.clock.nowMs() / 1000));
      const listed = await admin().list(server.accountIds.first);
      expect(listed.body).to.deep.include({ object: 'list', has_more: false, url: `/admin/accounts/${server.accountIds.first}/client_certificates` });
      expect(listed.body.data).to.deep.equal([res.body]);
      expect((await admin().list(server.accountIds.second)).body.data).to.deep.equal([]);
    });

    it('keeps the scopes given, from JSON or a form body', async () => {
      const json = await registered('alice', server.accountIds.first, ['customers:read', 'charges:write']);
      expect(json.scopes).to.deep.equal(['customers:read', 'charges:write']);
      const form = await admin().register(server.accountIds.second, { certificate: certificates.client('bob').cert, scopes: ['events:read'] }, { form: true });
      expect(form.status, JSON.stringify(form.body)).to.equal(200);
      expect(form.body.scopes).to.deep.equal(['events:read']);
    });

    it('answers 400 naming certificate to text that is not one PEM certificate, and registers nothing', async () => {
      const { cert, key } = certificates.client('alice');
      const body = cert.split('\n').slice(1, -2).join('\n');
      const notCertificates = [
        'hello',
        key,
        body, // the base64 without its armour
        `-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n`,
        cert + certificates.ca, // a chain: which one was meant would be a guess
      ];
      for (const certificate of notCertificates) {
        const res = await admin().register(server.accountIds.first, { certificate });
        expectError(res, 400, 'parameter_invalid', 'certificate');
      }
      expect((await admin().list(server.accountIds.first)).body.data).to.deep.equal([]);
    });

    it('answers 400 to a certificate of another CA, an expired one and one not valid yet, saying which', async () => {
      const cases: Array<[ClientCertificateName, RegExp]> = [
        ['foreign', /not issued by this server's client CA/],
        ['expired', /has expired/],
        ['notYetValid', /not valid yet/],
      ];
      for (const [name, message] of cases) {
        const res = await admin().register(server.accountIds.first, { certificate: certificates.client(name).cert });
        expect(expectError(res, 400, 'parameter_invalid', 'certificate').message, name).to.match(message);
      }
      expect((await admin().list(server.accountIds.first)).body.data).to.deep.equal([]);
    });

    it('answers 400 naming certificate to one whose extended key usage excludes client authentication, which TLS refuses too', async () => {
      const res = await admin().register(server.accountIds.first, { certificate: certificates.client('serverAuthOnly').cert });
      const error = expectError(res, 400, 'parameter_invalid', 'certificate');
      expect(error.message).to.include('extended key usage (1.3.6.1.5.5.7.3.1)').and.include('client authentication (1.3.6.1.5.5.7.3.2)');
      expect((await admin().list(server.accountIds.first)).body.data).to.deep.equal([]);
      // What registering it would have led to: every handshake presenting it is refused.
      expectRefused(await tls('serverAuthOnly').get('/v1/customers'), 'client_certificate_invalid');
    });

    it('answers 400 to a certificate registered already (to any account), until that registration is revoked', async () => {
      const first = await registered('alice');
      for (const accountId of [server.accountIds.first, server.accountIds.second]) {
        const again = await admin().register(accountId, { certificate: certificates.client('alice').cert });
        const error = expectError(again, 400, 'parameter_invalid', 'certificate');
        expect(error.message).to.include('already registered').and.include(first.id);
      }
      expect((await admin().revoke(server.accountIds.first, first.id)).status).to.equal(200);
      const moved = await registered('alice', server.accountIds.second);
      expect(moved.fingerprint_sha256).to.equal(first.fingerprint_sha256);
      expect(moved.id).to.not.equal(first.id);
    });

    it('answers 404 to an unknown account, and 401 to anyone but the operator', async () => {
      const certificate = certificates.client('alice').cert;
      expectError(await admin().register(NO_ACCOUNT, { certificate }), 404, 'resource_missing', 'id');
      const withKey = await server.api.post(`/admin/accounts/${server.accountIds.first}/client_certificates`, { certificate });
      expectError(withKey, 401, 'admin_credentials_invalid');
      expect((await admin().list(server.accountIds.first)).body.data).to.deep.equal([]);
    });
  });

  describe('revokeAccountClientCertificate', () => {
    it('revokes: the certificate is refused within a second, listed as revoked, and a second revocation is a 404', async () => {
      const registration = await registered('alice');
      expect((await tls('alice').get('/v1/customers')).status).to.equal(200);
      const res = await admin().revoke(server.accountIds.first, registration.id);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ ...registration, revoked: Math.floor(server.clock.nowMs() / 1000) });
      await eventually(async () => {
        const refused = expectRefused(await tls('alice').get('/v1/customers'), 'client_certificate_invalid');
        expect(refused.message).to.include('revoked');
      }, REVOCATION_BOUND_MS);
      expect((await admin().list(server.accountIds.first)).body.data).to.deep.equal([res.body]);
      expectError(await admin().revoke(server.accountIds.first, registration.id), 404, 'resource_missing', 'certificate_id');
    });

    it('answers 404 to another account\'s certificate, and leaves it working', async () => {
      const registration = await registered('alice');
      expectError(await admin().revoke(server.accountIds.second, registration.id), 404, 'resource_missing', 'certificate_id');
      expect((await tls('alice').get('/v1/customers')).status).to.equal(200);
    });
  });

  describe('the mutual-TLS listener', () => {
    it('authenticates a registered certificate as its account: objects are the account\'s, another\'s are 404', async () => {
      await registered('alice');
      const created = await tls('alice').post('/v1/customers', { email: 'tls@example.com' });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      expect(created.headers.get('request-id')).to.match(/^req_/);
      expect((await server.api.get(`/v1/customers/${created.body.id}`)).body.email).to.equal('tls@example.com');
      expectError(await server.otherApi.get(`/v1/customers/${created.body.id}`), 404, 'resource_missing');

      const own = await aCustomer(server.api);
      const theirs = await aCustomer(server.otherApi);
      const list = await tls('alice').get('/v1/customers');
      expect(list.status).to.equal(200);
      expect(list.body.data.map((c: { id: string }) => c.id)).to.have.members([created.body.id, own.id]);
      expect((await tls('alice').get(`/v1/customers/${own.id}`)).status).to.equal(200);
      expectError(await tls('alice').get(`/v1/customers/${theirs.id}`), 404, 'resource_missing');
    });

    it('tells apart two certificates of two accounts', async () => {
      await registered('alice');
      await registered('bob', server.accountIds.second);
      const bobs = await aCustomer(server.otherApi);
      expect((await tls('bob').get(`/v1/customers/${bobs.id}`)).status).to.equal(200);
      expectError(await tls('alice').get(`/v1/customers/${bobs.id}`), 404, 'resource_missing');
    });

    it('answers a JSON 401 client_certificate_missing without a certificate, whatever else the request carries', async () => {
      expectRefused(await tls().get('/v1/customers'), 'client_certificate_missing');
      const withKey = await tls().get('/v1/customers', { Authorization: `Bearer ${server.apiKeys.first}` });
      expectRefused(withKey, 'client_certificate_missing');
      const post = await tls().post('/v1/customers', { email: 'x@example.com' }, { Authorization: `Bearer ${server.apiKeys.first}` });
      expectRefused(post, 'client_certificate_missing');
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });

    it('refuses (401) a certificate of another CA, an expired one and one not valid yet, saying why', async () => {
      const cases: Array<[ClientCertificateName, RegExp]> = [
        ['foreign', /not issued by this server's client CA/],
        ['expired', /has expired/],
        ['notYetValid', /not valid yet/],
      ];
      for (const [name, message] of cases) {
        const res = await tls(name).get('/v1/customers');
        expect(expectRefused(res, 'client_certificate_invalid').message, name).to.match(message);
      }
    });

    it('refuses (401) a certificate of the client CA that is not registered', async () => {
      await registered('bob');
      const res = await tls('alice').get('/v1/customers');
      expect(expectRefused(res, 'client_certificate_invalid').message).to.include('not registered');
    });

    it('refuses a registered certificate once the server\'s clock passes its end of validity', async () => {
      const registration = await registered('alice');
      server.clock.advance((registration.not_after - 1) * 1000 - server.clock.nowMs());
      expect((await tls('alice').get('/v1/customers')).status, 'in its last second').to.equal(200);
      server.clock.advance(1000);
      expect(expectRefused(await tls('alice').get('/v1/customers'), 'client_certificate_invalid').message).to.include('expired');
    });

    it('holds a certificate to its scopes: 403 insufficient_scope outside them', async () => {
      await registered('alice', server.accountIds.first, ['customers:read']);
      expect((await tls('alice').get('/v1/customers')).status).to.equal(200);
      const write = await tls('alice').post('/v1/customers', { email: 'nope@example.com' });
      expect(expectError(write, 403, 'insufficient_scope').message).to.include('customers:write');
      expect(expectError(await tls('alice').get('/v1/charges'), 403, 'insufficient_scope').message).to.include('charges:read');
      expect((await server.api.get('/v1/customers')).body.data).to.deep.equal([]);
    });

    it('serves /graphql to a registered certificate, and answers 401 in GraphQL\'s shape without one', async () => {
      await registered('alice');
      const customer = await aCustomer(server.api, { email: 'graph@example.com' });
      const query = { query: 'query ($id: ID!) { customer(id: $id) { id email } }', variables: { id: customer.id } };
      const res = await tls('alice').post('/graphql', query);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ data: { customer: { id: customer.id, email: 'graph@example.com' } } });

      const created = await tls('alice').post('/graphql', { query: 'mutation { createCustomer(input: {email: "m@example.com"}) { id } }' });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      expect((await server.api.get(`/v1/customers/${created.body.data.createCustomer.id}`)).status).to.equal(200);

      const refused = await tls().post('/graphql', query, { Authorization: `Bearer ${server.apiKeys.first}` });
      expect(refused.status).to.equal(401);
      expect(refused.body.errors[0].extensions).to.deep.equal({ code: 'UNAUTHENTICATED', reason: 'client_certificate_missing' });
    });

    it('answers health checks without a certificate, and /admin to the operator\'s Basic credentials', async () => {
      expect((await tls().get('/healthz')).status).to.equal(200);
      const certificate = certificates.client('alice').cert;
      const path = `/admin/accounts/${server.accountIds.first}/client_certificates`;
      const res = await tls().post(path, { certificate }, ADMIN_HEADERS);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.fingerprint_sha256).to.equal(fingerprintOf(certificate));
      expectError(await tls('alice').get(path), 401, 'admin_credentials_invalid');
      expect((await tls('alice').get('/v1/customers')).status).to.equal(200);
    });

    it('leaves the HTTP listener as it was: API keys there, client certificates only on TLS', async () => {
      await registered('alice');
      expect(server.tlsUrl).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect((await server.api.get('/v1/customers')).status).to.equal(200);
      expectError(await server.anonymous.get('/v1/customers'), 401, 'api_key_missing');
    });
  });
});

/** What a TLS handshake with the listener settled on, or the error that ended it. */
function handshake(url: string, ca: string, options: ConnectionOptions): Promise<{ protocol: string | null; cipher: string } | Error> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: hostname, port: Number(port), ca, ...options }, () => {
      const settled = { protocol: socket.getProtocol(), cipher: socket.getCipher().standardName };
      socket.end();
      resolve(settled);
    });
    socket.once('error', resolve);
  });
}

describe('the mutual-TLS listener\'s protocol versions and cipher suites', () => {
  const certificates = useTestCertificates();
  const ecdsa = useTestServer('sqlite', { tls: certificates.listener }, { per: 'suite' });
  const rsa = useTestServer('sqlite', { tls: certificates.rsaListener }, { per: 'suite' });
  const TLS12 = { maxVersion: 'TLSv1.2' } as const;

  it('speaks TLS 1.3, and TLS 1.2 with ECDHE and an AEAD cipher (GCM, ChaCha20-Poly1305)', async () => {
    expect(await handshake(ecdsa.tlsUrl!, certificates.ca, {})).to.deep.include({ protocol: 'TLSv1.3' });
    const accepted: Array<[TestServer, string, string]> = [
      [ecdsa, 'ECDHE-ECDSA-AES128-GCM-SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
      [ecdsa, 'ECDHE-ECDSA-AES256-GCM-SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
      [ecdsa, 'ECDHE-ECDSA-CHACHA20-POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
      [rsa, 'ECDHE-RSA-AES128-GCM-SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
      [rsa, 'ECDHE-RSA-CHACHA20-POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
    ];
    for (const [server, cipher, standardName] of accepted) {
      expect(await handshake(server.tlsUrl!, certificates.ca, { ...TLS12, ciphers: cipher }), cipher).to.deep.equal({
        protocol: 'TLSv1.2',
        cipher: standardName,
      });
    }
  });

  it('refuses a TLS 1.2 client that offers only CBC suites, or only static RSA key exchange', async () => {
    const refused: Array<[TestServer, string]> = [
      [ecdsa, 'ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA'],
      [rsa, 'ECDHE-RSA-AES128-SHA256:ECDHE-RSA-AES256-SHA384:ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA'],
      [rsa, 'AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA256:AES128-SHA'],
      [rsa, 'DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384'],
    ];
    for (const [server, ciphers] of refused) {
      const result = await handshake(server.tlsUrl!, certificates.ca, { ...TLS12, ciphers });
      expect(result, ciphers).to.be.an.instanceOf(Error);
      expect((result as Error).message, ciphers).to.match(/handshake failure|no shared cipher/i);
    }
  });

  it('refuses TLS 1.1 and 1.0', async () => {
    for (const version of ['TLSv1', 'TLSv1.1'] as const) {
      // OpenSSL 3 offers these versions only at security level 0.
      const result = await handshake(ecdsa.tlsUrl!, certificates.ca, { minVersion: version, maxVersion: version, ciphers: 'DEFAULT@SECLEVEL=0' });
      expect(result, version).to.be.an.instanceOf(Error);
      expect((result as Error).message, version).to.match(/protocol version|no protocols available/i);
    }
  });
});

describe('mutual TLS settings', () => {
  const certificates = useTestCertificates();

  it('takes TLS_PORT, TLS_CERT_FILE, TLS_KEY_FILE and TLS_CLIENT_CA_FILE together, or none', () => {
    const all = { TLS_PORT: '8443', TLS_CERT_FILE: 'server.crt', TLS_KEY_FILE: 'server.key', TLS_CLIENT_CA_FILE: 'ca.crt' };
    expect(loadConfig(all).tls).to.deep.equal({ port: 8443, certFile: 'server.crt', keyFile: 'server.key', clientCaFile: 'ca.crt' });
    expect(loadConfig({}).tls).to.equal(undefined);
    for (const left of Object.keys(all)) {
      const { [left as keyof typeof all]: _, ...rest } = all;
      expect(() => loadConfig(rest), `without ${left}`).to.throw(/must be set together/);
    }
    expect(() => loadConfig({ ...all, TLS_PORT: 'https' })).to.throw(/TLS_PORT/);
  });

  it('refuses to start, naming the variable, when a file cannot be read', async function () {
    requireProcesses(this);
    this.timeout(120_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtls-start-'));
    try {
      const missing = path.join(dataDir, 'missing-ca.crt');
      const { certFile, keyFile } = certificates.listener;
      const run = await runMain({ DATA_DIR: dataDir, TLS_PORT: '0', TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, TLS_CLIENT_CA_FILE: missing });
      expect(run.timedOut).to.equal(false);
      expect(run.code, run.stderr).to.equal(1);
      expect(run.stderr.trim()).to.equal(`payments-api: cannot read TLS_CLIENT_CA_FILE: no such file or directory (open ${missing})`);
      expect(run.stdout).to.not.include('listening');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
