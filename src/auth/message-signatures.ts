import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { httpbis, UnacceptableSignatureError, type SignatureParameters } from 'http-message-signatures';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../db/database.js';
import { unixSeconds, type Clock } from '../domain/clock.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { Grant } from '../operations/scopes.js';
import { findWorkingSigningKey } from '../resources/signing-keys/signing-keys.repo.js';
import { placeOf, SIGNING_KEY_SECRET } from '../resources/shared/sealed-secrets.js';
import { fail, grantOf, type AuthFailure, type AuthResult } from './auth-result.js';
import { createReplayStore } from './replay-store.js';

/*
 * HTTP message signatures (RFC 9421) under an account's signing key, `hmac-sha256`: the spec's
 * `httpSignature` scheme. A request carries exactly one signature (one member of `Signature-Input`,
 * its value under the same label in `Signature`; any label). It authenticates the key's account when
 *
 * - it covers `@method`, `@target-uri` and, when the request has a body, `content-digest`;
 * - it has `created`, at most 300 s old and at most 30 s ahead of this server's clock, and `keyid`,
 *   a signing key that is not revoked; `alg`, if given, is `hmac-sha256`; `expires`, if given, is
 *   not past; `nonce`, if given, is a string;
 * - its value is the HMAC-SHA256 of the signature base (RFC 9421 §2.5) keyed with the UTF-8 bytes of
 *   the key's whole secret (`hmsec_…`), compared in constant time;
 * - it was not used before: its nonce (or, without one, its value) is recorded in the database under
 *   a unique key before the request is answered, so that a replay is refused by every process and
 *   after a restart, until the signature is too old anyway (replay-store.ts: the signatures verified
 *   together are recorded by one statement).
 *
 * The body is not read here (credentials are checked before any body is read: authenticate-early.ts).
 * The SHA-256 the body must have, from the covered `Content-Digest` (RFC 9530), is left on the
 * request as `expectedContentDigest`, and the body readers compare it with the bytes they read.
 *
 * The structured fields are parsed and the signature base is built by `http-message-signatures`;
 * which components, parameters, times, keys and replays are acceptable is decided here, on `clock`.
 * Every refusal is a 401 `signature_invalid` saying why; no header, however malformed, is a 500.
 */

/** Verifies HTTP message signatures (RFC 9421, hmac-sha256) made with an account's signing key. */
export interface SignatureVerifier {
  verify(req: Request): Promise<AuthResult>;
}

/** A request that carries a message signature (and is authenticated by it, not by its `Authorization`). */
export function isSignedRequest(req: Request): boolean {
  return req.headers['signature-input'] !== undefined || req.headers.signature !== undefined;
}

/** How old a signature's `created` may be, in seconds. */
const SIGNATURE_MAX_AGE_S = 300;
/** How far ahead of this server's clock `created` may be (the client's clock runs fast), in seconds. */
const SIGNATURE_MAX_AHEAD_S = 30;
/** How long a found key is trusted without asking the database again: the bound on revocation. */
const KEY_CACHE_MS = 1000;
const ALGORITHM = 'hmac-sha256';
const COVERED = ['@method', '@target-uri'];
const COVERED_WITH_BODY = [...COVERED, 'content-digest'];
const ONE_SIGNATURE =
  'Send exactly one signature: one member of Signature-Input and its value under the same label in Signature.';

/** A working signing key, as the verifier keeps it for a second. */
interface KnownKey {
  accountId: string;
  /** The HMAC key: the UTF-8 bytes of the whole secret. */
  hmacKey: Buffer;
  grant: Grant;
}

