import type { components } from '../../../generated/openapi.js';
import type { Scope } from '../../operations/scopes.js';
import type { ClientCertificateRow } from './client-certificates.repo.js';

export type ClientCertificate = components['schemas']['ClientCertificate'];

/** A registration as the API shows it. */
export function toClientCertificateResource(row: ClientCertificateRow): ClientCertificate {
  return {
    id: row.id,
    object: 'client_certificate',
    fingerprint_sha256: row.fingerprint,
    subject: row.subject,
    issuer: row.issuer,
    not_before: Number(row.not_before),
    not_after: Number(row.not_after),
    scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as Scope[]),
    created: Number(row.created),
    revoked: row.revoked === null ? null : Number(row.revoked),
  };
}
