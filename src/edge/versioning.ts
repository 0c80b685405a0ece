import type { RequestHandler } from 'express';
import { ApiError } from '../domain/errors.js';

const VENDOR_TYPE = /application\/vnd\.api\.v(\d+)\+json/i;
const CURRENT = '1';

/** Paths that carry no API version (infrastructure, GraphQL, the admin surface, pages). */
const UNVERSIONED = /^\/(v\d+|admin|graphql|healthz|readyz|metrics|docs|dashboard)(\/|$)/;

/**
 * Versioning by path (`/v1/...`) or by media type: `Accept: application/vnd.api.v1+json` on an
 * unprefixed path is served as `/v1/...`. Any other version answers 406.
 */
export const negotiateVersion: RequestHandler = (req, _res, next) => {
  const requested = VENDOR_TYPE.exec(req.headers.accept ?? '')?.[1];
  if (requested !== undefined && requested !== CURRENT) {
    return next(new ApiError('version_not_supported', `API version v${requested} is not supported; this server speaks v${CURRENT}.`));
  }
  if (requested === CURRENT && !UNVERSIONED.test(req.path)) req.url = `/v${CURRENT}${req.url}`;
  next();
};
