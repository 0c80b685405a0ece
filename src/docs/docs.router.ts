import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { loadSpec, SPEC_PATH } from '../operations/spec.js';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>payments-api reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A file of its own, not an inline script, so the page works under helmet's CSP (script-src 'self').
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * The API reference for people: `/docs` renders the spec with Swagger UI (served from the
 * installed package, nothing fetched from elsewhere); `/openapi.json` and `/openapi.yaml` serve
 * the contract itself.
 */
export function createDocsRouter(): RequestHandler {
  const router = express.Router();
  const pageHeaders = helmet();
  const specJson = JSON.stringify(loadSpec());
  router.get('/openapi.json', pageHeaders, (_req, res) => {
    res.type('application/json').send(specJson);
  });
  router.get('/openapi.yaml', pageHeaders, (_req, res) => {
    res.type('application/yaml').sendFile(SPEC_PATH);
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
