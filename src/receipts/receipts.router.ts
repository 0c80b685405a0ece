import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Queryable } from '../db/database.js';
import { renderReceipt, renderReceiptNotFound } from './receipt-page.js';
import { loadReceipt } from './receipt-view.js';

/** A charge id and a receipt token: anything else is not a receipt, and is not looked up. */
const CHARGE_ID = /^ch_[0-9A-Za-z]{1,60}$/;
const TOKEN = /^rcpt_[0-9A-Za-z]{1,60}$/;

/**
 * `GET /receipts/{charge}/{token}`: a charge's receipt page, open to whoever holds the address (the
 * charge's `receipt_url`), without an API key: the token is the credential. Every other address
 * under `/receipts/` (an unknown charge, a failed one, a wrong token) is the same 404 page, so
 * that nothing tells whether a charge exists. The pages carry helmet's full headers (CSP with no
 * inline script: the page has none), are never cached (`no-store`: a receipt changes with its
 * refunds, and is private) nor indexed (`X-Robots-Tag: noindex`), and helmet's `no-referrer`
 * keeps the address out of any request the page leads to.
 */
export function createReceiptsRouter(db: Queryable): RequestHandler {
  const router = express.Router();
  router.use(helmet(), (_req, res, next) => {
    res.set({ 'X-Robots-Tag': 'noindex, nofollow', 'Cache-Control': 'no-store' });
    next();
  });
  router.get('/receipts/:charge/:token', async (req, res, next) => {
    const { charge, token } = req.params;
    if (!CHARGE_ID.test(charge) || !TOKEN.test(token)) return next();
    const view = await loadReceipt(db, charge, token);
    if (!view) return next();
    res.type('html').send(renderReceipt(view));
  });
  router.use((_req, res) => {
    res.status(404).type('html').send(renderReceiptNotFound());
  });
  // Only receipt paths enter the router, so API requests do not pay for matching its routes.
  return (req, res, next) => (req.path === '/receipts' || req.path.startsWith('/receipts/') ? router(req, res, next) : next());
}
