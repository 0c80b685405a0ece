import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type {
  AuthResult,
  Authenticator,
  CredentialKind,
  Principal,
} from '../auth/authenticator.js';
import type { OperationId } from '../operations/operations.js';
import { scopeOf } from '../operations/routes.js';
import { assertGranted, type Scope } from '../operations/scopes.js';
import { loadSpec, type SecurityRequirement, type SpecOperation } from '../operations/spec.js';
import { authenticationError } from './error-mapper.js';
import './request-state.js';

/**
 * What each security scheme of the spec stands for: the kinds of account credential it names, the
 * operator, or anyone (the token endpoint checks its OAuth client itself, to answer in RFC 6749's
 * shape). A publishable key is one credential however it is sent (`Bearer pk_test_…`, or as the
 * Basic user name, `curl -u pk_test_…:`): the operations naming `publishableKey` take it.
 */
export const SCHEME_PRINCIPALS: Readonly<
  Record<string, 'admin' | 'anyone' | readonly CredentialKind[]>
> = {
  apiKey: ['api_key'],
  apiKeyBasic: ['api_key'],
  publishableKey: ['publishable_key'],
  oauth2: ['access_token'],
  httpSignature: ['signature'],
  mutualTLS: ['client_certificate'],
  adminBasic: 'admin',
  oauthClientBasic: 'anyone',
};

/** Whom an operation's `security` admits, and the scope it asks of an account's credential. */
interface Admits {
  anyone: boolean;
  admin: boolean;
  credentials: ReadonlySet<CredentialKind>;
  scope?: Scope;
}

/** Whom `security` admits: an empty requirement, or a scheme that stands for anyone, admits anyone. */
export function admitsOf(security: readonly SecurityRequirement[]): Admits {
  let anyone = security.length === 0;
  let admin = false;
  const credentials = new Set<CredentialKind>();
  for (const requirement of security) {
    const schemes = Object.keys(requirement);
    if (schemes.length === 0) anyone = true;
    for (const scheme of schemes) {
      const principals = SCHEME_PRINCIPALS[scheme];
      if (principals === undefined)
        throw new Error(`The spec's security scheme ${scheme} stands for no principal here`);
      if (principals === 'anyone') anyone = true;
      else if (principals === 'admin') admin = true;
      else for (const kind of principals) credentials.add(kind);
    }
  }
  return { anyone, admin, credentials };
}

function admitted(admits: Admits, principal: Principal): boolean {
  return principal.kind === 'admin' ? admits.admin : admits.credentials.has(principal.credential);
}

/** Undefined when the principal may call the operation; else the error to answer (401, or 403 for a scope). */
function refusalOf(req: Request, admits: Admits, principal: Principal): unknown {
  if (!admitted(admits, principal)) return authenticationError(req);
  // A publishable key holds no scope: the operations that take it check its client secret.
  if (principal.kind === 'admin' || principal.grant === 'publishable') return undefined;
  try {
    assertGranted(principal.grant, admits.scope);
    return undefined;
  } catch (error) {
    return error;
  }
}

/**
 * Enforces each operation's declared `security` in one lookup, in the validator's security step's
 * place (after the operation is matched, before its parameters are validated): authenticateEarly
 * has decided the principal already, so this only asks whether a scheme of the operation stands for
 * it, instead of trying every scheme against the headers again. A request it did not decide (a
 * path outside `/v1` and `/admin`) is checked here. Refused: 401 through the error mapper, as the
 * validator's refusal was, or a publishable key's 403 naming what it may call; or 403 for a
 * credential without the operation's scope, before its parameters are read (runOperation checks
 * the scope again for both doors: one set lookup).
 */
export function enforceDeclaredSecurity(auth: Authenticator): RequestHandler {
  const spec = loadSpec();
  const byOperation = new Map<string, Admits>();
  for (const item of Object.values(spec.paths)) {
    for (const operation of Object.values(item) as SpecOperation[]) {
      if (!operation?.operationId) continue;
      const admits = admitsOf(operation.security ?? spec.security ?? []);
      byOperation.set(operation.operationId, {
        ...admits,
        scope: scopeOf(operation.operationId as OperationId),
      });
    }
  }
  const decide = async (req: Request, admits: Admits): Promise<AuthResult> =>
    admits.admin && admits.credentials.size === 0 ? auth.adminBasic(req) : auth.account(req);
  return (req: Request, _res: Response, next: NextFunction) => {
    const operationId = req.openapi?.schema.operationId;
    const admits = operationId === undefined ? undefined : byOperation.get(operationId);
    if (admits === undefined || admits.anyone) return next();
    if (req.principal) return next(refusalOf(req, admits, req.principal));
    if (req.authFailure) return next(authenticationError(req));
    decide(req, admits).then((result) => {
      if (!result.ok) {
        req.authFailure = result;
        return next(authenticationError(req));
      }
      req.principal = result.principal;
      next(refusalOf(req, admits, result.principal));
    }, next);
  };
}