export function createSignatureVerifier(deps: { db: Queryable; clock: Clock; secrets: SecretBox }): SignatureVerifier {
  const { db, clock, secrets } = deps;
  const keys = new LRUCache<string, KnownKey>({ max: 10_000, ttl: KEY_CACHE_MS });
  const seen = createReplayStore(db);

  const keyOf = async (keyid: string): Promise<KnownKey | undefined> => {
    let key = keys.get(keyid);
    if (!key) {
      const row = await findWorkingSigningKey(db, keyid);
      if (!row) return undefined;
      const secret = secrets.open(row.secret, placeOf(SIGNING_KEY_SECRET, keyid));
      key = { accountId: row.account_id, hmacKey: Buffer.from(secret, 'utf8'), grant: grantOf(row.scopes) };
      keys.set(keyid, key);
    }
    return key;
  };

  const verify = async (req: Request): Promise<AuthResult> => {
    const withBody = carriesBody(req);
    const signed = await readSignature(req, withBody);
    if (!signed.ok) return signed;
    const params = checkParameters(signed.params, unixSeconds(clock));
    if (!params.ok) return params;
    const key = await keyOf(params.keyid);
    if (!key) return refused(`No such signing key: ${quoted(params.keyid)} (or it was revoked).`);
    if (!hmacMatches(key.hmacKey, signed.base, signed.signature)) {
      return refused('The signature does not match the request: a covered component differs, or the key is wrong.');
    }
    const digest = withBody ? expectedContentDigest(req) : undefined;
    if (digest && !digest.ok) return digest;
    // Recorded last, once everything else holds, so that a refused request does not use up its nonce.
    const replay = replayDigest(params.keyid, params.nonce, signed.signature);
    const fresh = await seen.record(replay, replayExpiry(params.created));
    if (!fresh) {
      return refused('This signature was already used: sign every request afresh (a new created time or nonce).');
    }
    if (digest) req.expectedContentDigest = digest.sha256;
    return {
      ok: true,
      principal: {
        kind: 'account',
        accountId: key.accountId,
        grant: key.grant,
        credential: 'signature',
        // Rate limits count every signature of one key against one allowance.
        credentialId: params.keyid,
      },
    };
  };

  return { verify };
}

function refused(message: string): AuthFailure {
  return fail('signature_invalid', message);
}

/** Whether a request has a body (so its signature must cover `content-digest`). */
function carriesBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * `@target-uri` (RFC 9421 §2.2.2): the absolute URI as the client sent it, its scheme as Express
 * reads it (honouring `trust proxy`), its authority from `Host`, its path and query as they came,
 * before any rewrite (the `Accept` versioning serves `/charges` as `/v1/charges`).
 */
function targetUri(req: Request): string {
  return `${req.protocol}://${req.host}${req.originalUrl}`;
}

type SignedMessage = { ok: true; params: SignatureParameters; base: Buffer; signature: Buffer };

/**
 * The request's one signature: its parameters, its signature base and its value. The library
 * parses the fields and builds the base; its key lookup here only takes note, so that the key, the
 * HMAC and the times are checked afterwards on this server's terms.
 */
async function readSignature(req: Request, withBody: boolean): Promise<SignedMessage | AuthFailure> {
  const required = withBody ? COVERED_WITH_BODY : COVERED;
  const labels: SignatureParameters[] = [];
  let signed: { base: Buffer; signature: Buffer } | undefined;
  const message = {
    method: req.method,
    url: targetUri(req),
    headers: req.headers as Record<string, string | string[]>,
  };
  try {
    await httpbis.verifyMessage(
      {
        keyLookup: async (params) => {
          labels.push(params);
          return { verify: async (base, signature) => ((signed = { base, signature }), true) };
        },
        requiredFields: required,
        // The library would judge `created` and `expires` on Date.now(); they are judged on `clock` instead.
        tolerance: Infinity,
      },
      message,
    );
  } catch (error) {
    return refused(labels.length > 1 ? ONE_SIGNATURE : unreadable(error, required));
  }
  if (labels.length !== 1 || !signed) return refused(ONE_SIGNATURE);
  return { ok: true, params: labels[0], ...signed };
}

