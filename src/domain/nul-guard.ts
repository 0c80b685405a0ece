/**
 * U+0000 in text input. Postgres refuses it in `text` and `jsonb` (the driver's error would be a
 * 500) while SQLite stores it, so both doors refuse it up front, before any database work, and
 * both engines answer alike. Other control characters (tab, newline, …) are legitimate text and
 * pass.
 */

import { ApiError } from './errors.js';

const NUL = '\u0000';

/** Whether a string holds U+0000. */
export function hasNul(text: string): boolean {
  return text.includes(NUL);
}

/**
 * The path to the first string holding U+0000 in a parsed input (JSON, a form tree, GraphQL
 * variables), object keys included: `['metadata', 'order']` for a bad value or a bad key
 * `order`. Undefined when there is none.
 */
export function findNul(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return hasNul(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (hasNul(key)) return [...path, key];
    const found = findNul(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** `['metadata', 'order']` → `metadata[order]`, the notation of form bodies and payment SDKs. */
export function formNotation(path: readonly string[]): string {
  const [first = '', ...rest] = path;
  return first + rest.map((segment) => `[${segment}]`).join('');
}

/**
 * The 400 for a NUL found at `path` (from `findNul`): `parameter_invalid` naming the field in form
 * notation, or `body_invalid` when the input itself is the string.
 */
export function nulError(path: readonly string[]): ApiError {
  const problem = 'must not contain the NUL character (U+0000)';
  if (path.length === 0) return new ApiError('body_invalid', `Invalid request: ${problem}.`);
  const param = formNotation(path);
  return new ApiError('parameter_invalid', `Invalid ${param}: ${problem}.`, { param });
}
