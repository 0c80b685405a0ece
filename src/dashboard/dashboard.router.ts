import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { projectFile } from '../operations/project-files.js';
import { siteHeader, siteStylesheet } from '../pages/site-chrome.js';

const PAGE_DIR = projectFile('src/dashboard/dashboard-page');

/** The page's scripts and styles; index.html is the template and is served at `/dashboard` itself. */
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };

/** Assets live under a URL named after their content, so a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Asset {
  type: string;
  body: Buffer;
}

/** What the page says about this server. */
export interface DashboardOptions {
  /** The webhook retry schedule (`WEBHOOK_RETRY_SCHEDULE`), which the failed-webhooks view states. */
  retryScheduleSeconds: readonly number[];
}

/**
 * The dashboard for people in a browser at `GET /dashboard`: failed webhooks with retry and bulk
 * replay, deliveries, events, payments with each one's timeline and actions (capture, refund,
 * cancel), and customers. It is a static page whose scripts call the REST API with the key the
 * person types in, so it needs nothing the API does not already offer, and does nothing the API
 * would not. The scripts are ES modules that import each other by relative name, so they are all
 * served under one directory named after the hash of every file: a change to any of them is a new
 * URL, and the relative imports stay right. The page carries helmet's full set of HTML headers (CSP
 * `script-src 'self'`: no inline script anywhere).
 */
export function createDashboardRouter({ retryScheduleSeconds }: DashboardOptions): RequestHandler {
  const assets = readAssets();
  const assetsUrl = `/dashboard/assets/${versionOf(assets)}`;
  const page = fs
    .readFileSync(path.join(PAGE_DIR, 'index.html'), 'utf8')
    .replaceAll('{{assets}}', assetsUrl)
    // Numbers joined by commas: nothing in it needs escaping in an attribute.
    .replace('{{retrySchedule}}', retryScheduleSeconds.join(','))
    .replace('{{siteCss}}', siteStylesheet().url)
    .replace('{{siteHeader}}', siteHeader('/dashboard'));

  const router = express.Router();
  const pageHeaders = helmet();
  router.get('/dashboard', pageHeaders, (_req, res) => {
    // Revalidated on every visit, so a new release's asset URLs are picked up at once.
    res.set('Cache-Control', 'no-cache').type('html').send(page);
  });
  router.get(`${assetsUrl}/:name`, pageHeaders, (req, res, next) => {
    const asset = assets.get(req.params.name);
    if (!asset) return next();
    res.set('Cache-Control', IMMUTABLE).type(asset.type).send(asset.body);
  });
  // Only dashboard paths enter the router, so API requests do not pay for matching its routes.
  return (req, res, next) =>
    req.path === '/dashboard' || req.path.startsWith('/dashboard/') ? router(req, res, next) : next();
}

/** Every script and stylesheet of the page, read once at start, by file name. */
function readAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const file of fs.readdirSync(PAGE_DIR).sort()) {
    const type = ASSET_TYPES[path.extname(file)];
    if (type) assets.set(file, { type, body: fs.readFileSync(path.join(PAGE_DIR, file)) });
  }
  return assets;
}

/** A short hash over every asset's name and content. */
function versionOf(assets: Map<string, Asset>): string {
  const hash = createHash('sha256');
  for (const [name, asset] of assets) hash.update(name).update('\0').update(asset.body).update('\0');
  return hash.digest('hex').slice(0, 12);
}
