import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Request, type RequestHandler } from 'express';
import helmet from 'helmet';
import { projectFile } from '../operations/project-files.js';
import { siteHeader, siteStylesheet } from '../pages/site-chrome.js';

const require = createRequire(import.meta.url);
const PAGE_DIR = projectFile('src/graphql/graphiql-page');
const ASSETS_PATH = '/graphql/assets';

/** Assets are addressed by version or content hash, so a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The browser builds the page loads, each from its installed package (only this server is reachable). */
const PACKAGE_DIRS = {
  graphiql: ['graphiql', 'dist'],
  react: ['react', 'umd'],
  reactDom: ['react-dom', 'umd'],
  graphqlWs: ['graphql-ws', 'umd'],
} as const;

/** The page's own files besides the HTML, served under a name that carries their content hash. */
const OWN_ASSETS = { pageCss: 'graphiql-page.css', initJs: 'graphiql-init.js' } as const;

/** The types a request may prefer, in the order that wins a tie: a wildcard Accept gets GraphQL, not the page. */
const NEGOTIATED_TYPES = ['application/graphql-response+json', 'application/json', 'text/html'];

interface PackageAssets {
  /** e.g. `/graphql/assets/react@18.3.1` */
  url: string;
  dir: string;
}

interface OwnAsset {
  url: string;
  type: string;
  body: Buffer;
}

/**
 * GraphiQL for people in a browser at `GET /graphql`: a page that prefers HTML and asks no
 * `query` gets GraphiQL; every other request falls through to the GraphQL handler. GraphiQL,
 * React and graphql-ws are served from their installed packages under versioned URLs, the page's
 * own script is a file (helmet's CSP allows no inline script), and the page carries helmet's full
 * set of HTML headers.
 */
export function createGraphiQLRouter(): RequestHandler {
  const packages = Object.fromEntries(
    Object.entries(PACKAGE_DIRS).map(([key, [name, subdir]]) => [key, packageAssets(name, subdir)]),
  ) as Record<keyof typeof PACKAGE_DIRS, PackageAssets>;
  const ownAssets = Object.fromEntries(
    Object.entries(OWN_ASSETS).map(([key, file]) => [key, ownAsset(file)]),
  ) as Record<keyof typeof OWN_ASSETS, OwnAsset>;
  const page = renderPage({
    ...Object.fromEntries(Object.entries(packages).map(([key, assets]) => [key, assets.url])),
    ...Object.fromEntries(Object.entries(ownAssets).map(([key, asset]) => [key, asset.url])),
    siteCss: siteStylesheet().url,
    siteHeader: siteHeader('/graphql'),
  });

  const router = express.Router();
  const pageHeaders = helmet();
  // Any other request skips the route and leaves the router for the GraphQL handler.
  const onlyForBrowsers: RequestHandler = (req, _res, next) =>
    next(wantsGraphiQL(req) ? undefined : 'route');
  router.get('/graphql', onlyForBrowsers, pageHeaders, (_req, res) => {
    // The same URL answers JSON to clients that ask for it: caches must keep the two apart.
    res.set({ Vary: 'Accept', 'Cache-Control': 'no-cache' }).type('html').send(page);
  });
  for (const asset of Object.values(ownAssets)) {
    router.get(asset.url, pageHeaders, (_req, res) => {
      res.set('Cache-Control', IMMUTABLE).type(asset.type).send(asset.body);
    });
  }
  for (const assets of Object.values(packages)) {
    router.use(
      assets.url,
      pageHeaders,
      express.static(assets.dir, { index: false, immutable: true, maxAge: '1y' }),
    );
  }
  // Only GETs of /graphql paths enter the router: REST requests and GraphQL POSTs do not pay for its routes.
  return (req, res, next) =>
    (req.method === 'GET' || req.method === 'HEAD') && req.path.startsWith('/graphql') ? router(req, res, next) : next();
}

/**
 * Whether a request is a person's browser opening the endpoint: a GET with no `query` parameter
 * that prefers HTML to both GraphQL response types (browsers send `text/html` first; fetch and curl
 * send `application/json`, `application/graphql-response+json` or a wildcard).
 */
function wantsGraphiQL(req: Request): boolean {
  return req.query.query === undefined && req.accepts(NEGOTIATED_TYPES) === 'text/html';
}

/** A package's directory of browser builds and the versioned URL it is served under. */
function packageAssets(name: string, subdir: string): PackageAssets {
  const manifestPath = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { version: string };
  return {
    url: `${ASSETS_PATH}/${name}@${version}`,
    dir: path.join(path.dirname(manifestPath), subdir),
  };
}

/** One of the page's own files, read once, named `<name>.<hash>.<ext>` so that a change is a new URL. */
function ownAsset(file: string): OwnAsset {
  const body = fs.readFileSync(path.join(PAGE_DIR, file));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const extension = path.extname(file);
  return {
    url: `${ASSETS_PATH}/${path.basename(file, extension)}.${hash}${extension}`,
    type: extension === '.css' ? 'text/css' : 'text/javascript',
    body,
  };
}

/** The HTML template with each `{{name}}` replaced by that asset's URL (or the shared header). */
function renderPage(urls: Record<string, string>): string {
  const template = fs.readFileSync(path.join(PAGE_DIR, 'index.html'), 'utf8');
  return template.replace(/\{\{(\w+)\}\}/g, (placeholder, name: string) => {
    const url = urls[name];
    if (url === undefined) {
      throw new Error(`graphiql-page/index.html names an unknown asset ${placeholder}`);
    }
    return url;
  });
}
