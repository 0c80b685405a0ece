import { createHash, X509Certificate } from 'node:crypto';

/** One PEM `CERTIFICATE` block, armour included. */
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The longest subject or issuer name kept (the columns' width). */
const NAME_MAX = 1024;

/** What a registration keeps of a certificate; the certificate itself is not stored. */
export interface CertificateFacts {
  /** SHA-256 of the DER encoding, lowercase hex without colons: what a TLS connection's certificate is looked up by. */
  fingerprint: string;
  subject: string;
  issuer: string;
  /** Unix seconds. */
  notBefore: number;
  notAfter: number;
}

/** The PEM certificate blocks of a text, in order (a CA bundle holds several; anything between them is ignored). */
export function pemCertificateBlocks(text: string): string[] {
  return text.match(PEM_CERTIFICATE) ?? [];
}

/**
 * Every certificate of a PEM bundle (`TLS_CLIENT_CA_FILE`); throws when it holds none, or a block
 * that is not a certificate, so that a wrong file stops the start rather than every registration.
 */
export function parseCertificateBundle(text: string): X509Certificate[] {
  const blocks = pemCertificateBlocks(text);
  if (blocks.length === 0) throw new Error('no PEM certificate (-----BEGIN CERTIFICATE-----) in it');
  return blocks.map((block) => new X509Certificate(block));
}

/** The SHA-256 fingerprint of a certificate's DER encoding, as registrations store it. */
export function fingerprintOf(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

/** What a registration keeps of a certificate; throws only on validity dates that cannot be read. */
export function factsOf(certificate: X509Certificate): CertificateFacts {
  return {
    fingerprint: fingerprintOf(certificate.raw),
    subject: oneLineName(certificate.subject),
    issuer: oneLineName(certificate.issuer),
    notBefore: unixSecondsOf(certificate.validFrom),
    notAfter: unixSecondsOf(certificate.validTo),
  };
}

/** Whether one of `authorities` issued the certificate: its name as the issuer, and its key verifying the signature. */
export function isIssuedByOneOf(certificate: X509Certificate, authorities: readonly X509Certificate[]): boolean {
  return authorities.some((authority) => certificate.checkIssued(authority) && certificate.verify(authority.publicKey));
}

/** The extended key usage (RFC 5280 §4.2.1.12) of a TLS client's certificate. */
export const CLIENT_AUTH_USAGE = '1.3.6.1.5.5.7.3.2';

/**
 * Whether the certificate may authenticate a TLS client: it has no extended key usage extension
 * (any use), or the extension names client authentication. `anyExtendedKeyUsage` alone is not
 * enough: OpenSSL, which checks the listener's handshakes, refuses it for a client
 * ("unsuitable certificate purpose"), as it would refuse the certificate on every connection.
 */
export function allowsClientAuthentication(certificate: X509Certificate): boolean {
  // Node names the extended key usages `keyUsage` (OIDs); undefined when the extension is absent.
  const usages = certificate.keyUsage as string[] | undefined;
  return usages === undefined || usages.includes(CLIENT_AUTH_USAGE);
}

/** Node writes a distinguished name one attribute a line (`C=US\nCN=client`); the API shows it as OpenSSL does, on one line. */
function oneLineName(name: string): string {
  return name.split('\n').filter(Boolean).join(', ').slice(0, NAME_MAX);
}

/** `validFrom`/`validTo` (`Jan  1 00:00:00 2030 GMT`, the form OpenSSL prints) in unix seconds. */
function unixSecondsOf(date: string): number {
  const ms = Date.parse(date);
  if (Number.isNaN(ms)) throw new Error(`unreadable certificate date "${date}"`);
  return Math.floor(ms / 1000);
}
