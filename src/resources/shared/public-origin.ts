import type { ServiceSettings } from '../../operations/operations.js';

/**
 * The origin the absolute URLs of a resource are made on (src/public-origin.ts). A context without
 * one is a composition error, not a request's: a resource must never leave with a path a browser
 * would resolve against the merchant's own site.
 */
export function originOf(ctx: { settings: ServiceSettings }): string {
  const origin = ctx.settings.publicOrigin?.();
  if (!origin) throw new Error('settings.publicOrigin is not set: the composition root sets it');
  return origin;
}
