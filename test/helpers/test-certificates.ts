import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A client's certificate and private key, PEM. */
export interface ClientCredentials {
  cert: string;
  key: string;
}

/** The client certificates a test can present. */
export type ClientCertificateName = 'alice' | 'bob' | 'expired' | 'notYetValid' | 'foreign' | 'serverAuthOnly';

export interface TestCertificates {
  /** The server's mutual-TLS settings (`TLS_PORT` 0, the three files); usable at once, the files exist from `before`. */
  listener: { port: number; certFile: string; keyFile: string; clientCaFile: string };
  /** The same listener with an RSA server key (the EC one cannot show which RSA key exchanges the server allows). */
  rsaListener: { port: number; certFile: string; keyFile: string; clientCaFile: string };
  /** The client CA's certificate, PEM; the server's certificate is issued by it too, so clients trust it with this. */
  readonly ca: string;
  /**
   * Client certificates: `alice` and `bob` valid now (and at the test server's default clock), issued
   * by the client CA; `expired` (2020) and `notYetValid` (from tomorrow) by the same CA; `foreign` valid
   * but issued by another CA; `serverAuthOnly` valid, of the client CA, but for servers only (extended key
   * usage serverAuth).
   */
  client(name: ClientCertificateName): ClientCredentials;
}

/** How long the valid certificates last from now; they start in 2020, so that any clock a test moves back stays inside. */
const VALID_DAYS = 30;

/**
 * Makes, once for the enclosing `describe` (in `before`), a client CA, a server certificate for
 * 127.0.0.1 issued by it, another CA, and client certificates (see `TestCertificates.client`), with
 * the `openssl` command in a temporary directory that `after` removes.
 */
export function useTestCertificates(): TestCertificates {
  const dir = path.join(os.tmpdir(), `payments-mtls-${randomUUID()}`);
  const file = (name: string) => path.join(dir, name);
  let ca: string | undefined;
  const clients = new Map<ClientCertificateName, ClientCredentials>();

  before(async function () {
    this.timeout(60_000);
    await mkdir(dir);
    const authority = await makeAuthority(dir, 'client-ca', 'Payments Test Client CA');
    const other = await makeAuthority(dir, 'other-ca', 'Some Other CA');
    const now = Date.now();
    const day = 86_400_000;
    const valid = { from: Date.UTC(2020, 0, 1), to: now + VALID_DAYS * day };
    await issue(authority, 'server', 'localhost', valid, 'server');
    await issue(authority, 'server-rsa', 'localhost', valid, 'server', RSA_KEY);
    const plans: Array<[ClientCertificateName, Authority, { from: number; to: number }]> = [
      ['alice', authority, valid],
      ['bob', authority, valid],
      ['expired', authority, { from: Date.UTC(2020, 0, 1), to: Date.UTC(2020, 0, 2) }],
      ['notYetValid', authority, { from: now + day, to: now + VALID_DAYS * day }],
      ['foreign', other, valid],
      ['serverAuthOnly', authority, valid],
    ];
    for (const [name, issuer, validity] of plans) {
      await issue(issuer, name, name, validity, name === 'serverAuthOnly' ? 'server' : 'client');
      clients.set(name, { cert: await readFile(file(`${name}.crt`), 'utf8'), key: await readFile(file(`${name}.key`), 'utf8') });
    }
    ca = await readFile(authority.certFile, 'utf8');
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  return {
    listener: { port: 0, certFile: file('server.crt'), keyFile: file('server.key'), clientCaFile: file('client-ca.crt') },
    rsaListener: { port: 0, certFile: file('server-rsa.crt'), keyFile: file('server-rsa.key'), clientCaFile: file('client-ca.crt') },
    get ca() {
      if (ca === undefined) throw new Error('useTestCertificates: the certificates are made in `before`');
      return ca;
    },
    client(name) {
      const credentials = clients.get(name);
      if (!credentials) throw new Error(`useTestCertificates: no certificate "${name}" (made in \`before\`)`);
      return credentials;
    },
  };
}

/**
 * A new client certificate (PEM) for `commonName`, of a CA made for it alone, valid from 2020 until
 * 30 days from now; its key and CA are thrown away. For a server without a client CA, where only
 * the certificate's own validity is checked, e.g. to register a different certificate each time.
 */
export async function aClientCertificate(commonName: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'payments-cert-'));
  try {
    const authority = await makeAuthority(dir, 'ca', `${commonName} CA`);
    await issue(authority, 'client', commonName, { from: Date.UTC(2020, 0, 1), to: Date.now() + VALID_DAYS * 86_400_000 }, 'client');
    return await readFile(path.join(dir, 'client.crt'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A CA: its certificate and key, and the `openssl ca` configuration that issues with them. */
interface Authority {
  dir: string;
  certFile: string;
  config: string;
}

/** Elliptic-curve keys: made in milliseconds, where RSA keys would take a noticeable time. */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
/** An RSA key, for the one server certificate that needs it. */
const RSA_KEY = ['-newkey', 'rsa:2048', '-nodes'];

async function makeAuthority(dir: string, name: string, commonName: string): Promise<Authority> {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  await run('openssl', [
    'req', '-x509', ...NEW_KEY, '-keyout', keyFile, '-out', certFile, '-days', String(VALID_DAYS + 1), '-subj', `/CN=${commonName}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  // `openssl ca` (not `x509 -req`) because only it sets both validity dates, which the expired and
  // not-yet-valid certificates need.
  const database = path.join(dir, `${name}.index`);
  await writeFile(database, '');
  await mkdir(path.join(dir, `${name}.issued`));
  const config = path.join(dir, `${name}.cnf`);
  await writeFile(
    config,
    [
      '[ca]', 'default_ca = issuer',
      '[issuer]', `database = ${database}`, `new_certs_dir = ${path.join(dir, `${name}.issued`)}`, `certificate = ${certFile}`,
      `private_key = ${keyFile}`, 'rand_serial = yes', 'default_md = sha256', 'policy = any', 'unique_subject = no', 'email_in_dn = no',
      '[any]', 'commonName = supplied', 'organizationName = optional',
      '[client]', 'basicConstraints = CA:FALSE', 'keyUsage = critical,digitalSignature', 'extendedKeyUsage = clientAuth',
      '[server]', 'basicConstraints = CA:FALSE', 'keyUsage = critical,digitalSignature', 'extendedKeyUsage = serverAuth',
      'subjectAltName = IP:127.0.0.1,DNS:localhost',
      '',
    ].join('\n'),
  );
  return { dir, certFile, config };
}

/** Issues `<name>.crt` (and its `<name>.key`) for `commonName`, valid from `from` to `to` (ms), with the section's extensions. */
async function issue(
  authority: Authority,
  name: string,
  commonName: string,
  validity: { from: number; to: number },
  extensions: 'client' | 'server',
  newKey = NEW_KEY,
): Promise<void> {
  const at = (file: string) => path.join(authority.dir, file);
  await run('openssl', ['req', '-new', ...newKey, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', `/CN=${commonName}/O=Payments Tests`]);
  await run('openssl', [
    'ca', '-batch', '-notext', '-config', authority.config, '-extensions', extensions,
    '-startdate', opensslDate(validity.from), '-enddate', opensslDate(validity.to),
    '-in', at(`${name}.csr`), '-out', at(`${name}.crt`),
  ]);
}

/** `YYYYMMDDHHMMSSZ`, the GeneralizedTime form `openssl ca -startdate/-enddate` takes. */
function opensslDate(ms: number): string {
  return `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}