/** Why the library could not read or accept a signature, in the client's terms. */
function unreadable(error: unknown, required: readonly string[]): string {
  if (error instanceof UnacceptableSignatureError) {
    return `The signature must cover ${required.map((name) => `"${name}"`).join(' ')}.`;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return `The signature cannot be read: ${reason.replace(/\.$/, '')}.`;
}

type CheckedParameters = { ok: true; keyid: string; created: number; nonce: string | undefined };

/** The signature's parameters (RFC 9421 §2.3), held to the rules above at `now` (unix seconds). */
function checkParameters(params: SignatureParameters, now: number): CheckedParameters | AuthFailure {
  const { keyid, alg, nonce, expires } = params;
  // The library hands `created` over as a Date made from the parameter's value.
  const created = params.created instanceof Date ? params.created.getTime() / 1000 : NaN;
  if (typeof keyid !== 'string' || keyid === '') {
    return refused('The signature must name its signing key: keyid="hmk_…".');
  }
  if (alg !== undefined && alg !== ALGORITHM) {
    return refused(`Unsupported alg ${quoted(String(alg))}: signatures use hmac-sha256.`);
  }
  if (!Number.isInteger(created)) {
    return refused('The signature must have created, the Unix time (seconds) it was made.');
  }
  if (created < now - SIGNATURE_MAX_AGE_S) {
    return refused(`The signature was created more than ${SIGNATURE_MAX_AGE_S} seconds ago.`);
  }
  if (created > now + SIGNATURE_MAX_AHEAD_S) {
    return refused('The signature was created in the future: check the clock of the client.');
  }
  if (expires !== undefined) {
    if (typeof expires !== 'number' || !Number.isInteger(expires)) {
      return refused('expires must be a Unix time in seconds.');
    }
    if (expires < now) return refused('The signature has expired.');
  }
  if (nonce !== undefined && (typeof nonce !== 'string' || nonce === '')) {
    return refused('nonce must be a non-empty string.');
  }
  return { ok: true, keyid, created, nonce };
}

function hmacMatches(hmacKey: Buffer, base: Buffer, signature: Buffer): boolean {
  const expected = createHmac('sha256', hmacKey).update(base).digest();
  return signature.length === expected.length && timingSafeEqual(signature, expected);
}

/**
 * The SHA-256 the body must have: the `sha-256` member of `Content-Digest` (RFC 9530), which the
 * signature covers. The body must come as it is digested: without a `Content-Encoding`.
 */
function expectedContentDigest(req: Request): { ok: true; sha256: Buffer } | AuthFailure {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return refused(
      'Send a signed body without Content-Encoding: its Content-Digest is checked against the bytes received.',
    );
  }
  const header = req.headers['content-digest'];
  const sha256 = sha256Member(Array.isArray(header) ? header.join(', ') : header);
  return sha256 ? { ok: true, sha256 } : refused("Content-Digest must hold the body's SHA-256: sha-256=:<base64>:.");
}

/** The 32 bytes of the `sha-256` member of a Content-Digest dictionary; other algorithms are ignored. */
function sha256Member(header: string | undefined): Buffer | undefined {
  // Byte sequences hold no commas, so the members of a well-formed value are its comma-separated parts.
  for (const member of (header ?? '').split(',')) {
    const match = /^\s*sha-256=:([A-Za-z0-9+/]+={0,2}):\s*(?:;.*)?$/.exec(member);
    if (!match) continue;
    const digest = Buffer.from(match[1], 'base64');
    return digest.length === 32 ? digest : undefined;
  }
  return undefined;
}

/** What a replay is recognised by: the key and its nonce, or the key and the signature itself without a nonce. */
function replayDigest(keyid: string, nonce: string | undefined, signature: Buffer): string {
  const used = nonce === undefined ? `signature\n${signature.toString('base64')}` : `nonce\n${nonce}`;
  return createHash('sha256').update(`${keyid}\n${used}`).digest('hex');
}

/**
 * Until when a signature must be remembered: as long as it could be accepted (`created` within the
 * maximum age), plus the allowance for a clock ahead, for the other processes' clocks.
 */
function replayExpiry(created: number): number {
  return created + SIGNATURE_MAX_AGE_S + SIGNATURE_MAX_AHEAD_S;
}

/** A client's value in a message: shown when it looks like an id, elided otherwise (it may be anything). */
function quoted(value: string): string {
  return /^[\w.:-]{1,64}$/.test(value) ? `'${value}'` : '(unreadable value)';
}
