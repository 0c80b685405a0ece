import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { parseDocument } from 'yaml';
import { loadSpec, SPEC_PATH, type SpecDocument } from '../operations/spec.js';
import { siteHeader, siteStylesheet } from '../pages/site-chrome.js';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>payments-api reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="stylesheet" href="${siteStylesheet().url}">
</head>
<body>
  ${siteHeader('/docs')}
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A file of its own, not an inline script, so the page works under helmet's CSP (script-src 'self').
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/** The server of the served contract: the origin the document itself was loaded from. */
const SERVED_SERVER = { url: '/', description: 'This server: the one this document was loaded from.' };

/**
 * The places in the spec that name this server's origin, with what the served contract says
 * instead: `servers` becomes `/`, and an OAuth flow URL on the spec's own server (`tokenUrl`)
 * becomes its path. A client resolves them against the document's URL (Swagger UI does), so
 * "Try it out" and "Authorize" call the origin the page came from, whatever the `PORT`, host name
 * or proxy in front, and helmet's `connect-src 'self'` lets them through. Relative, rather than
 * built from the request's `Host`, so that no header is trusted and one response suits every
 * origin.
 */
function originRelativeUrls(spec: SpecDocument): Array<{ path: string[]; value: unknown }> {
  const absolute = (value: unknown) => (typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined);
  const ownOrigin = absolute((spec.servers as Array<{ url?: string }> | undefined)?.[0]?.url)?.origin;
  const changes: Array<{ path: string[]; value: unknown }> = [{ path: ['servers'], value: [SERVED_SERVER] }];
  const schemes = (spec.components.securitySchemes ?? {}) as Record<string, { flows?: Record<string, Record<string, unknown>> }>;
  for (const [scheme, { flows }] of Object.entries(schemes)) {
    for (const [flow, settings] of Object.entries(flows ?? {})) {
      for (const field of ['authorizationUrl', 'tokenUrl', 'refreshUrl']) {
        const url = absolute(settings[field]);
        if (url && url.origin === ownOrigin) {
          changes.push({ path: ['components', 'securitySchemes', scheme, 'flows', flow, field], value: `${url.pathname}${url.search}` });
        }
      }
    }
  }
  return changes;
}

let served: { json: string; yaml: string } | undefined;

/**
 * The contract as `/openapi.json` and `/openapi.yaml` serve it: the spec with its own origin made
 * relative (see {@link originRelativeUrls}). The YAML keeps the file's comments and anchors.
 * Made on the first request for it, once per process: re-reading the YAML document takes a
 * quarter to half a second, which neither a start nor every app built in the process (each test's
 * server) should pay.
 */
function servedContract(): { json: string; yaml: string } {
  served ??= renderContract();
  return served;
}

function renderContract(): { json: string; yaml: string } {
  const spec = structuredClone(loadSpec());
  const yaml = parseDocument(fs.readFileSync(SPEC_PATH, 'utf8'));
  for (const { path: at, value } of originRelativeUrls(spec)) {
    const parent = at.slice(0, -1).reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, spec);
    parent[at[at.length - 1]] = value;
    yaml.setIn(at, yaml.createNode(value));
  }
  return { json: JSON.stringify(spec), yaml: yaml.toString({ lineWidth: 0 }) };
}

/**
 * The API reference for people: `/docs` renders the spec with Swagger UI (served from the
 * installed package, nothing fetched from elsewhere); `/openapi.json` and `/openapi.yaml` serve
 * the contract itself, pointing at the server they came from.
 */
export function createDocsRouter(): RequestHandler {
  const router = express.Router();
  const pageHeaders = helmet();
  router.get('/openapi.json', pageHeaders, (_req, res) => {
    res.type('application/json').send(servedContract().json);
  });
  router.get('/openapi.yaml', pageHeaders, (_req, res) => {
    res.type('application/yaml').send(servedContract().yaml);
  });
  router.get('/docs', pageHeaders, (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', pageHeaders, (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.get('/favicon.ico', pageHeaders, (_req, res) => {
    res.type('image/png').sendFile(path.join(SWAGGER_UI_DIR, 'favicon-32x32.png'));
  });
  router.use('/docs/assets', pageHeaders, express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h' }));
  // Only page paths enter the router, so API requests do not pay for matching its routes.
  const PAGE_PATHS = /^\/(docs|openapi\.json$|openapi\.yaml$|favicon\.ico$)/;
  return (req, res, next) => (PAGE_PATHS.test(req.path) ? router(req, res, next) : next());
}
