import express, { type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import type { Database } from '../db/database.js';
import type { Clock } from '../domain/clock.js';
import { isApiError } from '../domain/errors.js';
import type { SecretBox } from '../domain/secret-box.js';
import { requestIdOf } from '../edge/request-id.js';
import type { RequestContext, ServiceSettings } from '../operations/operations.js';
import { isClientSecret } from '../resources/payments/client-secrets.js';
import { findAccount } from '../resources/accounts/accounts.repo.js';
import { formatMoney } from '../pages/html-text.js';
import { authenticationPage, noticePage } from './authentication-page.js';
import { redirectTargetOf, type RedirectSubject, type RedirectTarget } from './redirect-targets.js';

export interface AuthenticationPageDeps {
  db: Database;
  clock: Clock;
  settings: ServiceSettings;
  secrets: SecretBox;
}

const OUTCOMES = new Set(['succeeded', 'failed']);
/** What an object answered meanwhile (in another tab) refuses a second answer with. */
const ANSWERED = new Set<string>(['payment_intent_unexpected_state', 'setup_intent_unexpected_state']);

/**
 * `/authenticate/{id}?client_secret=…`: the page `next_action.redirect_to_url.url` names. It opens
 * only with the object's client secret (compared in constant time; anything else is the same 404,
 * so the page tells nothing of ids). `GET` shows the amount and the merchant with Complete and Fail;
 * the form `POST`s the answer with the client secret, the object changes as the test helper
 * changes it (its events included, in one transaction), and the browser is sent to `return_url`
 * with `<object>`, `<object>_client_secret` and `redirect_status`, as the payments API does.
 *
 * Helmet's page headers, with one difference: `form-action` also allows the return URL's origin,
 * because browsers hold the redirect after a form's submission to it.
 */
export function createAuthenticationPageRouter(deps: AuthenticationPageDeps): RequestHandler {
  const router = express.Router();
  const headers = helmet({
    contentSecurityPolicy: {
      directives: { formAction: ["'self'", (_req, res) => (res as Response).locals.returnOrigin ?? "'self'"] },
    },
  });
  router.get('/authenticate/:id', subjectOf(deps), headers, async (req, res) => {
    const subject = res.locals.subject as RedirectSubject | undefined;
    if (!subject) return sendNotFound(res, String(req.params.id));
    const target = res.locals.target as RedirectTarget;
    if (!subject.waiting) return sendNotice(res, target, subject);
    const account = await findAccount(deps.db, subject.accountId);
    const amount = subject.amount && formatMoney(subject.amount.value, subject.amount.currency);
    const action = `/authenticate/${encodeURIComponent(subject.id)}`;
    sendHtml(res, 200, authenticationPage({ merchant: account?.name ?? subject.accountId, amount, action, clientSecret: subject.clientSecret! }));
  });
  router.post('/authenticate/:id', express.urlencoded({ extended: false, limit: '4kb' }), subjectOf(deps), headers, async (req, res) => {
    const subject = res.locals.subject as RedirectSubject | undefined;
    if (!subject) return sendNotFound(res, String(req.params.id));
    const target = res.locals.target as RedirectTarget;
    const outcome = String(req.body?.outcome ?? '');
    if (!OUTCOMES.has(outcome)) return sendHtml(res, 400, noticePage(400, 'Choose Complete or Fail.'));
    if (!subject.waiting) return sendNotice(res, target, subject);
    try {
      await deps.db.transaction((tx) => target.complete(contextOf(deps, tx, subject, res), subject.id, outcome as 'succeeded' | 'failed'));
    } catch (error) {
      // Answered meanwhile (another tab): the page says so rather than failing.
      if (isApiError(error) && ANSWERED.has(error.code)) return sendNotice(res, target, subject);
      throw error;
    }
    if (!subject.returnUrl) return sendHtml(res, 200, noticePage(200, 'Done: you may close this page.'));
    res.redirect(303, returnLocation(target, subject, outcome === 'succeeded' ? 'succeeded' : 'failed'));
  });
  return router;
}

/** Loads the object the path names and checks the client secret; anything wrong leaves no subject (the one 404 page). */
function subjectOf(deps: AuthenticationPageDeps): RequestHandler {
  return async (req, res, next) => {
    const id = String(req.params.id);
    const given = req.method === 'POST' ? req.body?.client_secret : req.query.client_secret;
    const target = redirectTargetOf(id);
    const subject = target && typeof given === 'string' ? await target.find(deps.db, deps.secrets, id) : undefined;
    if (!target || !subject || typeof given !== 'string' || !isClientSecret(given, subject.clientSecret)) return next();
    res.locals.subject = subject;
    res.locals.target = target;
    if (subject.returnUrl) res.locals.returnOrigin = new URL(subject.returnUrl).origin;
    next();
  };
}

/** The request context of the object's account: the page acts for the customer, as the test helper would. */
function contextOf(deps: AuthenticationPageDeps, tx: RequestContext['db'], subject: RedirectSubject, res: Response): RequestContext {
  return {
    accountId: subject.accountId,
    grant: 'all',
    requestId: requestIdOf(res),
    idempotencyKey: null,
    db: tx,
    readDb: tx,
    clock: deps.clock,
    settings: deps.settings,
    secrets: deps.secrets,
  };
}

/** `return_url` with the object, its client secret and how the authentication ended. */
function returnLocation(target: RedirectTarget, subject: RedirectSubject, status: 'succeeded' | 'failed'): string {
  const url = new URL(subject.returnUrl!);
  url.searchParams.set(target.param, subject.id);
  url.searchParams.set(`${target.param}_client_secret`, subject.clientSecret!);
  url.searchParams.set('redirect_status', status);
  return url.toString();
}

/** The one page of a link that opens nothing; its id's prefix, already in the link, names the kind. */
function sendNotFound(res: Response, id: string): void {
  const noun = redirectTargetOf(id)?.noun ?? 'payment';
  sendHtml(res, 404, noticePage(404, `The link is incomplete or not this ${noun}’s. Start again from the merchant’s page.`));
}

/** An object answered already (or never asked): the notice names it as the customer knows it. */
function sendNotice(res: Response, target: RedirectTarget, subject: RedirectSubject): void {
  const message = `This ${target.noun} is not waiting for an authentication any more.`;
  sendHtml(res, 409, noticePage(409, message, subject.returnUrl ?? undefined));
}

function sendHtml(res: Response, status: number, html: string): void {
  res.status(status).set('Cache-Control', 'no-store').type('html').send(html);
}

