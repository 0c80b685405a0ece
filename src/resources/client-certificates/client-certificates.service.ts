import { X509Certificate } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import { unixSeconds } from '../../domain/clock.js';
import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { RequestContext } from '../../operations/operations.js';
import { requireAccount } from '../accounts/api-keys.service.js';
import { allParamsRead } from '../shared/params.js';
import { listOf, type PageParams } from '../shared/pagination.js';
import { toClientCertificateResource, type ClientCertificate } from './client-certificates.mapper.js';
import {
  findActiveClientCertificate,
  insertClientCertificate,
  listClientCertificateRows,
  revokeClientCertificateRow,
} from './client-certificates.repo.js';
import { allowsClientAuthentication, CLIENT_AUTH_USAGE, factsOf, isIssuedByOneOf, pemCertificateBlocks, type CertificateFacts } from './client-certificates.x509.js';

export type ClientCertificateCreateParams = components['schemas']['ClientCertificateCreateParams'];

/*
 * The operator registers client certificates to accounts (`/admin/accounts/{id}/client_certificates`);
 * on the mutual-TLS listener a connection presenting one authenticates as its account (see
 * auth/client-certificates.ts). A registration keeps the certificate's SHA-256 fingerprint and what
 * the API shows of it, never the certificate; one certificate is registered to one account at a time.
 */

/**
 * Registers a certificate to an account, with `scopes` (every scope when left out). Refused (400,
 * naming `certificate`): text that is not one PEM certificate, a certificate not valid now (by the
 * server's clock), one whose extended key usage excludes client authentication, one the client
 * CA did not issue (when the server has one), and one registered already and not revoked.
 */
export async function createClientCertificateForAccount(
  ctx: RequestContext,
  accountId: string,
  params: ClientCertificateCreateParams,
): Promise<ClientCertificate> {
  const { certificate: pem, scopes, ...unread } = params;
  allParamsRead(unread);
  await requireAccount(ctx, accountId);
  const certificate = parseOneCertificate(pem);
  const facts = checkedFacts(certificate, unixSeconds(ctx.clock));
  if (!allowsClientAuthentication(certificate)) {
    throw invalidCertificate(
      `The certificate's extended key usage (${certificate.keyUsage.join(', ')}) does not include client authentication ` +
        `(${CLIENT_AUTH_USAGE}), so it could not authenticate a TLS connection: issue it with extendedKeyUsage = clientAuth.`,
    );
  }
  const authorities = ctx.settings.clientCertificateAuthorities;
  if (authorities && !isIssuedByOneOf(certificate, authorities)) {
    throw invalidCertificate(`The certificate (issuer "${facts.issuer}") was not issued by this server's client CA, so it could not authenticate.`);
  }
  const row = await insertClientCertificate(ctx.db, {
    id: newId('clientCertificate'),
    account_id: accountId,
    fingerprint: facts.fingerprint,
    subject: facts.subject,
    issuer: facts.issuer,
    not_before: facts.notBefore,
    not_after: facts.notAfter,
    scopes: scopes ? JSON.stringify([...new Set(scopes)]) : null,
    created: unixSeconds(ctx.clock),
  });
  if (!row) throw await alreadyRegistered(ctx, facts.fingerprint);
  return toClientCertificateResource(row);
}

export async function listClientCertificatesOfAccount(ctx: RequestContext, accountId: string, query: PageParams) {
  await requireAccount(ctx, accountId);
  const page = await listClientCertificateRows(ctx.db, accountId, query);
  return listOf(`/admin/accounts/${accountId}/client_certificates`, page, toClientCertificateResource);
}

/** Revokes a registration: every process refuses the certificate within a second (the verifier's cache). */
export async function revokeClientCertificateForAccount(ctx: RequestContext, accountId: string, certificateId: string): Promise<ClientCertificate> {
  await requireAccount(ctx, accountId);
  const row = await revokeClientCertificateRow(ctx.db, accountId, certificateId, unixSeconds(ctx.clock));
  if (!row) throw new ApiError('resource_missing', `No such client certificate: '${certificateId}'.`, { param: 'certificate_id' });
  return toClientCertificateResource(row);
}

/**
 * The one certificate of a PEM text. A chain is refused rather than its first certificate taken:
 * which one was meant would be a guess, and the client CA's own certificates have no place here.
 */
function parseOneCertificate(pem: string): X509Certificate {
  const blocks = pemCertificateBlocks(pem);
  if (blocks.length > 1) throw invalidCertificate('Send the client\'s own certificate alone, not a chain of certificates.');
  try {
    if (blocks.length === 1) return new X509Certificate(blocks[0]);
  } catch {
    // Armour around something that is not a certificate: answered below as no certificate at all.
  }
  throw invalidCertificate('The certificate must be one X.509 certificate, PEM-encoded (-----BEGIN CERTIFICATE-----…).');
}

/** What is kept of a certificate that is valid at `now` (unix seconds); else a 400 saying when it is valid. */
function checkedFacts(certificate: X509Certificate, now: number): CertificateFacts {
  let facts: CertificateFacts;
  try {
    facts = factsOf(certificate);
  } catch {
    throw invalidCertificate('The certificate\'s validity dates cannot be read.');
  }
  if (now < facts.notBefore) throw invalidCertificate(`The certificate is not valid yet: its validity starts ${isoDate(facts.notBefore)}.`);
  if (now >= facts.notAfter) throw invalidCertificate(`The certificate has expired: its validity ended ${isoDate(facts.notAfter)}.`);
  return facts;
}

/** The 400 of a certificate registered already, naming the registration in force. */
async function alreadyRegistered(ctx: RequestContext, fingerprint: string): Promise<ApiError> {
  const existing = await findActiveClientCertificate(ctx.db, fingerprint);
  const where = existing ? ` as ${existing.id} (account ${existing.account_id})` : '';
  return invalidCertificate(`This certificate is already registered${where}; revoke that registration before registering it again.`);
}

function invalidCertificate(message: string): ApiError {
  return new ApiError('parameter_invalid', message, { param: 'certificate' });
}

function isoDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

