import type { Queryable } from '../../db/database.js';
import { fetchPage, type PageParams } from '../shared/pagination.js';

export interface ClientCertificateRow {
  seq: number;
  id: string;
  account_id: string;
  /** SHA-256 of the certificate's DER encoding, lowercase hex. */
  fingerprint: string;
  subject: string;
  issuer: string;
  /** The certificate's validity (unix seconds), as it says itself. */
  not_before: number;
  not_after: number;
  /** The scopes as a JSON array; null: every scope. */
  scopes: string | null;
  created: number;
  /** When the registration was revoked (unix seconds); null while it works. */
  revoked: number | null;
}

/**
 * Registers a certificate; undefined when it is registered already and not revoked (the partial
 * unique index on `fingerprint`), which `ON CONFLICT DO NOTHING` reports without failing the
 * transaction, on either engine, however many registrations race.
 */
export function insertClientCertificate(
  db: Queryable,
  row: Omit<ClientCertificateRow, 'seq' | 'revoked'>,
): Promise<ClientCertificateRow | undefined> {
  return db.one(
    `INSERT INTO client_certificates (id, account_id, fingerprint, subject, issuer, not_before, not_after, scopes, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`,
    [row.id, row.account_id, row.fingerprint, row.subject, row.issuer, row.not_before, row.not_after, row.scopes, row.created],
  );
}

/** The registration in force of a certificate (not revoked), whatever its account; undefined when there is none. */
export function findActiveClientCertificate(db: Queryable, fingerprint: string): Promise<ClientCertificateRow | undefined> {
  return db.one('SELECT * FROM client_certificates WHERE fingerprint = ? AND revoked IS NULL', [fingerprint]);
}

/** An account's certificates, newest first, revoked ones included. */
export function listClientCertificateRows(db: Queryable, accountId: string, page: PageParams) {
  return fetchPage<ClientCertificateRow>(db, { table: 'client_certificates', accountId }, page);
}

/** Revokes a registration in force; undefined when the account has no such certificate, or it was revoked already. */
export function revokeClientCertificateRow(
  db: Queryable,
  accountId: string,
  id: string,
  revoked: number,
): Promise<ClientCertificateRow | undefined> {
  return db.one('UPDATE client_certificates SET revoked = ? WHERE account_id = ? AND id = ? AND revoked IS NULL RETURNING *', [
    revoked,
    accountId,
    id,
  ]);
}
