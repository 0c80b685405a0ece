import { ok, type Handlers } from '../../operations/operations.js';
import * as certificates from './client-certificates.service.js';

export const clientCertificateHandlers = {
  createAccountClientCertificate: async ({ path, body, ctx }) => ok(await certificates.createClientCertificateForAccount(ctx, path.id, body)),
  listAccountClientCertificates: async ({ path, query, ctx }) => ok(await certificates.listClientCertificatesOfAccount(ctx, path.id, query)),
  revokeAccountClientCertificate: async ({ path, ctx }) =>
    ok(await certificates.revokeClientCertificateForAccount(ctx, path.id, path.certificate_id)),
} satisfies Pick<Handlers, 'createAccountClientCertificate' | 'listAccountClientCertificates' | 'revokeAccountClientCertificate'>;
