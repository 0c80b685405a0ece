/**
 * Mutual TLS: on the TLS listener, the client certificate of the connection is the credential of
 * every `/v1` and `/graphql` request, whatever else the request carries.
 *
 * The listener asks for a certificate but completes the handshake without one, or with one its
 * client CA does not vouch for (`rejectUnauthorized: false`), so that such a client gets a JSON 401
 * saying why instead of a bare handshake alert. Hence the checks here, in order:
 *
 * 1. a certificate was presented (else `client_certificate_missing`);
 * 2. TLS verified it against the client CA, dates included (`authorized`; else
 *    `client_certificate_invalid` with the reason);
 * 3. it is registered to an account and not revoked, found by the SHA-256 of its DER encoding;
 * 4. the registration's validity holds on `clock` (the certificate's dates, read again on the
 *    server's own clock).
 *
 * A registration found is trusted for a second, so that a busy client costs no query per request
 * and every process refuses a revoked certificate within a second of its revocation.
 */
import type { TLSSocket } from 'node:tls';
import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/database.js';
import { unixSeconds, type Clock } from '../domain/clock.js';
import { findActiveClientCertificate } from '../resources/client-certificates/client-certificates.repo.js';
import { fingerprintOf } from '../resources/client-certificates/client-certificates.x509.js';
import { accountPrincipal, fail, type AuthResult, type Principal } from './auth-result.js';

/** Authenticates a request on the mutual-TLS listener by the client certificate of its connection. */
export interface ClientCertificateVerifier {
  verify(req: Request): Promise<AuthResult>;
}

/** A request that came over the mutual-TLS listener, where only a client certificate authenticates an account. */
export function isMutualTlsRequest(req: Request): boolean {
  return 'encrypted' in req.socket && req.socket.encrypted === true;
}

/**
 * Whether the request's connection presented a client certificate at all, whatever its worth: a
 * request without one on the TLS listener carries no credential, which is not a failed guess.
 */
export function presentsClientCertificate(req: Request): boolean {
  return isMutualTlsRequest(req) && !!(req.socket as TLSSocket).getPeerCertificate()?.raw;
}

/** How long a found registration is trusted without asking the database again: the bound on revocation. */
const REGISTRATION_CACHE_MS = 1000;

/** What a registration in force grants, and until when. */
interface Registration {
  principal: Principal;
  notBefore: number;
  notAfter: number;
}

/** The verifier of the checks above (see the header), with its one-second cache of registrations. */
export function createClientCertificateVerifier(deps: { db: Queryable; clock: Clock }): ClientCertificateVerifier {
  const { db, clock } = deps;
  // Only registrations found are kept: a certificate registered a moment ago works at once.
  const registrations = new LRUCache<string, Registration>({ max: 10_000, ttl: REGISTRATION_CACHE_MS });

  const registrationOf = async (fingerprint: string): Promise<Registration | undefined> => {
    const cached = registrations.get(fingerprint);
    if (cached) return cached;
    const row = await findActiveClientCertificate(db, fingerprint);
    if (!row) return undefined;
    const registration = {
      principal: accountPrincipal(row.account_id, row.scopes, 'client_certificate', row.id),
      notBefore: Number(row.not_before),
      notAfter: Number(row.not_after),
    };
    registrations.set(fingerprint, registration);
    return registration;
  };

  return {
    async verify(req) {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      if (!peer?.raw) {
        return fail('client_certificate_missing', 'This listener authenticates by client certificate: connect with one that is registered to your account.');
      }
      if (!socket.authorized) return fail('client_certificate_invalid', refusedByTls(socket.authorizationError));
      const registration = await registrationOf(fingerprintOf(peer.raw));
      if (!registration) {
        return fail('client_certificate_invalid', 'The client certificate is not registered to an account, or its registration was revoked.');
      }
      const now = unixSeconds(clock);
      if (now >= registration.notAfter) return fail('client_certificate_invalid', 'The client certificate has expired.');
      if (now < registration.notBefore) return fail('client_certificate_invalid', 'The client certificate is not valid yet.');
      return { ok: true, principal: registration.principal };
    },
  };
}

/** OpenSSL's verification codes (`X509_V_ERR_*` without the prefix) that a client can act on, in words. */
const TLS_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'The client certificate has expired.',
  CERT_NOT_YET_VALID: 'The client certificate is not valid yet.',
  CERT_REVOKED: 'The client certificate has been revoked by its issuer.',
  CERT_SIGNATURE_FAILURE: 'The client certificate\'s signature does not verify.',
  UNABLE_TO_GET_ISSUER_CERT: 'The client certificate was not issued by this server\'s client CA.',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'The client certificate was not issued by this server\'s client CA.',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'The client certificate was not issued by this server\'s client CA.',
  SELF_SIGNED_CERT_IN_CHAIN: 'The client certificate was not issued by this server\'s client CA.',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'The client certificate is self-signed; it must be issued by this server\'s client CA.',
  INVALID_PURPOSE: 'The client certificate may not be used for TLS client authentication (its key usage).',
};

/** Why TLS refused the certificate; Node gives the code as a string, though typed as an `Error`. */
function refusedByTls(reason: unknown): string {
  const code = typeof reason === 'string' ? reason : ((reason as { code?: string } | null)?.code ?? String(reason));
  return TLS_REASONS[code] ?? `The client certificate was refused (${code}).`;
}
