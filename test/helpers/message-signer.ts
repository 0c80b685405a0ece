import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';

/*
 * A client's side of HTTP message signatures (RFC 9421, hmac-sha256) and of Content-Digest
 * (RFC 9530), written with node:crypto alone and independent of the server's library, so that a
 * test that passes proves the server reads what the RFCs say a client sends.
 */

/** A request about to be signed and sent. */
export interface OutgoingRequest {
  method: string;
  /** The absolute URI the request is sent to (what `@target-uri` covers). */
  url: string;
  /** Header fields (names lower-case); the signature may cover them. */
  headers: Record<string, string>;
  body?: string;
}

export interface SignatureOptions {
  keyId: string;
  /** The signing key's secret (`hmsec_…`): the HMAC key is its UTF-8 bytes. */
  secret: string;
  /** Unix seconds. */
  created: number;
  /** The covered components, in order; default `@method`, `@target-uri`, and `content-digest` with a body. */
  components?: string[];
  nonce?: string;
  /** Unix seconds. */
  expires?: number;
  /** `alg`; default `hmac-sha256`, null to leave it out. */
  alg?: string | null;
  /** The signature's label in both dictionaries; default `sig1`. */
  label?: string;
}

/** `Content-Digest` of a body (RFC 9530): `sha-256=:<base64 of its SHA-256>:`. */
export function contentDigest(body: string | Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/**
 * The request signed: a `Content-Digest` added when it has a body, then `Signature-Input` and
 * `Signature` over the signature base of RFC 9421 §2.5.
 */
export function signRequest(request: OutgoingRequest, options: SignatureOptions): OutgoingRequest {
  const headers = { ...request.headers };
  if (request.body !== undefined) headers['content-digest'] = contentDigest(request.body);
  const components = options.components ?? [
    '@method',
    '@target-uri',
    ...(request.body !== undefined ? ['content-digest'] : []),
  ];
  const params = signatureParams(components, options);
  const lines = components.map((name) => `"${name}": ${componentValue(name, { ...request, headers })}`);
  lines.push(`"@signature-params": ${params}`);
  const signature = createHmac('sha256', Buffer.from(options.secret, 'utf8')).update(lines.join('\n')).digest('base64');
  const label = options.label ?? 'sig1';
  headers['signature-input'] = `${label}=${params}`;
  headers.signature = `${label}=:${signature}:`;
  return { ...request, headers };
}

/** The inner list of covered components with its parameters, serialized as RFC 8941 does. */
function signatureParams(components: string[], options: SignatureOptions): string {
  let params = `(${components.map((name) => `"${name}"`).join(' ')});created=${options.created};keyid="${options.keyId}"`;
  const alg = options.alg === undefined ? 'hmac-sha256' : options.alg;
  if (alg !== null) params += `;alg="${alg}"`;
  if (options.nonce !== undefined) params += `;nonce="${options.nonce}"`;
  if (options.expires !== undefined) params += `;expires=${options.expires}`;
  return params;
}

/** A component's value in the signature base (RFC 9421 §2.1, §2.2). */
function componentValue(name: string, request: OutgoingRequest): string {
  const url = new URL(request.url);
  switch (name) {
    case '@method':
      return request.method.toUpperCase();
    case '@target-uri':
      return request.url;
    case '@authority':
      return url.host.toLowerCase();
    case '@path':
      return url.pathname;
    case '@query':
      return url.search || '?';
    default: {
      const value = request.headers[name];
      if (value === undefined) throw new Error(`the request has no ${name} header to sign`);
      return value.trim();
    }
  }
}

/** A response as the tests look at it (the shape `expectError` reads). */
export interface SignedResponse {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * Sends a request as given, with `Content-Length` for its body, to the server at origin `via`
 * (default: its URL's) while keeping the `Host`, path and query of its URL, as a load balancer passes
 * a request on to one of its servers.
 */
export function send(request: OutgoingRequest, via?: string): Promise<SignedResponse> {
  const url = new URL(request.url);
  const target = via === undefined ? url : new URL(url.pathname + url.search, via);
  const headers: Record<string, string> = { host: url.host, ...request.headers };
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  return new Promise((resolve, reject) => {
    const outgoing = http.request(target, { method: request.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const received = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) received.append(name, one);
        }
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: received });
      });
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
