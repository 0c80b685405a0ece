/**
 * The cost of each way to authenticate, on the same request (`GET /v1/charges/{id}`) of one
 * account, each after its credential's first request: a secret API key, a restricted key holding
 * only `charges:read` (the scope check), an OAuth access token (JWT, ES256), and an HTTP message
 * signature (RFC 9421, a fresh signature and nonce per request, as replay protection demands).
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Scenario } from './load.js';
import type { ServerProcess } from './processes.js';

/** The admin credentials the bench server runs with. */
export interface AdminCredentials {
  user: string;
  password: string;
}

/** A scenario per method; the first one (the secret key) is the reference of the others. */
export async function authScenarios(server: ServerProcess, admin: AdminCredentials): Promise<Scenario[]> {
  const adminHeaders = { Authorization: `Basic ${Buffer.from(`${admin.user}:${admin.password}`).toString('base64')}` };
  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const res = await fetch(server.url + path, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };

  const account = await post('/admin/accounts', 'name=Bench+auth&email=auth%40example.com', adminHeaders);
  const secretKey = account.api_key as string;
  const accountPath = `/admin/accounts/${account.id as string}`;
  const charge = await post('/v1/charges', 'amount=2000&currency=usd&source=tok_visa', { Authorization: `Bearer ${secretKey}` });
  const path = `/v1/charges/${charge.id as string}`;

  const restricted = await post(`${accountPath}/api_keys`, 'scopes[]=charges:read', adminHeaders);
  const client = await post(`${accountPath}/oauth_clients`, 'scopes[]=charges:read', adminHeaders);
  const token = await post(
    '/oauth/token',
    `grant_type=client_credentials&client_id=${client.id as string}&client_secret=${client.client_secret as string}`,
    {},
  );
  const signing = await post(`${accountPath}/signing_keys`, '', adminHeaders);
  const sign = signer(signing.id as string, signing.secret as string, server.url + path);

  return [
    { name: 'auth: secret API key', path, headers: { Authorization: `Bearer ${secretKey}` } },
    { name: 'auth: restricted key (charges:read)', path, headers: { Authorization: `Bearer ${restricted.secret as string}` } },
    { name: 'auth: OAuth access token (JWT)', path, headers: { Authorization: `Bearer ${token.access_token as string}` } },
    { name: 'auth: message signature (RFC 9421)', path, signHeaders: sign },
  ];
}

/** Signs a GET of `targetUri` afresh each time: `@method`, `@target-uri`, a new `created` and nonce. */
function signer(keyId: string, secret: string, targetUri: string): () => Record<string, string> {
  return () => {
    const params = `("@method" "@target-uri");created=${Math.floor(Date.now() / 1000)};keyid="${keyId}";alg="hmac-sha256";nonce="${randomBytes(12).toString('base64url')}"`;
    const base = `"@method": GET\n"@target-uri": ${targetUri}\n"@signature-params": ${params}`;
    const signature = createHmac('sha256', secret).update(base).digest('base64');
    return { 'Signature-Input': `sig1=${params}`, Signature: `sig1=:${signature}:` };
  };
}
