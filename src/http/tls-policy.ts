import type { SecureContextOptions, TlsOptions } from 'node:tls';

/**
 * The TLS versions and cipher suites the mutual-TLS listener offers: TLS 1.2 and 1.3, with
 * forward-secret (ECDHE) key exchange and authenticated encryption (AEAD) only, as Mozilla's
 * "intermediate" profile does. Every TLS 1.3 suite is AEAD over an ephemeral key exchange; for
 * TLS 1.2 that rules out the CBC suites (padding oracles, Lucky13) and static-RSA key exchange
 * (no forward secrecy, ROBOT), which Node's defaults still accept through `HIGH`. Finite-field DHE
 * is left out too: clients that lack ECDHE lack TLS 1.2's other safeguards as well.
 */
export const TLS_SERVER_POLICY = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  // The server's order, strongest first: a client offering a weaker suite first does not get it.
  honorCipherOrder: true,
} as const satisfies SecureContextOptions & TlsOptions;
