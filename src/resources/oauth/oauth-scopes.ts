import { loadSpec } from '../../operations/spec.js';
import type { Scope } from '../../operations/scopes.js';

let scopes: readonly Scope[] | undefined;

/** Every scope of the spec's `Scope`, in the spec's order. */
export function allScopes(): readonly Scope[] {
  scopes ??= (loadSpec().components.schemas.Scope as { enum: Scope[] }).enum;
  return scopes;
}

/** Whether `name` is one of the spec's scopes. */
export function isScope(name: string): name is Scope {
  return (allScopes() as readonly string[]).includes(name);
}

/** The names in a `scope` value: separated by spaces (RFC 6749 §3.3), each once, in the order given. */
export function scopeNames(text: string): string[] {
  return [...new Set(text.split(' ').filter((name) => name !== ''))];
}

/** Scopes as a `scope` value: space-separated, in the spec's order, so that equal sets read alike. */
export function scopeText(held: ReadonlySet<Scope>): string {
  return allScopes()
    .filter((scope) => held.has(scope))
    .join(' ');
}
