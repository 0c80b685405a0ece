import { createHash } from 'node:crypto';
import type { Clock } from '../../domain/clock.js';
import type { SecretBox } from '../../domain/secret-box.js';

/** One POST with an `Idempotency-Key`, as every stage sees it. */
export interface IdempotentRequest {
  accountId: string;
  key: string;
  /** This request's id: stored with an error, and put in a replayed error body. */
  requestId: string;
  method: string;
  path: string;
  body: unknown;
  nowMs: number;
  ttlSeconds: number;
  /** Opens a stored response that was sealed, and seals this one when `sealsResponse`. */
  secrets: SecretBox;
  /** The response carries a credential (a secret shown once): it is stored sealed. */
  sealsResponse: boolean;
}

/** What the stages need from the service: its clock and how long a key lives. */
export interface IdempotencySettings {
  clock: Clock;
  idempotencyTtlSeconds: number;
  secrets: SecretBox;
}

/** The parts of a POST that come from the request itself, whichever door it came through. */
export interface IdempotentPost {
  accountId: string;
  key: string;
  requestId: string;
  /** The concrete path the stored response is bound to (`/v1/charges/ch_…/refunds`, not the template). */
  path: string;
  body: unknown;
  /** The operation answers with a credential, so its response is stored sealed; default false. */
  sealsResponse?: boolean;
}

/** The idempotent request for a POST, read at the clock's current time. */
export function idempotentPost(settings: IdempotencySettings, post: IdempotentPost): IdempotentRequest {
  return {
    ...post,
    method: 'POST',
    nowMs: settings.clock.nowMs(),
    ttlSeconds: settings.idempotencyTtlSeconds,
    secrets: settings.secrets,
    sealsResponse: post.sealsResponse ?? false,
  };
}

/**
 * The request's fingerprint: method, path and the body with its keys in a fixed order, so that a
 * JSON body and a form body that decode to the same values are the same request.
 */
export function requestFingerprint(request: IdempotentRequest): string {
  return createHash('sha256').update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
